// scan_zoo/detail/grid/epochs.cuh -- a run's descriptors. Every status word carries the run's
// 30-bit epoch (protocol.cuh), and a word of another epoch reads as INVALID: the descriptors a
// run finds in its scratch memory, left by earlier runs, need no reset launch, as long as every
// run of that memory takes an epoch that no word in it holds. The library's scan_zoo::Workspace
// keeps the next epoch of its memory; the zoo's harness keys them by address
// (src/grid/run_epochs.cuh). The memory must be zero when first used (zero words read as "not
// published" in every epoch).
#pragma once

#include <cstdint>

#include "../scratch.cuh"

namespace scan_zoo::detail {

// The descriptors of a one-launch single-pass kernel (the tuned scan; in the zoo also the
// segmented scan, stream compaction and the onesweep sort): one per tile, laid out in the
// scratch memory, tagged with the epoch the caller chose for this run (scan_zoo::Workspace keeps
// the library's; a single tile publishes nothing and needs none).
template <class State>
struct EpochTileState {
  static std::size_t workspace_bytes(std::int64_t tiles) {
    return bytes_of_layout([&](ScratchCarver& counter) { State{}.layout(counter, tiles); });
  }
  static State for_run(const Scratch& scratch, std::int64_t tiles, std::uint32_t epoch) {
    ScratchCarver carver(scratch.data);
    State state;
    state.layout(carver, tiles);
    state.epoch = epoch;
    return state;
  }
};

}  // namespace scan_zoo::detail
