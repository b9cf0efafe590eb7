// hierarchical_brent_kung_double_buffering -- Brent-Kung with ping-pong shared buffers, for
// comparison with the in-place version: the double buffering that helps Kogge-Stone hurts here.
//
// Idea: the same up-sweep / down-sweep tree as hierarchical_brent_kung, but every step writes the
// whole tile into the other buffer (the active tree nodes updated, every other element copied)
// and the buffers swap. Brent-Kung in place has no read-after-write hazard to remove (only tree
// nodes change), so nothing is saved: it still needs one barrier per step, and it moves all 2048
// elements through shared memory in each of the 21 steps where the in-place tree touches only
// the active nodes (N - 1 in the whole up-sweep). The blog post "Deep dive into CUDA Scan
// Kernels" finds the overhead outweighs the benefit; we measure it slower.
//
// Cost per 2048-element tile: 4083 combines plus 21 x 2048 shared-memory copies, depth 21 steps,
// 1 barrier per step (+1 for the copy back after an odd step count). Launches: 5 at N = 2^28.
// Global traffic: 4 accesses per element: at best 50% of memcpy bandwidth.
//
// Constraints: any N, every type/operator/mode. Tile = 2048 items, 1024 threads, two shared
// buffers. The tree is zoo::BrentKungDoubleBufferedTree in src/blocks/smem_tree_scans.cuh.
//
// In the charts: below hierarchical_brent_kung at every size that is not launch-bound; the
// difference is the extra shared-memory traffic.
//
// Run: make bin/hierarchical_brent_kung_double_buffering && ./bin/hierarchical_brent_kung_double_buffering 2^28
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "hierarchy.cuh"

using BrentKungDoubleBufferedTile = zoo::TreeTile<1024, 2048, zoo::BrentKungDoubleBufferedTree>;

ZOO_MAIN(zoo::HierarchicalVariant<BrentKungDoubleBufferedTile>)
