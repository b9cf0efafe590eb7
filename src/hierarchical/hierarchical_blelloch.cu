// hierarchical_blelloch -- Blelloch's work-efficient exclusive scan (up-sweep, clear the root,
// down-sweep) in shared memory, inside the scan-then-add hierarchy.
//
// Idea (Blelloch 1990, "Prefix sums and their applications"; the GPU Gems 3 chapter 39 version
// of Harris, Sengupta & Owens 2007): the up-sweep is Brent-Kung's reduction tree; then the root
// is replaced by the identity and a down-sweep walks the tree back, each node handing its prefix
// to its left child and prefix (+) left-child-sum to its right child. The result is the
// exclusive scan; the inclusive one combines each element's own value back in (kept in
// registers). The tree's power-of-two strides make many lanes of a warp hit one shared-memory
// bank (compare hierarchical_blelloch_conflict_free).
//
// Cost per 2048-element tile: work 2(N - 1) combines + N for inclusive, depth 2 log2 N + 1 = 23
// steps, 1 barrier per step. Launches: 5 at N = 2^28 (tile scans of 2^28, 2^17, 2^6 elements,
// carry adds over 2^17 and 2^28).
// Global traffic: 4 accesses per element: at best 50% of memcpy bandwidth.
//
// Constraints: any N, every type/operator/mode. Tile = 2048 items, 1024 threads.
// The tree is zoo::BlellochTree<false> in src/blocks/smem_tree_scans.cuh.
//
// In the charts: close to hierarchical_brent_kung (same tree, two more steps); the gap to the
// conflict-free variant is the price of bank conflicts.
//
// Run: make bin/hierarchical_blelloch && ./bin/hierarchical_blelloch 2^28
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "hierarchy.cuh"

using BlellochTile = zoo::TreeTile<1024, 2048, zoo::BlellochTree<false>>;

ZOO_MAIN(zoo::HierarchicalVariant<BlellochTile>)
