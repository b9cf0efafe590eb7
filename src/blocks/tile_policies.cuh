// tile_policies.cuh -- the two shapes of block-level tile scan that the hierarchical and the
// teaching single-pass drivers run (hierarchy.cuh, single_pass.cuh, reduce_then_scan.cu).
//
// A policy's Scan<T, Op> is one tile's scan as plain steps, which every thread of the block
// calls in this order; a driver puts what the tile needs from the rest of the grid (its carry-in)
// between the second and the third, as the tuned kernel does (tuned_kernel.cuh):
//   load(in, valid)          the tile in[0, valid), padded with the identity to a whole tile;
//                            every element is read before any is written, so in == out is fine
//   scan(exclusive)          the tile scanned on its own; returns its total to every thread
//   (the driver's carry-in: the identity in the hierarchy, a scanned total in reduce-then-scan,
//    a look-back in the single-pass scans, which publish the total first)
//   prepend_and_store(carry, exclusive, out, valid)
//                            carry in front of every element, and out[0, valid) written
// `exclusive` is applied by whichever step the policy shifts in: the prepend here; the register
// tile (single_pass_scan_decoupled_lookbacks_register_tile.cu) shifts while it scans.
//
// TreeTile<Threads, TileItems, Tree>: the textbook shape. The tile is loaded coalesced into a
// shared array, scanned there by a tree of smem_tree_scans.cuh (Kogge-Stone: one element per
// thread; Brent-Kung and Blelloch: two), and stored coalesced, the carry added on the way out.
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

template <int Threads, int TileItems, class Tree>
struct TreeTile {
  static_assert(TileItems <= 2 * Threads && TileItems % Threads == 0, "one or two elements per thread");
  static constexpr int kThreads = Threads;
  static constexpr int kTileItems = TileItems;

  template <class T, class Op>
  struct Scan {
    __device__ static T* shared() {
      __shared__ T s[Tree::template kStorage<TileItems>];
      return s;
    }
    // A compile-time trip count: a loop from threadIdx.x with a run-time bound compiles into an
    // unrolled loop with remainder branches, which measurably slows this latency-bound kernel.
    static constexpr int kPerThread = TileItems / Threads;

    __device__ void load(const T* in, int valid) const {
      T* s = shared();
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        const int i = k * Threads + threadIdx.x;
        s[Tree::slot(i)] = i < valid ? in[i] : Op::template identity<T>();
      }
    }
    __device__ T scan(bool /* exclusive: applied on the way out */) const {
      Tree::template inclusive<T, Op, TileItems>(shared());
      return shared()[Tree::slot(TileItems - 1)];  // identity padding: the last slot is the total
    }
    __device__ void prepend_and_store(T carry, bool exclusive, T* out, int valid) const {
      const Op op;
      const T* s = shared();
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        const int i = k * Threads + threadIdx.x;
        if (i < valid)
          out[i] = op(carry, !exclusive ? s[Tree::slot(i)] : i == 0 ? Op::template identity<T>() : s[Tree::slot(i - 1)]);
      }
    }
  };
};

template <int Threads, int Items, class BlockScan>
struct CoarsenedTile {
  static constexpr int kThreads = Threads;
  static constexpr int kTileItems = Threads * Items;
  template <class T>
  using IO = BlockedTile<T, Threads, Items>;

  template <class T, class Op>
  struct Scan {
    typename IO<T>::Fetched fetched;  // after load(): the tile as it came from global memory
    T items[Items];                   // after scan(): this thread's items, scanned serially
    T block_prefix;                   // after scan(): everything in the tile before this thread's items

    // Issues the global loads and returns; scan() waits for them (tile_io.cuh, on the two steps).
    __device__ void load(const T* in, int valid) { fetched = IO<T>::fetch(in, valid, Op::template identity<T>()); }
    __device__ T scan(bool /* exclusive: applied when prepending */) {
      const Op op;
      IO<T>::arrange(fetched, items);
#pragma unroll
      for (int k = 1; k < Items; ++k) items[k] = op(items[k - 1], items[k]);  // serial, in registers
      T total;
      block_prefix = BlockScan::template exclusive<T, Op>(items[Items - 1], total);
      return total;
    }
    __device__ void prepend_and_store(T carry, bool exclusive, T* out, int valid) {
      const Op op;
      const T prefix = op(carry, block_prefix);
      if (exclusive) {  // shift right by one: item k gets the prefix of item k - 1
#pragma unroll
        for (int k = Items - 1; k > 0; --k) items[k] = op(prefix, items[k - 1]);
        items[0] = prefix;
      } else {
#pragma unroll
        for (int k = 0; k < Items; ++k) items[k] = op(prefix, items[k]);
      }
      IO<T>::store(out, valid, items);
    }
  };

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
