// hierarchical_warp_tiled_coarsening_optimized -- hierarchical_warp_tiled_optimized with 4x
// larger tiles: 16 elements per thread, 512 threads, so the totals pyramid is smaller.
//
// Idea: the same register tile + transpose + warp-shuffle block scan, coarsened further. Each
// tile of 8192 elements leaves one total, so the level above the data is 8192x shorter (32768
// totals at N = 2^28 instead of 131072), and more independent 16-byte loads are in flight per
// thread (4 vectors), which helps hide memory latency. The price: 16 registers of elements per
// thread and a 33 KB transpose buffer per block, so fewer blocks per SM.
//
// Cost per 8192-element tile (512 threads x 16): 2 x 8192 serial combines + 2 x 5 shuffle steps
// (warp 0 scans 16 warp totals), 6 barriers. Launches: 5 at N = 2^28 (tile scans of 2^28, 2^15,
// 4 elements; carry adds over 2^15 and 2^28); 3 from N = 8193 to 2^26.
// Global traffic: 4 accesses per element: at best 50% of memcpy bandwidth.
//
// Constraints: any N, every operator and mode, the 32-bit types (int32, float32, uint32: a tile
// of 64-bit elements does not fit in static shared memory). Tile = 16 x 512 items.
// Pieces: zoo::CoarsenedTile + zoo::BlockedTile (tile_io.cuh), zoo::WarpBlockScan.
//
// In the charts: next to hierarchical_warp_tiled_optimized; ahead where the smaller pyramid
// saves a launch, behind where one block per tile leaves SMs idle (small N).
//
// Run: make bin/hierarchical_warp_tiled_coarsening_optimized && ./bin/hierarchical_warp_tiled_coarsening_optimized 2^28
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "hierarchy.cuh"

using WarpTiledCoarsenedTile = zoo::CoarsenedTile<512, 16, zoo::WarpBlockScan<512, zoo::ShuffleWarpScan>>;

// 32-bit elements only: the 8192-element tile is 32 KB of shared memory as 32-bit values, 64 KB
// (past the 48 KB a static allocation may take) as 64-bit ones.
ZOO_MAIN(zoo::HierarchicalVariant<WarpTiledCoarsenedTile, zoo::ThirtyTwoBitTypes>)
