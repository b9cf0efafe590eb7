// single_pass_scan_naive -- one kernel, tiles chained like dominoes in blockIdx.x order: block
// i waits for block i-1's published prefix, then publishes its own.
//
// Idea (the "domino" or chained scan, e.g. Yan, Long & Zhang, "StreamScan", PPoPP 2013): every
// block scans its 4096-element tile (16 consecutive elements per thread in registers, a
// warp-shuffle block scan), then warp 0 spins on the predecessor's descriptor until it reads
// INCLUSIVE (flag and value in separate words, value stored before the flag with release, the
// flag loaded with acquire), publishes prefix (+) tile total for the successor, and the block
// writes its tile from registers with the prefix combined in. One pass over memory, but the
// hand-over is strictly serial: tile k finishes no earlier than k hand-over latencies (an L2
// round trip each, about a microsecond) after the first.
//
// Work: O(N); depth: the chain, N / 4096 hand-overs. Launches: 2 (a memset zeroes the flags,
// then the scan). Global traffic: 2 accesses per element (bound: memcpy), but the chain, not
// bandwidth, sets the time once there are more tiles than SMs can run at once.
//
// Forward progress: relies on the hardware dispatching blocks in blockIdx.x order. Nothing in
// CUDA promises it: if every resident block waited on a block not yet dispatched, the kernel
// would hang (the watchdog would end it with exit code 5). It holds in practice on NVIDIA GPUs,
// which is why this variant works; single_pass_scan_dynamic_block_index removes the assumption.
//
// Constraints: any N, every type/operator/mode. Tile = 16 x 256 items.
// Pieces: zoo::SinglePassVariant, zoo::ChainedCarry, zoo::TwoFieldTileState, zoo::CoarsenedTile.
//
// In the charts: competitive while all tiles fit on the GPU at once, then time grows with the
// number of tiles (one hand-over each) and bandwidth collapses.
//
// Run: make bin/single_pass_scan_naive && ./bin/single_pass_scan_naive 2^24
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "single_pass.cuh"

using ChainTile = zoo::CoarsenedTile<256, 16, zoo::WarpBlockScan<256, zoo::ShuffleWarpScan>>;

ZOO_MAIN(zoo::SinglePassVariant<ChainTile, zoo::TwoFieldTileState, zoo::ChainedCarry, zoo::TileOrder::BlockIndex>)
