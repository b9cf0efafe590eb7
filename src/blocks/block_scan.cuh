// block_scan.cuh -- block-wide exclusive scans of one value per thread. Each is a policy with
//   template <class T, class Op> __device__ static T exclusive(T value, T& total);
// returning the exclusive prefix of the calling thread's value over the block (identity for
// thread 0) and the block total in `total`, to every thread. All threads of the block must call
// it; it may be called again at once (each ends with the barrier that makes its storage reusable).
//
//   WarpBlockScan<Threads, WarpScan>  warps scan their 32 values (shuffle or shared memory),
//                                     warp 0 scans the warp totals, each warp adds its prefix:
//                                     2 barriers, 2 x 5 warp steps
//   TreeBlockScan<Threads, Tree>      a tree of smem_tree_scans.cuh over the thread values
#pragma once

#include "smem_tree_scans.cuh"
#include "warp_scan.cuh"

namespace zoo {

template <int Threads, class WarpScan>
struct WarpBlockScan {
  static_assert(Threads % kWarpSize == 0 && Threads <= kWarpSize * kWarpSize, "whole warps, at most 32");
  static constexpr int kWarps = Threads / kWarpSize;

  template <class T, class Op>
  __device__ static T exclusive(T value, T& total) {
    __shared__ typename WarpScan::template Storage<T> warp_storage[kWarps];
    __shared__ T warp_prefix[kWarps];  // inclusive scan of the warp totals
    const Op op;
    const int lane = lane_id(), warp = warp_id();

    const T inclusive = WarpScan::template inclusive<T, Op>(value, warp_storage[warp]);
    if (lane == kWarpSize - 1) warp_prefix[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
      T warp_total = lane < kWarps ? warp_prefix[lane] : Op::template identity<T>();
      warp_total = WarpScan::template inclusive<T, Op>(warp_total, warp_storage[0]);
      if (lane < kWarps) warp_prefix[lane] = warp_total;
    }
    __syncthreads();
    const T before_warp = warp == 0 ? Op::template identity<T>() : warp_prefix[warp - 1];
    const T result = op(before_warp, exclusive_from_inclusive<T, Op>(inclusive));
    total = warp_prefix[kWarps - 1];
    __syncthreads();  // warp_prefix is read above: free it for the next call
    return result;
  }
};

// One value per thread through a shared-memory tree of smem_tree_scans.cuh (Threads values).
template <int Threads, class Tree>
struct TreeBlockScan {
  template <class T, class Op>
  __device__ static T exclusive(T value, T& total) {
    __shared__ T values[Tree::template kStorage<Threads>];
    values[Tree::slot(threadIdx.x)] = value;
    Tree::template inclusive<T, Op, Threads>(values);
    const T result = threadIdx.x == 0 ? Op::template identity<T>() : values[Tree::slot(threadIdx.x - 1)];
    total = values[Tree::slot(Threads - 1)];
    __syncthreads();
    return result;
  }
};

}  // namespace zoo
