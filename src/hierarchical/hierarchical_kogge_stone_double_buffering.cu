// hierarchical_kogge_stone_double_buffering -- Kogge-Stone with two shared buffers (ping-pong),
// one barrier per step instead of two, inside the scan-then-add hierarchy.
//
// Idea: the in-place Kogge-Stone (hierarchical_kogge_stone) needs a second barrier per step only
// because a thread may overwrite its element before its right-hand partner has read it. Reading
// from one buffer and writing the other removes that hazard: each step is read-old, write-new,
// one __syncthreads(), swap. The textbooks' (Hillis & Steele 1986; Kirk & Hwu, "Programming
// Massively Parallel Processors") standard fix; costs a second 1024-element shared array.
//
// Cost per 1024-element tile: work 9217 combines, depth 10 steps, 1 barrier per step (10, plus
// the copy back when the step count is odd; here it is even). Launches: 5 at N = 2^28 (tile
// scans of 2^28, 2^18, 2^8 elements, carry adds over 2^18 and 2^28).
// Global traffic: 4 accesses per element: at best 50% of memcpy bandwidth.
//
// Constraints: any N, every type/operator/mode. Tile = 1024 items, 1024 threads.
// The tree is zoo::KoggeStoneDoubleBufferedTree in src/blocks/smem_tree_scans.cuh.
//
// In the charts: compare with hierarchical_kogge_stone: half the barriers, the same global
// traffic; the gap between the two is what a barrier costs when every thread owns one element.
//
// Run: make bin/hierarchical_kogge_stone_double_buffering && ./bin/hierarchical_kogge_stone_double_buffering 2^28
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "hierarchy.cuh"

using KoggeStoneDoubleBufferedTile = zoo::TreeTile<1024, 1024, zoo::KoggeStoneDoubleBufferedTree>;

ZOO_MAIN(zoo::HierarchicalVariant<KoggeStoneDoubleBufferedTile>)
