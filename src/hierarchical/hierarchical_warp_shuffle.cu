// hierarchical_warp_shuffle -- the three-pass scan built on a warp-shuffle block scan: scan
// tiles, scan the tile totals, add each tile's carry.
//
// Idea (the block_scan_warp of a blog post on the Blelloch scan, warp scans and decoupled
// look-back, measured on an A100; warp scans via shuffle appear in CUB and in
// Harris & Garland's "Optimizing parallel prefix operations for the Fermi architecture",
// 2011): a warp scans 32 values in registers with 5 __shfl_up_sync steps and no barrier; the
// last lane of each warp publishes its warp's total in shared memory; warp 0 scans those totals
// the same way; every thread adds its warp's prefix. Each thread reads one 16-byte vector (4
// int32 / float32), which is already both consecutive-per-thread and coalesced across the warp,
// scans it serially, and feeds its total to the block scan: no transpose, no shared tile.
//
// Cost per 1024-element tile (256 threads x 4): 2 x 1024 serial combines + 2 x 5 shuffle steps,
// 2 barriers in all (warp totals written, warp prefixes written). Launches: 5 at N = 2^28 (tile
// scans of 2^28, 2^18, 2^8 elements; carry adds over 2^18 and 2^28).
// Global traffic: 4 accesses per element: at best 50% of memcpy bandwidth; the scan and carry
// passes each run near copy speed, so it lands close to that bound.
//
// Constraints: any N, every type/operator/mode (16-byte accesses need 16-byte-aligned full
// tiles: the last, partial tile goes element by element). Tile = 4 x 256 items.
// Pieces: zoo::CoarsenedTile (tile_policies.cuh), zoo::WarpBlockScan + zoo::ShuffleWarpScan.
//
// In the charts: near the 50%-of-memcpy line at large N, well above the shared-memory trees.
//
// Run: make bin/hierarchical_warp_shuffle && ./bin/hierarchical_warp_shuffle 2^28
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "hierarchy.cuh"

using WarpShuffleTile = zoo::CoarsenedTile<256, 4, zoo::WarpBlockScan<256, zoo::ShuffleWarpScan>>;

ZOO_MAIN(zoo::HierarchicalVariant<WarpShuffleTile>)
