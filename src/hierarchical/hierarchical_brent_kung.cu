// hierarchical_brent_kung -- Brent-Kung block scan (up-sweep / down-sweep tree in shared
// memory, two elements per thread) inside the scan-then-add hierarchy.
//
// Idea (Brent & Kung 1982, "A regular layout for parallel adders"): an up-sweep builds a
// reduction tree in place (step k: every 2^(k+1)-th element combines the one 2^k to its left),
// then a down-sweep hands the partial sums down to the elements the tree skipped. Only tree
// nodes change, never an element someone else is still reading, so one barrier per step is
// enough, and a block of B threads scans 2B elements.
//
// Cost per 2048-element tile: work 2N - log2 N - 2 = 4083 combines (work-efficient, against
// Kogge-Stone's N log2 N), depth 2 log2 N - 1 = 21 steps, 1 barrier per step, and the
// later steps keep only a handful of threads busy. Launches: 5 at N = 2^28 (tile scans of 2^28,
// 2^17, 2^6 elements, carry adds over 2^17 and 2^28).
// Global traffic: 4 accesses per element: at best 50% of memcpy bandwidth.
//
// Constraints: any N, every type/operator/mode. Tile = 2048 items, 1024 threads.
// The tree is zoo::BrentKungTree in src/blocks/smem_tree_scans.cuh.
//
// In the charts: half the tiles of Kogge-Stone for the same threads and less work, but more
// steps: on a GPU, where the idle lanes of a step are free, depth and barriers decide.
//
// Run: make bin/hierarchical_brent_kung && ./bin/hierarchical_brent_kung 2^28
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "hierarchy.cuh"

using BrentKungTile = zoo::TreeTile<1024, 2048, zoo::BrentKungTree>;

ZOO_MAIN(zoo::HierarchicalVariant<BrentKungTile>)
