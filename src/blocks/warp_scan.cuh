// warp_scan.cuh -- inclusive scans across the 32 lanes of a warp, two ways.
//
// ShuffleWarpScan: Kogge-Stone over registers with __shfl_up_sync (5 steps, no shared memory,
// no barriers): lane i adds the value of lane i - 2^k in step k.
//
// SmemWarpScan: the CUDA Handbook's shared-memory warp scan (Wilt 2013, listing 13.14) with its
// padding trick: 16 identity elements in front of each warp's 32 slots let every lane read
// slot idx - 2^k unconditionally (lanes below 2^k read the identity), so the `lane >= offset`
// branches disappear. The original relied on the warp executing in lockstep through a volatile
// pointer: all 32 loads of a step happened before any store. Since Volta, independent thread
// scheduling gives no such guarantee, so each step here reads into a register, meets the other
// lanes at __syncwarp(), then writes, and meets them again before the next step reads.
#pragma once

#include <cuda/std/type_traits>

#include <cstring>

namespace zoo {

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

  template <class T, class Op>
  __device__ __forceinline__ static T inclusive(T value, Storage<T>&) {
    const Op op;
    const int lane = lane_id();
#pragma unroll
    for (int offset = 1; offset < kWarpSize; offset *= 2) {
      const T left = shuffle_up(value, offset);
      if (lane >= offset) value = op(left, value);
    }
    return value;
  }
};

struct SmemWarpScan {
  static constexpr int kPadding = kWarpSize / 2;  // the largest step reads 16 slots back
  // Per-warp shared memory: the padding, then one slot per lane.
  template <class T>
  struct Storage {
    T slot[kPadding + kWarpSize];
  };

  template <class T, class Op>
  __device__ __forceinline__ static T inclusive(T value, Storage<T>& storage) {
    const Op op;
    const int lane = lane_id();
    const int idx = kPadding + lane;
    if (lane < kPadding) storage.slot[lane] = Op::template identity<T>();
    storage.slot[idx] = value;
    __syncwarp();
#pragma unroll
    for (int offset = 1; offset < kWarpSize; offset *= 2) {
      const T left = storage.slot[idx - offset];  // the identity when lane < offset: no branch
      __syncwarp();                               // every lane has read before anyone writes
      value = op(left, value);
      storage.slot[idx] = value;
      __syncwarp();                               // every write lands before the next reads
    }
    return value;
  }
};

// The exclusive prefix of a lane from the inclusive scan: the lane to its left, identity at 0.
template <class T, class Op>
__device__ __forceinline__ T exclusive_from_inclusive(T inclusive) {
  const T left = shuffle_up(inclusive, 1);
  return lane_id() == 0 ? Op::template identity<T>() : left;
}

}  // namespace zoo
