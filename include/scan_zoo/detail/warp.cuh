// scan_zoo/detail/warp.cuh -- the warp: lane and warp indices, shuffles of any trivially
// copyable type, and the inclusive scan across the 32 lanes of a warp that the tiles and the
// look-back use.
//
// ShuffleWarpScan: Kogge-Stone over registers with __shfl_up_sync (5 steps, no shared memory,
// no barriers): lane i adds the value of lane i - 2^k in step k. (The zoo's src/blocks/warp_scan.cuh
// adds the shared-memory warp scan of the CUDA Handbook beside it.)
#pragma once

#include <cuda/std/type_traits>

#include <cstring>

namespace scan_zoo::detail {

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ int lane_id() { return threadIdx.x & (kWarpSize - 1); }
__device__ __forceinline__ int warp_id() { return threadIdx.x / kWarpSize; }

// Warp shuffles of any trivially copyable T: the built-in for arithmetic types, one shuffle per
// 32-bit word for a struct (e.g. the (head, value) pairs of a segmented scan, segmented.cuh; a
// struct whose size is not a multiple of 4 bytes travels in its size rounded up).
template <class T, class Shuffle>
__device__ __forceinline__ T shuffle_words(T value, Shuffle&& shuffle) {
  if constexpr (cuda::std::is_arithmetic_v<T>) {
    return shuffle(value);
  } else {
    constexpr int kWords = (int(sizeof(T)) + 3) / 4;
    unsigned words[kWords] = {};
    memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int w = 0; w < kWords; ++w) words[w] = shuffle(words[w]);
    memcpy(&value, words, sizeof(T));
    return value;
  }
}

// The value of lane (this lane - offset); a lane below offset gets its own value back.
template <class T>
__device__ __forceinline__ T shuffle_up(T value, int offset) {
  return shuffle_words(value, [offset](auto word) { return __shfl_up_sync(kFullMask, word, offset); });
}

// The value of lane (this lane + offset); a lane at 32 - offset or above gets its own value back.
template <class T>
__device__ __forceinline__ T shuffle_down(T value, int offset) {
  return shuffle_words(value, [offset](auto word) { return __shfl_down_sync(kFullMask, word, offset); });
}

// The value of lane `source`, to every lane.
template <class T>
__device__ __forceinline__ T shuffle_from(T value, int source) {
  return shuffle_words(value, [source](auto word) { return __shfl_sync(kFullMask, word, source); });
}

struct ShuffleWarpScan {
  // Per-warp shared memory: none.
  template <class T>
  struct Storage {};

  // `op` is the caller's operator (its state, if any, comes along); the zoo's block scans, which
  // take their operators' types only, leave it to the default.
  template <class T, class Op>
  __device__ __forceinline__ static T inclusive(T value, Storage<T>&, const Op& op = Op{}) {
    const int lane = lane_id();
#pragma unroll
    for (int offset = 1; offset < kWarpSize; offset *= 2) {
      const T left = shuffle_up(value, offset);
      if (lane >= offset) value = op(left, value);
    }
    return value;
  }
};

// The exclusive prefix of a lane from the inclusive scan: the lane to its left, identity at 0.
template <class T, class Op>
__device__ __forceinline__ T exclusive_from_inclusive(T inclusive, const Op& op = Op{}) {
  const T left = shuffle_up(inclusive, 1);
  return lane_id() == 0 ? op.template identity<T>() : left;
}

}  // namespace scan_zoo::detail
