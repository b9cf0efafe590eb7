// lookback.cuh -- how a single-pass tile obtains its carry-in (the reduction of every element
// before it) from the tile descriptors of tile_state.cuh. Each is a carry-in source for the
// tile policies (tile_policies.cuh): get<T, Op>(tile_total) is called by every thread of the
// block once the tile is scanned, returns the carry-in to every thread, and publishes this
// tile's INCLUSIVE value on the way.
//
//   ChainedCarry       the domino chain: wait until the immediate predecessor is INCLUSIVE.
//                      Tile k cannot finish before tile k-1: the chain is serial.
//   SerialLookback     decoupled look-back (Merrill & Garland 2016), serial: publish AGGREGATE
//                      at once, then walk back one descriptor at a time, combining aggregates
//                      until an INCLUSIVE one ends the walk.
//   WarpLookback       the same walk by a warp, 32 descriptors per step: each lane reads one,
//                      the warp waits until none of the 32 is INVALID, keeps the lanes from the
//                      nearest INCLUSIVE one on, and reduces them in order with shuffles.
//                      PerLane > 1 widens the window (each lane reads PerLane neighbours):
//                      fewer steps, more loads per poll; an axis of the tuned scan's space
//                      (tuned_space.cuh): both widths are in the shipped tables
//                      (bench/<gpu>/TUNING.md).
//
// Back-off (the Backoff parameter): a poll that finds a predecessor INVALID is repeated, and a
// tile that polls as soon as it has published mostly finds its predecessors still scanning.
// SleepBackoff<FirstNs, PollNs> sleeps FirstNs before the first poll and PollNs between polls:
// CUB's fixed delay constructor. (In a small grid a sleep is pure latency: the tuned scan's
// tables pick a spinning configuration there; bench/NOTES.md, "The tuned scan, first space".)
// Measured on the H100 (bench/NOTES.md, warp window, 2^28): without back-off a look-back
// averaged 5.2 polls that found an INVALID predecessor and took 4.9 us, and the scan 1.15 ms;
// with a 1.2 us first sleep, 0.9 such polls, 3.7 us and 0.94 ms. Every poll is a load at the
// scan's front that the loads and stores of every other block queue with, so fewer polls make
// everyone faster. The look-backs default to LookbackBackoff; the chains to
// none (their wait is the critical path itself).
//
// Progress: a tile only ever waits on tiles with a smaller index. Whether those are running is
// the business of the tile order (single_pass.cuh): with tickets they have already started.
#pragma once

#include <cstdint>

#include "../blocks/warp_scan.cuh"
#include "../core/ops.cuh"
#include "tile_state.cuh"

namespace zoo {

struct NoBackoff {
  __device__ static void before_first_poll() {}
  __device__ static void between_polls() {}
};

template <unsigned FirstNs, unsigned PollNs>
struct SleepBackoff {
  __device__ static void before_first_poll() {
    if constexpr (FirstNs > 0) __nanosleep(FirstNs);
  }
  __device__ static void between_polls() {
    if constexpr (PollNs > 0) __nanosleep(PollNs);
  }
};

template <class State, class Backoff = NoBackoff>
struct ChainedCarry {
  State state;
  std::int64_t tile;

  template <class T, class Op>
  __device__ T get(T total) const {
    __shared__ T carry;
    if (threadIdx.x == 0) {
      T prefix = Op::template identity<T>();
      if (tile > 0) {
        Backoff::before_first_poll();
        TileView<T> previous = state.read(tile - 1);
        while (previous.status != kTileInclusive) {
          Backoff::between_polls();
          previous = state.read(tile - 1);
        }
        prefix = previous.value;
      }
      state.publish(tile, kTileInclusive, Op{}(prefix, total));
      carry = prefix;
    }
    __syncthreads();
    return carry;
  }
};

using LookbackBackoff = SleepBackoff<600, 300>;

// The frame both decoupled look-backs share, run by the lanes of warp 0 alone: tile 0 publishes
// its total as INCLUSIVE; any other tile publishes it as AGGREGATE at once (successors may use it
// right away), finds the reduction of every earlier tile with `walk` (called by every lane of
// warp 0, after the back-off's first sleep; it returns that reduction), and publishes its
// INCLUSIVE value. Returns the tile's carry-in (the reduction of every earlier tile) to every
// lane of warp 0. The other warps of the block are free meanwhile: the tuned scan
// (tuned_scan.cuh) has them scan their part of the tile.
// A `closed` tile is one whose total does not depend on what comes before it: in a segmented
// scan (segmented.cuh), a tile that contains a segment start, whose total is the reduction
// since its last start. It publishes that total as INCLUSIVE at once, so that no successor's walk
// goes past it; it still walks back itself, for its elements before its first segment start.
template <class T, class Op, class Backoff, class State, class Walk>
__device__ T look_back_in_warp0(const State& state, std::int64_t tile, T total, bool closed, Walk&& walk) {
  const bool leader = lane_id() == 0;
  if (tile == 0) {
    if (leader) state.publish(0, kTileInclusive, total);
    return Op::template identity<T>();
  }
  if (leader) state.publish(tile, closed ? kTileInclusive : kTileAggregate, total);
  Backoff::before_first_poll();
  const T prefix = walk();
  if (leader && !closed) state.publish(tile, kTileInclusive, Op{}(prefix, total));
  return prefix;
}

// The same for the whole block: warp 0 looks back, and the carry-in reaches every thread through
// shared memory and one barrier.
template <class T, class Op, class Backoff, class State, class Walk>
__device__ T decoupled_lookback(const State& state, std::int64_t tile, T total, bool closed, Walk&& walk) {
  __shared__ T carry;
  if (warp_id() == 0) {
    const T prefix = look_back_in_warp0<T, Op, Backoff>(state, tile, total, closed, walk);
    if (lane_id() == 0) carry = prefix;
  }
  __syncthreads();
  return carry;
}

template <class State, class Backoff = LookbackBackoff>
struct SerialLookback {
  State state;
  std::int64_t tile;

