// chained_carry.cuh -- the domino chain, the simplest carry-in source of the single-pass driver
// (src/single_pass/single_pass.cuh), shared by the chained variants (single_pass_scan_naive,
// _naive_shared_tile, _dynamic_block_index). A carry-in source's get<T, Op>(tile_total) is called
// by every thread of the block between the tile policy's scan and prepend_and_store steps
// (src/blocks/tile_policies.cuh), returns the carry-in to every thread, and publishes this
// tile's INCLUSIVE value on the way. The decoupled look-backs beside it: the
// serial walk (single_pass_scan_decoupled_lookbacks_serial.cu) and the library's warp walk
// (include/scan_zoo/detail/grid/lookback.cuh).
//
//   ChainedCarry       wait until the immediate predecessor is INCLUSIVE, then publish this
//                      tile's INCLUSIVE value. Tile k cannot finish before tile k-1: the chain
//                      is serial. It polls without a back-off: its wait is the critical path itself.
//                      Warp 0 polls with its lanes in step, as the serial look-back walks: 32
//                      lanes reading one word make one request, and the loop stays warp-uniform.
//                      Polled by thread 0 alone, the chain handed over more slowly on the H200
//                      (bench/NOTES.md, "Tile policies as steps, and the grid layer").
//
// Progress: a tile only ever waits on tiles with a smaller index. Whether those are running is
// the business of the tile order (single_pass.cuh): with tickets they have already started.
#pragma once

#include <scan_zoo/detail/grid/lookback.cuh>
#include <scan_zoo/detail/warp.cuh>

#include <cstdint>

#include "../core/ops.cuh"

namespace zoo {

template <class State>
struct ChainedCarry {
  State state;
  std::int64_t tile;

  template <class T, class Op>
  __device__ T get(T total) const {
    __shared__ T carry;
    if (warp_id() == 0) {
      T prefix = Op::template identity<T>();
      if (tile > 0) {
        TileView<T> previous = state.read(tile - 1);
        while (previous.status != kTileInclusive) previous = state.read(tile - 1);
        prefix = previous.value;
      }
      if (lane_id() == 0) {
        state.publish(tile, kTileInclusive, Op{}(prefix, total));
        carry = prefix;
      }
    }
    __syncthreads();
    return carry;
  }
};

}  // namespace zoo
