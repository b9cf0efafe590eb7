// hierarchical_kogge_stone -- Kogge-Stone block scan in shared memory, inside the multi-level
// scan-then-add hierarchy.
//
// Idea (Kogge & Stone 1973, a recurrence solver that became the classic parallel-prefix adder;
// as a GPU scan it is often called Hillis-Steele 1986). Each of the block's 1024 threads owns one
// element in shared memory. In step k every element combines the element 2^k places to its left
// into itself; after log2(1024) = 10 steps element i holds x[0] (+) ... (+) x[i]. The update is
// in place, so each step needs two barriers: one after everybody has read its left partner, one
// after everybody has written (otherwise thread i+stride could read thread i's new value).
// The multi-level hierarchy in src/hierarchical/hierarchy.cuh scans the tile totals and adds each tile's
// carry-in back down.
//
// Cost per 1024-element tile: work n*log2(n) - (n-1) = 9217 combines (a sequential scan needs
// 1023: not work-efficient), depth 10 steps, 2 barriers per step (20 in all).
// Launches: for N > 1024, 2 per hierarchy level (scan tiles, add carries) minus one for the top:
// 5 at N = 2^28 (tile scans of 2^28, 2^18 and 2^8 elements; carry adds over 2^18 and 2^28).
// Global traffic: 4 accesses per element (scan pass reads and writes, carry pass reads and
// writes again): at best 50% of memcpy bandwidth. One element per thread and 20 barriers per
// tile make it latency-bound well before that, which is what the coarsened, double-buffered
// and warp-shuffle variants go after.
//
// Constraints: any N (64-bit indexing), every type and operator of the harness, inclusive or
// exclusive (the exclusive output reads each thread's left neighbour). Tile = 1024 items.
// The block scan itself is zoo::KoggeStoneTree in src/blocks/smem_tree_scans.cuh, shared with the
// coarsened variant, which runs it over per-thread totals.
//
// In the charts: a flat launch-bound line up to ~2^16, then well under the memcpy ceiling at
// large N; compare with hierarchical_kogge_stone_double_buffering (one barrier per step).
//
// Run: make bin/hierarchical_kogge_stone && ./bin/hierarchical_kogge_stone 2^28
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "hierarchy.cuh"

// 1024 threads, one element each, scanned in place by zoo::KoggeStoneTree (smem_tree_scans.cuh).
using KoggeStoneTile = zoo::TreeTile<1024, 1024, zoo::KoggeStoneTree>;

ZOO_MAIN(zoo::HierarchicalVariant<KoggeStoneTile>)
