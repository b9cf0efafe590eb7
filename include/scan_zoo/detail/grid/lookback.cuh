// scan_zoo/detail/grid/lookback.cuh -- how a single-pass tile obtains its carry-in (the reduction
// of every element before it) from the tile descriptors (descriptors.cuh, protocol.cuh): the
// decoupled look-back (Merrill & Garland 2016) run by a warp.
//
//   WarpLookback       the walk by a warp, 32 descriptors per step: each lane reads one,
//                      the warp waits until none of the 32 is INVALID, keeps the lanes from the
//                      nearest INCLUSIVE one on, and reduces them in order with shuffles.
//                      PerLane > 1 widens the window (each lane reads PerLane neighbours):
//                      fewer steps, more loads per poll; an axis of the tuned scan's space
//                      (tuned_space.cuh). Beside it the fixed-order look-back, the same bits in
//                      every run (fixed_order_in_warp0).
//   LookbackOrder      which of the two a kernel runs: chosen at compile time, or both compiled
//                      and one chosen per launch (a framework's switch, such as
//                      torch.use_deterministic_algorithms).
// The zoo's teaching variants add the domino chain and the serial look-back beside it
// (src/grid/teaching_lookbacks.cuh).
//
// Back-off (the Backoff parameter): a poll that finds a predecessor INVALID is repeated, and a
// tile that polls as soon as it has published mostly finds its predecessors still scanning.
// SleepBackoff<FirstNs, PollNs> sleeps FirstNs before the first poll and PollNs between polls:
// CUB's fixed delay constructor. (In a small grid a sleep is pure latency: the tuned scan's
// tables pick a spinning configuration there; bench/NOTES.md, "The tuned scan, first space".)
// Every poll is a load at the scan's front that the loads and stores of every other block queue
// with, so fewer polls make everyone faster (bench/NOTES.md, the warp window's back-off).
//
// Progress: a tile only ever waits on tiles with a smaller index. Whether those are running is
// the business of the tile order: the tuned kernel relies on blocks being dispatched in
// blockIdx.x order (tuned_kernel.cuh).
#pragma once

#include <cstdint>

#include "../core.cuh"
#include "../warp.cuh"
#include "protocol.cuh"

namespace scan_zoo::detail {

template <unsigned FirstNs, unsigned PollNs>
struct SleepBackoff {
  __device__ static void before_first_poll() {
    if constexpr (FirstNs > 0) __nanosleep(FirstNs);
  }
  __device__ static void between_polls() {
    if constexpr (PollNs > 0) __nanosleep(PollNs);
  }
};

using LookbackBackoff = SleepBackoff<600, 300>;

// Which look-back a kernel runs: Nearest (the walk to the nearest INCLUSIVE descriptor, the
// fastest), Fixed (fixed_order_in_warp0 below: the same bits in every run), or ChosenAtRun (both
// compiled into the kernel, one taken per launch by a flag in its arguments: one kernel where a
// caller decides at run time, at the price of both walks' code in it).
enum class LookbackOrder { Nearest, Fixed, ChosenAtRun };

// The frame both decoupled look-backs share, run by the lanes of warp 0 alone: tile 0 publishes
// its total as INCLUSIVE; any other tile publishes it as AGGREGATE at once (successors may use it
// right away), finds the reduction of every earlier tile with `walk` (called by every lane of
// warp 0, after the back-off's first sleep; it returns that reduction), and publishes its
// INCLUSIVE value. Returns the tile's carry-in (the reduction of every earlier tile) to every
// lane of warp 0. The other warps of the block are free meanwhile: the tuned scan
// (tuned_kernel.cuh) has them scan their part of the tile.
// A `closed` tile is one whose total does not depend on what comes before it: in a segmented
// scan (segmented.cuh), a tile that contains a segment start, whose total is the reduction
// since its last start. It publishes that total as INCLUSIVE at once, so that no successor's walk
// goes past it; it still walks back itself, for its elements before its first segment start.
// `op` is the scan's operator, stateful or not (the zoo's variants, which name operator types
// only, leave it to the default).
template <class T, class Op, class Backoff, class State, class Walk>
__device__ T look_back_in_warp0(const State& state, std::int64_t tile, T total, bool closed, Walk&& walk,
                                const Op& op = Op{}) {
  const bool leader = lane_id() == 0;
  if (tile == 0) {
    if (leader) state.publish(0, kTileInclusive, total);
    return op.template identity<T>();
  }
  if (leader) state.publish(tile, closed ? kTileInclusive : kTileAggregate, total);
  Backoff::before_first_poll();
  const T prefix = walk();
  if (leader && !closed) state.publish(tile, kTileInclusive, op(prefix, total));
  return prefix;
}

// The same for the whole block: warp 0 looks back, and the carry-in reaches every thread through
// shared memory and one barrier.
template <class T, class Op, class Backoff, class State, class Walk>
__device__ T decoupled_lookback(const State& state, std::int64_t tile, T total, bool closed, Walk&& walk,
                               const Op& op = Op{}) {
  __shared__ T carry;
  if (warp_id() == 0) {
    const T prefix = look_back_in_warp0<T, Op, Backoff>(state, tile, total, closed, walk, op);
    if (lane_id() == 0) carry = prefix;
  }
  __syncthreads();
  return carry;
}

template <class State, class Backoff = LookbackBackoff, int PerLane = 1>
struct WarpLookback {
  State state;
  std::int64_t tile;

