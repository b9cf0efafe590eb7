// single_pass_scan_naive_shared_tile -- the same blockIdx.x-ordered domino chain, but the tile
// waits in shared memory and is written out from there.
//
// Idea: as single_pass_scan_naive, with the tile kept in a shared array instead of registers:
// the block loads 2048 elements (two per thread) into shared memory, scans them there with the
// Brent-Kung tree, waits for its predecessor's INCLUSIVE prefix (warp 0 spins on the flag,
// acquire load), publishes its own, and every thread writes its elements from shared memory with
// the prefix combined in. The chain is identical; what differs is where the tile sits while the
// block waits (shared memory: fewer registers, 8 KB of shared memory per block) and the block
// scan (a tree, one barrier per step).
//
// Work: O(N); depth: N / 2048 hand-overs. Launches: 2 (memset of the flags, the scan).
// Global traffic: 2 accesses per element (bound: memcpy); the chain sets the time.
//
// Forward progress: relies on blocks being dispatched in blockIdx.x order (see
// single_pass_scan_naive): true in practice on NVIDIA GPUs, not promised by CUDA.
//
// Constraints: any N, every type/operator/mode. Tile = 2048 items, 1024 threads.
// Pieces: zoo::SinglePassVariant, zoo::ChainedCarry, zoo::TwoFieldTileState, zoo::TreeTile.
//
// In the charts: next to single_pass_scan_naive, slower at large N (twice the tiles, so twice
// the hand-overs).
//
// Run: make bin/single_pass_scan_naive_shared_tile && ./bin/single_pass_scan_naive_shared_tile 2^24
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "single_pass.cuh"

using SharedChainTile = zoo::TreeTile<1024, 2048, zoo::BrentKungTree>;

ZOO_MAIN(zoo::SinglePassVariant<SharedChainTile, zoo::TwoFieldTileState, zoo::ChainedCarry, zoo::TileOrder::BlockIndex>)
