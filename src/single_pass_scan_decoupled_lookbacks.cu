// single_pass_scan_decoupled_lookbacks -- Merrill & Garland's decoupled look-back with a
// serial look-back by one thread over a packed 64-bit (status, value) descriptor.
//
// Idea (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", NVIDIA
// 2016): break the chain. As soon as a block has scanned its tile it publishes AGGREGATE (its
// own total); then thread 0 walks back over its predecessors' descriptors, one at a time,
// combining aggregates until it meets an INCLUSIVE one (a predecessor that already knows its
// full prefix), publishes its own INCLUSIVE value and the block writes its tile. A tile no
// longer waits for its predecessor to finish, only for it to have scanned; the walk is short
// because most predecessors are INCLUSIVE by the time it looks. Status and value share one
// 64-bit word (release store, acquire load), so a reader always sees a matching pair.
//
// Work: O(N) plus the walks; depth: O(log tile) + the look-back. Launches: 2 (memset of the
// tile state and ticket, the scan). Global traffic: 2 accesses per element plus 8 bytes of
// descriptor per 4096-element tile: bound is memcpy.
//
// Forward progress: tiles are numbered by ticket (see single_pass.cuh): a tile only waits on
// lower tickets, whose blocks are running; guaranteed while running blocks keep being scheduled.
//
// Constraints: any N; every type/operator/mode of 32-bit elements (the packed word holds 32
// value bits). Tile = 16 x 256 items.
// Pieces: zoo::SinglePassVariant, zoo::SerialLookback, zoo::PackedTileState64, zoo::CoarsenedTile.
//
// In the charts: near CUB at large N; behind the warp-window look-back where one thread reading
// one descriptor at a time leaves latency exposed.
//
// Run: make bin/single_pass_scan_decoupled_lookbacks && ./bin/single_pass_scan_decoupled_lookbacks 2^28
#include "common/harness.cuh"
#include "common/single_pass.cuh"
#include "common/tile_policies.cuh"

using LookbackTile = zoo::CoarsenedTile<256, 16, zoo::WarpBlockScan<256, zoo::ShuffleWarpScan>>;

ZOO_MAIN(zoo::SinglePassVariant<LookbackTile, zoo::PackedTileState64, zoo::SerialLookback, zoo::TileOrder::Ticket>)
