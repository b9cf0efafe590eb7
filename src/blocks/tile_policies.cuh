// tile_policies.cuh -- the two shapes of block-level tile scan that the hierarchical variants
// plug into zoo::Hierarchy (see hierarchy.cuh for the scan_tile contract).
//
// TreeTile<Threads, TileItems, Tree>: the textbook shape. The tile is loaded coalesced into a
// shared array, scanned there by a tree of smem_tree_scans.cuh (Kogge-Stone: one element per
// thread; Brent-Kung and Blelloch: two), and stored coalesced.
//
// Both take an optional carry-in source (NoCarryIn below) so that the same tile scan serves the
// hierarchy, reduce-then-scan and the single-pass scans.
//
// CoarsenedTile<Threads, Items, BlockScan>: thread coarsening. Each thread owns Items
// consecutive elements in registers (loaded through a shared-memory transpose, tile_io.cuh, with
// 16-byte global accesses), scans them serially, the block scans the per-thread totals (any
// BlockScan of block_scan.cuh: a tree or warp scans), and each thread combines its exclusive
// prefix into its items (the "redistribution") before the transposed store. Work per element:
// ~2 combines, whatever the block scan costs, spread over Items elements.
#pragma once

#include "../core/ops.cuh"
#include "block_scan.cuh"
#include "smem_tree_scans.cuh"
#include "tile_io.cuh"

namespace zoo {

// Where a tile's carry-in (the reduction of everything before it) comes from. scan_tile calls
// get<T, Op>(tile_total) once, from every thread of the block, after the block scan, and
// combines the result in front of every output. Hierarchical tiles have none (the carry pass
// adds it later); reduce-then-scan reads it from the scanned totals; single-pass scans wait for
// it (chained or decoupled look-back), which is why the tile total is handed over: a tile
// publishes its own aggregate before it looks back.
struct NoCarryIn {
  template <class T, class Op>
  __device__ T get(T) const { return Op::template identity<T>(); }
};

template <int Threads, int TileItems, class Tree>
struct TreeTile {
  static_assert(TileItems <= 2 * Threads && TileItems % Threads == 0, "one or two elements per thread");
  static constexpr int kThreads = Threads;
  static constexpr int kTileItems = TileItems;

  template <class T, class Op>
  __device__ static T scan_tile(const T* in, T* out, int valid, bool exclusive) {
    return scan_tile<T, Op>(in, out, valid, exclusive, NoCarryIn{});
  }

  // As above, with the tile's carry-in asked for once the tile total is known (see NoCarryIn).
  template <class T, class Op, class CarryIn>
  __device__ static T scan_tile(const T* in, T* out, int valid, bool exclusive, CarryIn&& carry_in) {
    const Op op;
    __shared__ T s[Tree::template kStorage<TileItems>];
    // A compile-time trip count: a loop from threadIdx.x with a run-time bound compiles into an
    // unrolled loop with remainder branches, which measurably slows this latency-bound kernel.
    constexpr int kPerThread = TileItems / Threads;
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int i = k * Threads + threadIdx.x;
      s[Tree::slot(i)] = i < valid ? in[i] : Op::template identity<T>();
    }
    Tree::template inclusive<T, Op, TileItems>(s);
    const T total = s[Tree::slot(TileItems - 1)];  // identity padding: the last slot is the total
    const T carry = carry_in.template get<T, Op>(total);
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int i = k * Threads + threadIdx.x;
      if (i < valid)
        out[i] = op(carry, !exclusive ? s[Tree::slot(i)] : i == 0 ? Op::template identity<T>() : s[Tree::slot(i - 1)]);
    }
    return total;
  }
};

template <int Threads, int Items, class BlockScan>
struct CoarsenedTile {
  static constexpr int kThreads = Threads;
  static constexpr int kTileItems = Threads * Items;
  template <class T>
  using IO = BlockedTile<T, Threads, Items>;

  template <class T, class Op>
  __device__ static T scan_tile(const T* in, T* out, int valid, bool exclusive) {
    return scan_tile<T, Op>(in, out, valid, exclusive, NoCarryIn{});
  }

  // As above, with the tile's carry-in asked for once the tile total is known (see NoCarryIn).
  template <class T, class Op, class CarryIn>
  __device__ static T scan_tile(const T* in, T* out, int valid, bool exclusive, CarryIn&& carry_in) {
    return scan_fetched<T, Op>(IO<T>::fetch(in, valid, Op::template identity<T>()), out, valid, exclusive,
                               carry_in);
  }

  // The same, from a tile whose global loads were issued by IO<T>::fetch (padded with the
  // identity). scan_tile is its only caller; it stays a function of its own because folding it
  // into scan_tile changes the SASS (tile_io.cuh, on why loading is two steps).
  template <class T, class Op, class CarryIn>
  __device__ static T scan_fetched(const typename IO<T>::Fetched& fetched, T* out, int valid, bool exclusive,
                                   CarryIn&& carry_in) {
    const Op op;
    T items[Items];
    IO<T>::arrange(fetched, items);
#pragma unroll
    for (int k = 1; k < Items; ++k) items[k] = op(items[k - 1], items[k]);  // serial, in registers
    T total;
    const T block_prefix = BlockScan::template exclusive<T, Op>(items[Items - 1], total);
    const T prefix = op(carry_in.template get<T, Op>(total), block_prefix);
    if (exclusive) {  // shift right by one: item k gets the prefix of item k - 1
#pragma unroll
      for (int k = Items - 1; k > 0; --k) items[k] = op(prefix, items[k - 1]);
      items[0] = prefix;
    } else {
#pragma unroll
      for (int k = 0; k < Items; ++k) items[k] = op(prefix, items[k]);
    }
    IO<T>::store(out, valid, items);
    return total;
  }

  // The tile's total only (the first pass of reduce-then-scan): load, serial reduce, block scan.
  template <class T, class Op>
  __device__ static T reduce_tile(const T* in, int valid) {
    const Op op;
    T items[Items];
    IO<T>::load(in, valid, items, Op::template identity<T>());
    T thread_total = items[0];
#pragma unroll
    for (int k = 1; k < Items; ++k) thread_total = op(thread_total, items[k]);
    T total;
    BlockScan::template exclusive<T, Op>(thread_total, total);
    return total;
  }
};

}  // namespace zoo
