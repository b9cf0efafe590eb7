// warp_scan.cuh -- inclusive scans across the 32 lanes of a warp, two ways.
//
// ShuffleWarpScan (the library's, include/scan_zoo/detail/warp.cuh): Kogge-Stone over registers
// with __shfl_up_sync (5 steps, no shared memory, no barriers): lane i adds the value of lane
// i - 2^k in step k.
//
// SmemWarpScan: the CUDA Handbook's shared-memory warp scan (Wilt 2013, listing 13.14) with its
// padding trick: 16 identity elements in front of each warp's 32 slots let every lane read
// slot idx - 2^k unconditionally (lanes below 2^k read the identity), so the `lane >= offset`
// branches disappear. The original relied on the warp executing in lockstep through a volatile
// pointer: all 32 loads of a step happened before any store. Since Volta, independent thread
// scheduling gives no such guarantee, so each step here reads into a register, meets the other
// lanes at __syncwarp(), then writes, and meets them again before the next step reads.
#pragma once

#include <scan_zoo/detail/warp.cuh>

#include "../core/ops.cuh"

namespace zoo {

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

}  // namespace zoo
