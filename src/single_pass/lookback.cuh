// lookback.cuh -- the zoo's teaching carry-in sources beside the library's warp look-back
// (include/scan_zoo/detail/lookback.cuh, with the back-off and the frame both look-backs share).
// Each is a carry-in source of the single-pass driver (single_pass.cuh): get<T, Op>(tile_total)
// is called by every thread of the block once the tile is scanned, returns the carry-in to every
// thread, and publishes this tile's INCLUSIVE value on the way.
//
//   ChainedCarry       the domino chain: wait until the immediate predecessor is INCLUSIVE.
//                      Tile k cannot finish before tile k-1: the chain is serial.
//   SerialLookback     decoupled look-back (Merrill & Garland 2016), serial: publish AGGREGATE
//                      at once, then walk back one descriptor at a time, combining aggregates
//                      until an INCLUSIVE one ends the walk.
//   WarpLookback       (the library's) the same walk by a warp, 32 descriptors per step.
//
// Measured on the H100 (bench/NOTES.md, "The single-pass family": the warp window at 2^28): a
// sleep before the first poll cut the polls that find an INVALID predecessor from several per
// look-back to about one, shortened the look-back, and made the whole scan faster, since every
// poll takes bandwidth from the other blocks. The look-backs default to LookbackBackoff; the
// chains to none (their wait is the critical path itself).
//
// Progress: a tile only ever waits on tiles with a smaller index. Whether those are running is
// the business of the tile order (single_pass.cuh): with tickets they have already started.
#pragma once

#include <scan_zoo/detail/lookback.cuh>

#include <cstdint>

#include "../core/ops.cuh"

namespace zoo {

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

}  // namespace zoo
