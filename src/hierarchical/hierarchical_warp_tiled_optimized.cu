// hierarchical_warp_tiled_optimized -- register tiles, a shared-memory transpose for coalescing
// and a warp-shuffle block scan: the fastest hierarchical kernel of the blog post "Deep dive into
// CUDA Scan Kernels: Hierarchical and Single-Pass Variants".
//
// Idea (that post's "optimized hierarchical scan"): combine the three classic
// optimizations. (1) Register tiling: each thread owns 8 consecutive elements and scans them
// serially in registers. (2) Coalescing: the tile is read with 16-byte vectors striped across
// the threads, written to shared memory and read back transposed (thread t gets elements
// 8t .. 8t+7; one pad slot per 32 keeps the transposed reads free of bank conflicts), and
// written back the same way. (3) Warp primitives: the 256 thread totals are scanned by
// __shfl_up_sync warp scans, warp 0 scanning the 8 warp totals, so the block needs only 2
// barriers for the scan (plus 4 for the transposes).
//
// Cost per 2048-element tile (256 threads x 8): 2 x 2048 serial combines + 2 x 5 shuffle steps,
// 6 barriers. Launches: 5 at N = 2^28 (tile scans of 2^28, 2^17, 2^6 elements; carry adds over
// 2^17 and 2^28).
// Global traffic: 4 accesses per element: at best 50% of memcpy bandwidth.
//
// Constraints: any N, every type/operator/mode. Tile = 8 x 256 items.
// Pieces: zoo::CoarsenedTile + zoo::BlockedTile (tile_io.cuh), zoo::WarpBlockScan.
//
// In the charts: with the other warp variants at the 50%-of-memcpy line for large N; for small
// N the launch count (3 to 5 kernels) sets the floor.
//
// Run: make bin/hierarchical_warp_tiled_optimized && ./bin/hierarchical_warp_tiled_optimized 2^28
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "hierarchy.cuh"

using WarpTiledTile = zoo::CoarsenedTile<256, 8, zoo::WarpBlockScan<256, zoo::ShuffleWarpScan>>;

ZOO_MAIN(zoo::HierarchicalVariant<WarpTiledTile>)
