// hierarchical_kogge_stone_coarsening -- thread coarsening: each thread scans 8 consecutive
// elements serially, Kogge-Stone scans only the per-thread totals, inside the hierarchy.
//
// Idea (the coarsening chapter of Kirk & Hwu, "Programming Massively Parallel Processors"): the
// parallel tree is the expensive part (N log N work, a barrier per step), so give it fewer
// elements. The block loads its tile coalesced (16-byte vectors, consecutive threads on
// consecutive addresses) into shared memory and reads it back transposed, so that thread t holds
// elements 8t .. 8t+7 in registers; scans them serially; runs Kogge-Stone (in place, two
// barriers per step) over the 512 thread totals; then each thread combines the total of all
// threads before it into its 8 elements (the explicit redistribution) and the tile goes back
// out through the same transpose.
//
// Cost per 4096-element tile: 2 x 4096 serial combines + Kogge-Stone over 512 totals (4097
// combines, 9 steps, 18 barriers) + 4 barriers for the transposes. Launches: 5 at N = 2^28 (tile
// scans of 2^28, 2^16, 2^4 elements, carry adds over 2^16 and 2^28); 4x fewer tiles than the
// plain version, so a smaller totals pyramid.
// Global traffic: 4 accesses per element: at best 50% of memcpy bandwidth.
//
// Constraints: any N, every type/operator/mode. Tile = 4096 items (512 threads x 8).
// Pieces: zoo::CoarsenedTile (tile_policies.cuh), zoo::TreeBlockScan + zoo::KoggeStoneTree.
//
// In the charts: well above hierarchical_kogge_stone at large N: 8x fewer barriers per element.
//
// Run: make bin/hierarchical_kogge_stone_coarsening && ./bin/hierarchical_kogge_stone_coarsening 2^28
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "hierarchy.cuh"

using KoggeStoneCoarsenedTile = zoo::CoarsenedTile<512, 8, zoo::TreeBlockScan<512, zoo::KoggeStoneTree>>;

ZOO_MAIN(zoo::HierarchicalVariant<KoggeStoneCoarsenedTile>)