  // The walk runs in warp 0 with every lane doing the same thing: each step is still one
  // descriptor (32 lanes reading one word make one request), the control flow stays warp-uniform,
  // and ptxas keeps it spill-free (as thread 0 alone, sleeping inside the loop cost a 4-byte spill).
  template <class T, class Op>
  __device__ T get(T total, bool closed = false) const {
    return decoupled_lookback<T, Op, Backoff>(state, tile, total, closed, [&] {
      const Op op;
      T prefix = Op::template identity<T>();
      for (std::int64_t i = tile - 1;; --i) {
        TileView<T> view;
        while ((view = state.read(i)).status == kTileInvalid) Backoff::between_polls();
        prefix = op(view.value, prefix);  // earlier tiles go on the left
        if (view.status == kTileInclusive) return prefix;
      }
    });
  }
};

template <class State, class Backoff = LookbackBackoff, int PerLane = 1>
struct WarpLookback {
  State state;
  std::int64_t tile;

  // The carry-in to every thread of the block (the carry-in source contract, tile_policies.cuh).
  template <class T, class Op>
  __device__ T get(T total, bool closed = false) const {
    return decoupled_lookback<T, Op, Backoff>(state, tile, total, closed, [&] { return walk<T, Op>(); });
  }

  // The carry-in to the lanes of warp 0 only; called by warp 0 alone.
  template <class T, class Op>
  __device__ T get_in_warp0(T total) const {
    return look_back_in_warp0<T, Op, Backoff>(state, tile, total, false, [&] { return walk<T, Op>(); });
  }

  // The reduction of every tile before this one, to every lane of warp 0.
  template <class T, class Op>
  __device__ T walk() const {
    const Op op;
    const T identity = Op::template identity<T>();
    const int lane = lane_id();
    T prefix = identity;
    ShuffleWarpScan::Storage<T> no_storage;
    constexpr int kWindow = kWarpSize * PerLane;
    for (std::int64_t window_end = tile;; window_end -= kWindow) {
      // Each lane reads PerLane consecutive descriptors: lane 31 the nearest predecessors,
      // lane 0 the farthest of this window. Before tile 0 there is nothing (the identity).
      const std::int64_t first = window_end - kWindow + lane * PerLane;
      TileView<T> view[PerLane];
      bool invalid = false;
#pragma unroll
      for (int j = 0; j < PerLane; ++j) {
        view[j] = first + j >= 0 ? state.read(first + j) : TileView<T>{kTileAggregate, identity};
        invalid |= view[j].status == kTileInvalid;
      }
      while (__any_sync(kFullMask, invalid)) {
        Backoff::between_polls();
        invalid = false;
#pragma unroll
        for (int j = 0; j < PerLane; ++j) {
          if (view[j].status == kTileInvalid) view[j] = state.read(first + j);
          invalid |= view[j].status == kTileInvalid;
        }
      }
      // This lane's share: from its nearest INCLUSIVE descriptor on, or all of it.
      T share = identity;
      bool has_inclusive = false;
#pragma unroll
      for (int j = 0; j < PerLane; ++j) {
        const bool inclusive = view[j].status == kTileInclusive;
        share = inclusive ? view[j].value : op(share, view[j].value);
        has_inclusive |= inclusive;
      }
      const unsigned inclusive_lanes = __ballot_sync(kFullMask, has_inclusive);
      const int nearest_inclusive = inclusive_lanes ? kWarpSize - 1 - __clz(inclusive_lanes) : 0;
      const T kept = lane >= nearest_inclusive ? share : identity;
      const T window = shuffle_from(ShuffleWarpScan::inclusive<T, Op>(kept, no_storage), kWarpSize - 1);
      prefix = op(window, prefix);
      if (inclusive_lanes) return prefix;
    }
  }
};

}  // namespace zoo
