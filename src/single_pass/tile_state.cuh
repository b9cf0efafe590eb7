// tile_state.cuh -- the zoo's side of the tile descriptors (the library's are in
// include/scan_zoo/detail/tile_state.cuh, with what every descriptor promises): the epochs the
// zoo's one-launch kernels take per run of a harness workspace, the 30-bit descriptor of the
// teaching variants, and the check a descriptor may make after a run.
//
//   PackedTileState30     2-bit status and a 30-bit two's-complement value in one dense 32-bit
//                         word (no room for an epoch): the smallest descriptor, but it only holds
//                         int32 values in [-2^29, 2^29). A value outside that range sets an
//                         overflow flag (the run is then refused with exit code 3, never answered
//                         wrong) and is published clamped so that no tile waits forever.
#pragma once

#include <scan_zoo/detail/tile_state.cuh>

#include <cstdint>
#include <mutex>
#include <type_traits>
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

template <class T, Publish How = Publish::Exchange>
struct PackedTileState30 : DescriptorOrders<DescriptorSync::Relaxed> {
  static constexpr const char* kUnsupported =
      std::is_same_v<T, std::int32_t> ? nullptr
                                      : "the 30-bit descriptor holds integers only (a float needs all 32 bits)";
  static constexpr std::int32_t kMin = -(1 << 29), kMax = (1 << 29) - 1;
  std::uint32_t* words = nullptr;
  int* overflow = nullptr;  // set when a value did not fit: the run's result is refused

  void layout(ScratchCarver& carver, std::int64_t tiles) {
    overflow = carver.take<int>(1);
    words = carver.take<std::uint32_t>(static_cast<std::size_t>(tiles));
  }
  // After a finished run (synchronous, outside timing): did a value not fit?
  const char* refusal_after_run(cudaStream_t stream) const {
    int overflowed = 0;
    ZOO_CUDA(cudaMemcpyAsync(&overflowed, overflow, sizeof overflowed, cudaMemcpyDeviceToHost, stream));
    ZOO_CUDA(cudaStreamSynchronize(stream));
    return overflowed ? "a tile value fell outside the 30-bit descriptor's range [-2^29, 2^29)" : nullptr;
  }
  __device__ void publish(std::int64_t tile, std::uint32_t status, T value) const {
    std::int32_t v = static_cast<std::int32_t>(value);
    if (v < kMin || v > kMax) {
      DeviceAtomic<int>(*overflow).store(1, cuda::memory_order_relaxed);
      v = v < kMin ? kMin : kMax;
    }
    const std::uint32_t word = (status << 30) | (static_cast<std::uint32_t>(v) & 0x3FFFFFFFu);
    publish_word<How>(words[tile], word, kStore);
  }
  __device__ TileView<T> read(std::int64_t tile) const {
    const std::uint32_t word = DeviceAtomic<std::uint32_t>(words[tile]).load(kPoll);
    TileView<T> view;
    view.status = word >> 30;
    view.value = static_cast<T>(static_cast<std::int32_t>(word << 2) >> 2);  // sign-extend 30 bits
    return view;
  }
};

}  // namespace zoo
