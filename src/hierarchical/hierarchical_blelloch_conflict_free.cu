// hierarchical_blelloch_conflict_free -- Blelloch's scan with the bank-conflict-avoiding
// padding of GPU Gems 3 (chapter 39), inside the scan-then-add hierarchy.
//
// Idea: shared memory has 32 banks of 4 bytes; in the tree steps of hierarchical_blelloch,
// lane t touches element (t + 1) * 2 * stride - 1, so for strides of 16 and more whole groups of
// a warp's lanes land in one bank and are served one after another. Storing element i at
// i + i/32 (one pad slot per 32 elements, the CONFLICT_FREE_OFFSET of Harris, Sengupta &
// Owens 2007) shifts each group of 32 into a different bank. Same algorithm, same barriers; only
// the shared-memory addresses change (2048 + 64 slots).
//
// Cost per 2048-element tile: as hierarchical_blelloch: work 2(N - 1) + N combines, depth 23
// steps, 1 barrier per step. Launches: 5 at N = 2^28.
// Global traffic: 4 accesses per element: at best 50% of memcpy bandwidth.
//
// Constraints: any N, every type/operator/mode. Tile = 2048 items, 1024 threads.
// The tree is zoo::BlellochTree<true> in src/blocks/smem_tree_scans.cuh.
//
// In the charts: next to hierarchical_blelloch; the difference is the cost of the conflicts,
// small once global memory dominates.
//
// Run: make bin/hierarchical_blelloch_conflict_free && ./bin/hierarchical_blelloch_conflict_free 2^28
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "hierarchy.cuh"

using BlellochConflictFreeTile = zoo::TreeTile<1024, 2048, zoo::BlellochTree<true>>;

ZOO_MAIN(zoo::HierarchicalVariant<BlellochConflictFreeTile>)
