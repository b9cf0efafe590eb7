// lookback.cuh -- how a single-pass tile obtains its carry-in (the reduction of every element
// before it) from the tile descriptors of tile_state.cuh. Each is a carry-in source for the
// tile policies (tile_policies.cuh): get<T, Op>(tile_total) is called by every thread of the
// block once the tile is scanned, returns the carry-in to every thread, and publishes this
// tile's INCLUSIVE value on the way.
//
//   ChainedCarry       the domino chain: wait until the immediate predecessor is INCLUSIVE.
//                      Tile k cannot finish before tile k-1: the chain is serial.
//   SerialLookback     decoupled look-back (Merrill & Garland 2016) by one thread: publish
//                      AGGREGATE at once, then walk back one descriptor at a time, combining
//                      aggregates until an INCLUSIVE one ends the walk.
//   WarpLookback       the same walk by a warp, 32 descriptors per step: each lane reads one,
//                      the warp waits until none of the 32 is INVALID, keeps the lanes from the
//                      nearest INCLUSIVE one on, and reduces them in order with shuffles.
//
// Progress: a tile only ever waits on tiles with a smaller index. Whether those are running is
// the business of the tile order (single_pass.cuh): with tickets they have already started.
#pragma once

#include <cstdint>

#include "ops.cuh"
#include "tile_state.cuh"
#include "warp_scan.cuh"

namespace zoo {

template <class State>
struct ChainedCarry {
  State state;
  std::int64_t tile;

  template <class T, class Op>
  __device__ T get(T total) const {
    __shared__ T carry;
    if (threadIdx.x == 0) {
      T prefix = Op::template identity<T>();
      if (tile > 0) {
        TileView<T> previous;
        do previous = state.read(tile - 1);
        while (previous.status != kTileInclusive);
        prefix = previous.value;
      }
      state.publish(tile, kTileInclusive, Op{}(prefix, total));
      carry = prefix;
    }
    __syncthreads();
    return carry;
  }
};

template <class State>
struct SerialLookback {
  State state;
  std::int64_t tile;

  template <class T, class Op>
  __device__ T get(T total) const {
    __shared__ T carry;
    if (threadIdx.x == 0) {
      const Op op;
      T prefix = Op::template identity<T>();
      if (tile == 0) {
        state.publish(0, kTileInclusive, total);
      } else {
        state.publish(tile, kTileAggregate, total);  // successors may use it right away
        for (std::int64_t i = tile - 1;; --i) {
          TileView<T> view;
          do view = state.read(i);
          while (view.status == kTileInvalid);
          prefix = op(view.value, prefix);  // earlier tiles go on the left
          if (view.status == kTileInclusive) break;
        }
        state.publish(tile, kTileInclusive, op(prefix, total));
      }
      carry = prefix;
    }
    __syncthreads();
    return carry;
  }
};

template <class State>
struct WarpLookback {
  State state;
  std::int64_t tile;

  template <class T, class Op>
  __device__ T get(T total) const {
    __shared__ T carry;
    if (warp_id() == 0) {
      const Op op;
      const int lane = lane_id();
      T prefix = Op::template identity<T>();
      if (tile == 0) {
        if (lane == 0) state.publish(0, kTileInclusive, total);
      } else {
        if (lane == 0) state.publish(tile, kTileAggregate, total);
        ShuffleWarpScan::Storage<T> no_storage;
        for (std::int64_t window_end = tile;; window_end -= kWarpSize) {
          // Lane 31 reads the nearest predecessor, lane 0 the farthest of this window.
          const std::int64_t i = window_end - kWarpSize + lane;
          TileView<T> view{kTileAggregate, Op::template identity<T>()};  // before tile 0: nothing
          bool waiting;
          do {
            if (i >= 0) view = state.read(i);
            waiting = __any_sync(kFullMask, view.status == kTileInvalid);
          } while (waiting);
          const unsigned inclusive_lanes = __ballot_sync(kFullMask, view.status == kTileInclusive);
          const int nearest_inclusive = inclusive_lanes ? kWarpSize - 1 - __clz(inclusive_lanes) : 0;
          const T kept = lane >= nearest_inclusive ? view.value : Op::template identity<T>();
          const T window = __shfl_sync(kFullMask, ShuffleWarpScan::inclusive<T, Op>(kept, no_storage), kWarpSize - 1);
          prefix = op(window, prefix);
          if (inclusive_lanes) break;
        }
        if (lane == 0) state.publish(tile, kTileInclusive, op(prefix, total));
      }
      if (lane == 0) carry = prefix;
    }
    __syncthreads();
    return carry;
  }
};

}  // namespace zoo
