// single_pass_scan_dynamic_block_index -- the domino chain ordered by a ticket taken when the
// block starts, so no block ever waits on one that was never scheduled.
//
// Idea: the blockIdx.x chain of single_pass_scan_naive is only safe if blocks are dispatched in
// index order. Here thread 0 of each block takes a ticket from a global counter (an atomic
// fetch-and-add) as its first act and scans tile number <ticket>. Tickets are handed out in the
// order blocks actually start, so the block that holds ticket k - 1 is already running when
// ticket k waits on it. The chain itself is unchanged: wait for the predecessor's INCLUSIVE flag
// (acquire), publish prefix (+) total (release), write the tile from registers.
//
// Work: O(N); depth: N / 4096 hand-overs. Launches: 2 (memset of the flags and the ticket, the
// scan). Global traffic: 2 accesses per element (bound: memcpy); the chain sets the time.
//
// Forward progress: guaranteed by the ticket order given that running blocks keep being
// scheduled (true on NVIDIA GPUs): tile k waits only on tile k - 1, whose block started first
// and waits only on tiles below it.
//
// Constraints: any N, every type/operator/mode. Tile = 16 x 256 items.
// Pieces: zoo::SinglePassVariant (TileOrder::Ticket), zoo::ChainedCarry, zoo::TwoFieldTileState.
//
// In the charts: on top of single_pass_scan_naive (same chain, a ticket costs one atomic per
// tile): the collapse at large N is the chain's, not the scheduling's.
//
// Run: make bin/single_pass_scan_dynamic_block_index && ./bin/single_pass_scan_dynamic_block_index 2^24
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "single_pass.cuh"

using ChainTile = zoo::CoarsenedTile<256, 16, zoo::WarpBlockScan<256, zoo::ShuffleWarpScan>>;

ZOO_MAIN(zoo::SinglePassVariant<ChainTile, zoo::TwoFieldTileState, zoo::ChainedCarry, zoo::TileOrder::Ticket>)
