// run_epochs.cuh -- the zoo's side of a run's descriptors (the library's grid layer:
// include/scan_zoo/detail/grid/): the epoch the zoo's one-launch kernels take for each run of a
// harness workspace (the tuned scan, the segmented scan, stream compaction, the onesweep sort;
// the library's scan_zoo::Workspace keeps its own), and the check a descriptor may make after a
// run (the 30-bit one, descriptor30.cuh).
#pragma once

#include <scan_zoo/detail/grid/descriptors.cuh>
#include <scan_zoo/detail/grid/epochs.cuh>

#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "../core/cuda_check.cuh"
#include "../core/workspace.cuh"

namespace zoo {

// The epoch of each run of a workspace, on the host. Every run of a workspace must use an epoch
// that no descriptor in it holds: consecutive numbers do, until they wrap at 2^30 (the status
// word has 30 bits for it), where the workspace is zeroed again (one memset in a billion runs).
// Keyed by the workspace's address: a new allocation at an old address is zero, and zero words
// read as "not published" in every epoch.
class RunEpochs {
 public:
  static std::uint32_t next(const Workspace& workspace, cudaStream_t stream) {
    static std::mutex mutex;
    static std::unordered_map<const void*, std::uint32_t> last;
    const std::lock_guard<std::mutex> lock(mutex);
    std::uint32_t& epoch = last[workspace.data];
    epoch = (epoch + 1) & kEpochMask;
    if (epoch == 0) {  // every epoch may be in the workspace now: start over from zero
      ZOO_CUDA(cudaMemsetAsync(workspace.data, 0, workspace.bytes, stream));
      epoch = 1;
    }
    return epoch;
  }
};

// The descriptors for the next run of a harness workspace: its next epoch (RunEpochs), or none
// for a single tile, which publishes nothing.
template <class State>
State descriptors_for_next_run(const Workspace& workspace, std::int64_t tiles, cudaStream_t stream) {
  return EpochTileState<State>::for_run(workspace, tiles, tiles > 1 ? RunEpochs::next(workspace, stream) : 0u);
}

// After a finished run (synchronous, outside timing): the reason the descriptor refuses the
// run's result, or nullptr. Only a descriptor that can fail has a refusal_after_run
// (PackedTileState30): called with 0, the int overload wins where that member exists.
template <class State>
auto refusal_of(const State& state, cudaStream_t stream, int) -> decltype(state.refusal_after_run(stream)) {
  return state.refusal_after_run(stream);
}
template <class State>
const char* refusal_of(const State&, cudaStream_t, long) {
  return nullptr;
}
template <class State>
const char* descriptor_refusal_after_run(const State& state, cudaStream_t stream) {
  return refusal_of(state, stream, 0);
}

}  // namespace zoo
