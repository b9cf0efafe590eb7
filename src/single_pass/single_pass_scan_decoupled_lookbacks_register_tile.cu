// single_pass_scan_decoupled_lookbacks_register_tile -- the warp-window look-back with the tile
// held in registers from load to store: no shared-memory transpose, two barriers per tile.
//
// Idea: in single_pass_scan_decoupled_lookbacks_warp_window, as in CUB, each thread owns a run of
// consecutive elements ("blocked"), which global memory cannot deliver coalesced: the tile goes
// through a shared-memory transpose on the way in and again on the way out, and the block scan
// of the thread totals adds its own barriers, about eight in all. Here (zoo::RegisterTile,
// register_tile.cuh; the arrangement of GPUPrefixSums' chained scan, Smith 2024) the scan
// follows the order in which the data arrive instead: each warp owns a contiguous run of the tile
// and reads it as rounds of 32 consecutive 16-byte vectors, one per lane; a thread scans its
// vector, the warp scans the 32 vector totals with shuffles, and each round gets the rounds
// before it in front. The warp totals meet in shared memory (one word per warp): one barrier
// and the block total is known, so the tile publishes its AGGREGATE right away; a second barrier
// hands out the carry-in after the look-back. The data never touch shared memory.
//
// What it buys: fewer registers and fewer barriers. 256 threads x 16 items need about 40
// registers, so 6 blocks (48 warps) share an SM, against 7 blocks of 4 warps (72 registers) for
// the transposing 128 x 24 tile, and a tile meets two barriers instead of about eight, so it
// reaches its publish sooner. Measured beside the warp-window variant on the H100 and the H200
// (bench/NOTES.md, "Register-resident tiles"): faster at every size, most where a tile's latency
// matters (small N), least at large N, where both are held below a copy by what they share: one
// descriptor per 32-byte sector, 4096-element tiles or smaller, a ticket and a memset.
// single_pass_scan_tuned runs the same tile with dense descriptors, 32 items per thread and one
// launch, and comes within a few percent of a copy there (README.md's table).
//
// Everything else is the warp-window variant's: the ticket (tile order), the packed 64-bit
// descriptor in its own 32-byte sector, published by atomic exchange (grid/protocol.cuh), the
// 32-descriptor window with the 600 ns / 300 ns back-off (grid/lookback.cuh), and a memset of the tile
// state in every run. Compare the two rows: the tile is the only difference.
//
// Work: O(N): per element about 2 combines, plus 7 shuffles per 16-byte vector; depth: O(log
// tile) + the look-back. Barriers: 2 per tile. Launches: 2 (memset of the tile state and ticket,
// the scan). Global traffic: 2 accesses per element plus 32 bytes of descriptor per 4096-element
// tile: the bound is memcpy.
//
// Forward progress: tiles are numbered by ticket (single_pass.cuh): a tile waits only on lower
// tickets, whose blocks are running; guaranteed while running blocks keep being scheduled.
//
// Constraints: any N; every type/operator/mode of 32-bit elements (the packed descriptor holds 32
// value bits). Tile = 256 threads x 16 items (4096).
// Pieces: zoo::SinglePassVariant, zoo::RegisterTile (include/scan_zoo/detail/register_tile.cuh),
// zoo::WarpLookback, zoo::PackedTileState64.
//
// In the charts: next to single_pass_scan_decoupled_lookbacks_warp_window, ahead of it at every
// size, by most below 2^22; single_pass_scan_tuned is this tile with its look-back tuned per GPU
// and run in one launch.
//
// Run: make bin/single_pass_scan_decoupled_lookbacks_register_tile && ./bin/single_pass_scan_decoupled_lookbacks_register_tile 2^28
#include <scan_zoo/detail/register_tile.cuh>

#include "../harness/harness.cuh"
#include "single_pass.cuh"

// The register tile in the steps of tile_policies.cuh, which SinglePassVariant drives: load,
// scan each warp's run (shifting it when exclusive) and combine the warp totals, then, once the
// driver has the carry-in, put it and the warps before in front, and store.
template <int Threads, int Items>
struct ScannedRegisterTile : zoo::RegisterTile<Threads, Items> {
  using Tile = zoo::RegisterTile<Threads, Items>;
  template <class T, class Op>
  struct Scan {
    T items[Items];
    typename Tile::template BlockTotals<T> totals;

    __device__ void load(const T* in, int valid) { Tile::load(in, valid, items, Op::template identity<T>()); }
    __device__ T scan(bool exclusive) {
      totals = Tile::template combine_warps<T, Op>(Tile::template scan_warp<T, Op>(items, exclusive));
      return totals.tile;
    }
    __device__ void prepend_and_store(T carry, bool /* exclusive: applied while scanning */, T* out, int valid) {
      Tile::template prepend<T, Op>(items, Op{}(carry, totals.before_warp));
      Tile::store(out, valid, items);
    }
  };
};

ZOO_MAIN(zoo::SinglePassVariant<ScannedRegisterTile<256, 16>, zoo::PackedTileState64, zoo::WarpLookback,
                                zoo::TileOrder::Ticket>)
