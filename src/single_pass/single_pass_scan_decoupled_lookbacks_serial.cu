// single_pass_scan_decoupled_lookbacks_serial -- Merrill & Garland's decoupled look-back with a
// serial look-back (one descriptor per step) over a packed 64-bit (status, value) descriptor.
//
// Idea (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", NVIDIA
// 2016): break the chain. As soon as a block has scanned its tile it publishes AGGREGATE (its
// own total); then it walks back over its predecessors' descriptors, one at a time,
// combining aggregates until it meets an INCLUSIVE one (a predecessor that already knows its
// full prefix), publishes its own INCLUSIVE value and the block writes its tile. A tile no
// longer waits for its predecessor to finish, only for it to have scanned. Status and value
// share one 64-bit word, so a reader always sees a matching pair and relaxed atomics suffice
// (grid/protocol.cuh); one word per 32-byte sector. Back-off: a 600 ns sleep before the first
// poll, 300 ns between polls (grid/lookback.cuh).
//
// Work: O(N) plus the walks; depth: O(log tile) + the look-back. Launches: 2 (memset of the
// tile state and ticket, the scan). Global traffic: 2 accesses per element plus 32 bytes of
// descriptor per 3072-element tile: bound is memcpy.
//
// Forward progress: tiles are numbered by ticket (see single_pass.cuh): a tile only waits on
// lower tickets, whose blocks are running; guaranteed while running blocks keep being scheduled.
//
// Constraints: any N; every type/operator/mode of 32-bit elements (the packed word holds 32
// value bits). Tile = 128 threads x 24 items (zoo::LookbackTile).
// Pieces: zoo::SinglePassVariant, zoo::PackedTileState64, zoo::CoarsenedTile; the look-back
// (SerialLookback) is below.
//
// In the charts: behind the warp-window look-back at large N. A look-back at 2^28 reaches
// dozens of tiles back (the nearest INCLUSIVE tile is 32 to 64 behind, bench/NOTES.md), and the
// serial walk pays one round trip per predecessor where the warp window pays one per 32. (The
// walk runs in warp 0 with all lanes in step, reading the same word: see SerialLookback below.)
//
// Run: make bin/single_pass_scan_decoupled_lookbacks_serial && ./bin/single_pass_scan_decoupled_lookbacks_serial 2^28
#include <scan_zoo/detail/grid/lookback.cuh>

#include <cstdint>

#include "../harness/harness.cuh"
#include "single_pass.cuh"

namespace zoo {

// The carry-in source (single_pass.cuh): publish, walk back one descriptor at a time, publish.
template <class State>
struct SerialLookback {
  State state;
  std::int64_t tile;

  // The walk runs in warp 0 with every lane doing the same thing: each step is still one
  // descriptor (32 lanes reading one word make one request), the control flow stays warp-uniform,
  // and ptxas keeps it spill-free (as thread 0 alone, sleeping inside the loop cost a 4-byte spill).
  template <class T, class Op>
  __device__ T get(T total) const {
    return decoupled_lookback<T, Op, LookbackBackoff>(state, tile, total, false, [&] {
      const Op op;
      T prefix = Op::template identity<T>();
      // 32 bits hold every tile number (tickets are 32-bit), and the walk stops at tile 0 at the
      // latest, which publishes INCLUSIVE and nothing else: the narrower index lets 40 registers do.
      for (unsigned i = static_cast<unsigned>(tile) - 1;; --i) {
        TileView<T> view;
        while ((view = state.read(i)).status == kTileInvalid) LookbackBackoff::between_polls();
        prefix = op(view.value, prefix);  // earlier tiles go on the left
        if (view.status == kTileInclusive) return prefix;
      }
    });
  }
};

}  // namespace zoo

// At least 12 blocks of 128 threads a SM, which leaves 42 registers a thread: ptxas (nvcc 13.0,
// sm_90) then takes 40 and spills nothing, and the walk, which waits on memory, has more blocks
// to hide it behind. Left to itself it aims at 12 blocks too but spills a value in the polling
// loop; with a 64-bit walk index it spills at 12 blocks as well; at 10 blocks (48 registers) the
// scan ran slower at 2^24 and 2^28 (bench/NOTES.md, "Tile policies as steps, and the grid layer").
ZOO_MAIN(zoo::SinglePassVariant<zoo::LookbackTile, zoo::PackedTileState64, zoo::SerialLookback, zoo::TileOrder::Ticket,
                                /*MinBlocksPerSm=*/12>)
