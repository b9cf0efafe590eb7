// hierarchical_brent_kung_coarsening -- thread coarsening with a Brent-Kung scan of the
// per-thread totals, inside the scan-then-add hierarchy.
//
// Idea: as hierarchical_kogge_stone_coarsening (8 consecutive elements per thread through a
// shared-memory transpose, a serial scan in registers, a block scan of the 512 thread totals,
// redistribution of each thread's prefix into its elements), with the totals scanned by the
// Brent-Kung tree. The blog post "Deep dive into CUDA Scan Kernels" pads its 2B-element
// Brent-Kung kernel with zeros to reuse it on B totals; zoo::BrentKungTree takes any power-of-two
// count up to two per thread, so the 512 totals are scanned as they are (256 threads active in
// the first step).
//
// Cost per 4096-element tile: 2 x 4096 serial combines + Brent-Kung over 512 totals (1013
// combines, 17 steps, 17 barriers) + 4 barriers for the transposes. Launches: 5 at N = 2^28.
// Global traffic: 4 accesses per element: at best 50% of memcpy bandwidth.
//
// Constraints: any N, every type/operator/mode. Tile = 4096 items (512 threads x 8).
// Pieces: zoo::CoarsenedTile (tile_policies.cuh), zoo::TreeBlockScan + zoo::BrentKungTree.
//
// In the charts: next to hierarchical_kogge_stone_coarsening: once the tree runs over totals
// only, its choice barely matters; global memory does.
//
// Run: make bin/hierarchical_brent_kung_coarsening && ./bin/hierarchical_brent_kung_coarsening 2^28
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "hierarchy.cuh"

using BrentKungCoarsenedTile = zoo::CoarsenedTile<512, 8, zoo::TreeBlockScan<512, zoo::BrentKungTree>>;

ZOO_MAIN(zoo::HierarchicalVariant<BrentKungCoarsenedTile>)