  // The carry-in to every thread of the block (the carry-in source contract of the zoo's
  // single-pass driver, src/single_pass/single_pass.cuh).
  template <class T, class Op>
  __device__ T get(T total, bool closed = false, const Op& op = Op{}) const {
    return decoupled_lookback<T, Op, Backoff>(state, tile, total, closed, [&] { return walk<T, Op>(op); }, op);
  }

  // The carry-in to the lanes of warp 0 only; called by warp 0 alone. fixed_order: the
  // deterministic look-back (below) instead of the nearest-INCLUSIVE one (a constant where the
  // kernel's LookbackOrder decides, so that only one of them is compiled).
  template <class T, class Op>
  __device__ T get_in_warp0(T total, const Op& op, bool fixed_order) const {
    if (fixed_order) return fixed_order_in_warp0<T, Op>(total, op);
    return look_back_in_warp0<T, Op, Backoff>(state, tile, total, false, [&] { return walk<T, Op>(op); }, op);
  }

  // The deterministic look-back. The carry-in that walk() returns is the reduction of the tiles
  // before this one grouped as the walk happened to find their descriptors (from the nearest
  // INCLUSIVE one on), which depends on timing: for an operator that is only approximately
  // associative (a floating-point sum) two runs may differ in the last bits. Here the grouping
  // is fixed. The tiles fall into aligned windows of kWindow (the walk's width), and
  //   carry-in(t) = inclusive(b) op aggregate(b + 1) op ... op aggregate(t - 1),
  // b the last tile of the window before t's (none in the first window), reduced by one fixed
  // shuffle tree. Only a window's last tile publishes an INCLUSIVE value (op(carry-in, total));
  // every other tile publishes its AGGREGATE and nothing more, and tile 0 its INCLUSIVE one at
  // once, as always. So every descriptor a tile reads holds one fixed value, and every carry-in
  // is the same expression of the same values in every run. The price: a tile waits for its own
  // window's base even where a nearer tile has finished.
  // A chain may start at a later tile than 0: `first`, a tile whose value depends on nothing
  // before it and is published INCLUSIVE at once (the row kernel's tile where a row starts,
  // rows_kernel.cuh). The windows are then counted from it, tile `first` playing tile 0's part,
  // and nothing before it is read. `closed`: this tile's own value depends on nothing before it
  // (it holds a line start, and starts the chains of the tiles after it): it publishes `total`
  // INCLUSIVE at once and nothing more, and the carry-in it gets serves its items before that
  // start.
  template <class T, class Op>
  __device__ T fixed_order_in_warp0(T total, const Op& op, std::int64_t first = 0, bool closed = false) const {
    constexpr int kWindow = kWarpSize * PerLane;
    const T identity = op.template identity<T>();
    const bool leader = lane_id() == 0;
    if (tile == first) {
      if (leader) state.publish(tile, kTileInclusive, total);
      return identity;
    }
    // Nobody reads the AGGREGATE of a window's last tile: the tiles after it read its INCLUSIVE
    // value, the tiles of its own window lie before it.
    const std::int64_t in_chain = tile - first;
    const bool window_last = !closed && (in_chain + 1) % kWindow == 0;
    if (leader && !window_last) state.publish(tile, closed ? kTileInclusive : kTileAggregate, total);
    Backoff::before_first_poll();
    // Position p of the window reads tile base + p: p = 0 the base, whose INCLUSIVE value is
    // needed (before the chain's first tile there is none: the identity), p = 1 .. tile - 1 -
    // base the tiles of this window before this one (their AGGREGATE; the first tile's
    // INCLUSIVE), the rest nothing (the identity). Statuses are ordered INVALID < AGGREGATE <
    // INCLUSIVE: a position waits while its status is below the one it needs.
    const std::int64_t base = first + in_chain / kWindow * kWindow - 1;
    const int count = static_cast<int>(tile - base);
    TileView<T> view[PerLane];
    bool waiting = false;
#pragma unroll
    for (int j = 0; j < PerLane; ++j) {
      const int position = lane_id() * PerLane + j;
      view[j] = position < count && base + position >= first ? state.read(base + position)
                                                              : TileView<T>{kTileInclusive, identity};
      waiting |= view[j].status < (position == 0 ? kTileInclusive : kTileAggregate);
    }
    while (__any_sync(kFullMask, waiting)) {
      Backoff::between_polls();
      waiting = false;
#pragma unroll
      for (int j = 0; j < PerLane; ++j) {
        const int position = lane_id() * PerLane + j;
        const std::uint32_t needed = position == 0 ? kTileInclusive : kTileAggregate;
        if (view[j].status < needed) view[j] = state.read(base + position);
        waiting |= view[j].status < needed;
      }
    }
    T share = identity;
#pragma unroll
    for (int j = 0; j < PerLane; ++j) share = op(share, view[j].value);
    ShuffleWarpScan::Storage<T> no_storage;
    const T prefix = shuffle_from(ShuffleWarpScan::inclusive<T, Op>(share, no_storage, op), kWarpSize - 1);
    if (leader && window_last) state.publish(tile, kTileInclusive, op(prefix, total));
    return prefix;
  }

  // The reduction of every tile before this one, to every lane of warp 0.
  template <class T, class Op>
  __device__ T walk(const Op& op) const {
    const T identity = op.template identity<T>();
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
      const T window = shuffle_from(ShuffleWarpScan::inclusive<T, Op>(kept, no_storage, op), kWarpSize - 1);
      prefix = op(window, prefix);
      if (inclusive_lanes) return prefix;
    }
  }
};

}  // namespace scan_zoo::detail
