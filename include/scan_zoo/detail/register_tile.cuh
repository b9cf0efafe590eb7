// scan_zoo/detail/register_tile.cuh -- a tile that lives in registers from load to store: loaded with 16-byte
// vectors in warp-contiguous order, scanned with thread-serial steps and warp shuffles, and
// combined over the block through one word per warp. No shared memory holds the data.
//
// Layout (RegisterTile<Threads, Items>): the tile is Threads x Items elements and warp w owns the
// contiguous run of 32 x Items elements that starts at w x 32 x Items. A 16-byte vector holds
// V = 16 / sizeof(T) elements (4 for 32-bit types), and each thread holds Items / V of them:
// lane l of warp w holds vectors l, l + 32, l + 64, ... of its warp's run, "round" k being the 32
// consecutive vectors 32k .. 32k + 31. Every load and store instruction of a warp therefore moves
// 512 contiguous bytes: coalesced, with no transpose. (GPUPrefixSums' chained scan holds its
// tiles the same way.)
//
// Why this beats the zoo's blocked tiles (src/blocks/tile_io.cuh; thread t owns elements
// t x Items ..): there a thread's run must be gathered from striped loads through a padded
// shared-memory transpose on the way in and on the way out, two barriers each way, and every
// element makes two extra trips through shared memory. Here the order of the scan follows the order of the loads instead:
//   1. each thread scans its vector of round k serially (V - 1 combines);
//   2. the warp scans the 32 vector totals of round k with shuffles (5 steps) and every vector
//      gets the total of the lanes before it and of the rounds before k in front;
//   3. the warps' totals meet in shared memory (one word per warp, one barrier), and each thread
//      reduces the totals of the warps before its own: the block scan is done.
// The element order is (warp, round, lane, item), the order of the addresses, so every combine
// keeps the earlier operand on the left: correct for any associative operator, commutative or not.
// Registers: Items data registers per thread and a few more; 256 x 16 compiles to 32-40
// registers, so 6-8 blocks (48-64 warps) share an SM, where the transposing 128 x 24 tile of the
// look-back variants holds 72 registers and 7 blocks of 4 warps.
//
// A tile that is partial (the last one) or not 16-byte aligned is read and written element by
// element in the same arrangement, so that the scan is the same code either way.
// Mixed types: the registers hold the scan's accumulator type, the loads convert from the input
// type and the stores to the output type, and both move V elements per vector, V set by the wider
// of the two (kVectorOfBoth): 16-byte accesses on the wide side, narrower ones on the other.
// Direction: TileOrder says whether item i of the tile lies i elements after the tile's pointer
// or i elements before it (a reverse scan), and load and store follow it.
#pragma once

#include <cstdint>

#include "../operators.cuh"
#include "core.cuh"
#include "vector_access.cuh"
#include "warp.cuh"
#include "indexed_elements.cuh"

namespace scan_zoo::detail {

// Where a tile's items lie in memory. V: elements per vector. Forward: item i of the tile is
// element i after the tile's pointer. Reverse: item i is element i before it (the pointer is one
// past the tile's last element in memory), so that a suffix scan (scan.cuh, Direction::Reverse)
// is the same scan of the same registers, read and written backwards: each vector is still one
// aligned access, its items taken in the opposite order.
template <int V, bool Reverse = false>
struct TileOrder {
  static constexpr int kVector = V;
  static constexpr bool kReverse = Reverse;
};

// logcumsumexp's warp runs on a shared reference: the steps of RegisterTile::scan_warp and
// prepend (below) for LogSumExp<float> accumulators under LogAddExp (operators.cuh), the
// package's logcumsumexp of float, bfloat16 and half. The generic steps combine about four
// times an item (the thread's serial scan, the shuffles, the lanes and rounds before put in
// front, then the warps and tiles before), each combine an exp and a handful of selects, one
// after another. A warp's run whose finite inputs all lie within kSpan below its largest x = r
// needs none of that: every item of it is (r, s), s the plain sum of exp(x - r) over the run up
// to it, so the run costs an exp an item (all independent), float additions and float shuffles
// (the rounds' scans independent too), and what comes before the warp (the warps and tiles) is
// put in front of all its items with one rescaling. Nothing underflows that matters: an item's
// sum is at least exp(-kSpan) (its running maximum is one of the run's finite inputs), and a
// term that flushes to zero is below 2^-126 of it. The span costs accuracy, though: exp(x - r)
// is off by about |x - r| 2^-24 of itself, so an early item far below r carries up to kSpan x
// 2^-24 of absolute error in its log (about 2e-6), against 2^-22 for the generic steps. Any
// other run takes the generic steps, a choice of the warp's, uniform: a wider spread, a largest
// x that is infinite or NaN, a NaN anywhere (a NaN fails the span's comparison), a run of -inf
// only (masked, or the last tile's padding). Measured: bench/NOTES.md, "torch's scan ops:
// logcumsumexp on a shared reference".
struct SharedReference {
  static constexpr float kSpan = 32.0f;
  using Pair = LogSumExp<float>;

  template <class T, class Op>
  static constexpr bool kApplies = cuda::std::is_same_v<T, Pair> && cuda::std::is_same_v<Op, LogAddExp>;

  // The largest of the warp's values (a NaN may win, which refuses the run).
  __device__ __forceinline__ static float warp_max(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // As integers that order like the floats: one redux instruction, not five shuffles.
    const int bits = __float_as_int(x);
    const int largest = __reduce_max_sync(kFullMask, bits >= 0 ? bits : bits ^ 0x7fffffff);
    return __int_as_float(largest >= 0 ? largest : largest ^ 0x7fffffff);
#else
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) x = fmaxf(x, __shfl_xor_sync(kFullMask, x, offset));
    return x;
#endif
  }

  // Scans the warp's run inclusively on its shared reference (V: the vector width, Items / V
  // rounds, as scan_warp) and returns the run's total to every lane; false, with nothing
  // changed, when the run does not qualify.
  template <int V, int Items>
  __device__ __forceinline__ static bool scan_warp(Pair (&items)[Items], Pair& total) {
    constexpr int kRounds = Items / V;
    float largest = items[0].max;
#pragma unroll
    for (int i = 1; i < Items; ++i) largest = fmaxf(largest, items[i].max);
    largest = warp_max(largest);
    const float floor = largest - kSpan;
    bool within = true;
#pragma unroll
    for (int i = 0; i < Items; ++i)
      within &= items[i].max >= floor || items[i].max == -cuda::std::numeric_limits<float>::infinity();
    if (!__all_sync(kFullMask, within) || !cuda::std::isfinite(largest)) return false;

    // Each round: the terms, the thread's serial sums, the lanes' sums by shuffles.
    float sums[Items], lanes_before[kRounds], round_totals[kRounds];
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const float term = items[i].sum * detail::exp_nonpositive(items[i].max - largest);
      sums[i] = i % V == 0 ? term : sums[i - 1] + term;
    }
#pragma unroll
    for (int k = 0; k < kRounds; ++k) {
      ShuffleWarpScan::Storage<float> no_storage;
      const float lanes_through_mine = ShuffleWarpScan::inclusive<float, Plus>(sums[k * V + V - 1], no_storage, Plus{});
      lanes_before[k] = exclusive_from_inclusive<float, Plus>(lanes_through_mine, Plus{});
      round_totals[k] = shuffle_from(lanes_through_mine, kWarpSize - 1);
    }
    // The rounds before in front: on one reference, plain sums.
    float rounds_before = 0.0f;
#pragma unroll
    for (int k = 0; k < kRounds; ++k) {
      const float in_front = rounds_before + lanes_before[k];
#pragma unroll
      for (int j = 0; j < V; ++j) items[k * V + j] = Pair(largest, in_front + sums[k * V + j]);
      rounds_before += round_totals[k];
    }
    total = Pair(largest, rounds_before);
    return true;
  }

  // `prefix` in front of the thread's items when they share one max (a run on the shared
  // reference): LogAddExp{}(prefix, item) for each, its one exp taken once; false, with nothing
  // changed, when their maxima differ.
  template <int Items>
  __device__ __forceinline__ static bool prepend(Pair (&items)[Items], const Pair& prefix) {
    const float max = items[0].max;
    bool shared = true;
#pragma unroll
    for (int i = 1; i < Items; ++i) shared &= items[i].max == max;
    if (!shared) return false;
    const bool prefix_larger = prefix.max > max;
    const float scale =
        prefix.max == max ? 1.0f : detail::exp_nonpositive(prefix_larger ? max - prefix.max : prefix.max - max);
    const float items_scale = prefix_larger ? scale : 1.0f;
    const float in_front = prefix_larger ? prefix.sum : prefix.sum * scale;
#pragma unroll
    for (int i = 0; i < Items; ++i) items[i] = Pair(prefix_larger ? prefix.max : max, fmaf(items[i].sum, items_scale, in_front));
    return true;
  }
};

template <int Threads, int Items>
struct RegisterTile {
  static_assert(Threads % kWarpSize == 0 && Threads <= kWarpSize * kWarpSize, "whole warps, at most 32");
  static constexpr int kThreads = Threads;
  static constexpr int kItems = Items;
  static constexpr int kWarps = Threads / kWarpSize;
  static constexpr std::int64_t kTileItems = std::int64_t(Threads) * Items;

  // Elements per vector: the most, a power of two dividing Items, that fit in 16 bytes (one for
  // elements of 9 bytes or more); and vectors per thread.
  template <class T>
  static constexpr int kVector = [] {
    int count = 1;
    while (2 * count * int(sizeof(T)) <= 16 && Items % (2 * count) == 0) count *= 2;
    return count;
  }();
  // A scan that reads one type and writes another moves both in vectors of as many elements:
  // 16 bytes of the wider type, fewer of the narrower (bf16 in, float out: 8-byte loads and
  // 16-byte stores). A zipped input and a split output count as their wider arrays (zip.cuh,
  // VectorUnit).
  template <class In, class Out>
  static constexpr int kVectorOfBoth = kVector<typename VectorUnit<In>::type> < kVector<typename VectorUnit<Out>::type>
                                           ? kVector<typename VectorUnit<In>::type>
                                           : kVector<typename VectorUnit<Out>::type>;

  // The offset in the tile of item j of round k of the calling thread, with V-element vectors.
  // A tile of one warp (Threads = 32) is the calling warp's own, whatever the warp's place in its
  // block: the sharded scan's reduction gives each warp of a block tiles of its own.
  template <int V>
  __device__ __forceinline__ static int offset(int k, int j) {
    const int t = threadIdx.x;
    const int warp_base = kWarps == 1 ? 0 : (t / kWarpSize) * (kWarpSize * Items);
    return warp_base + (k * kWarpSize + t % kWarpSize) * V + j;
  }

  // The index in the tile, counted in V-element vectors, of round k's vector of the calling thread
  // (offset<V>(k, 0) / V), and of the same vector with the tile read backwards. Counted in
  // vectors from the start, with no division, so that the compiler sees every round of a thread
  // at a constant distance from its first and addresses them all from one register pair.
  template <int V, bool Reverse>
  __device__ __forceinline__ static int vector_index(int k) {
    const int t = threadIdx.x;
    const int warp_base = kWarps == 1 ? 0 : (t / kWarpSize) * (kWarpSize * Items / V);
    const int forward = warp_base + k * kWarpSize + t % kWarpSize;
    return Reverse ? int(kTileItems / V) - 1 - forward : forward;
  }

  // A whole tile whose first element in memory is V-vector aligned goes by vectors.
  template <int V, class T>
  __device__ __forceinline__ static bool vector_path(const T* first, int valid) {
    using Chunk = typename VectorOf<T, V * sizeof(T)>::Chunk;
    return valid == kTileItems && reinterpret_cast<std::uintptr_t>(first) % alignof(Chunk) == 0;
  }

  // items[k * V + j] = Acc(the element of item offset(k, j)), or `pad` past `valid`. `tile`
  // points at the tile as Order says (TileOrder above).
  template <class In, class Acc, class Order = TileOrder<kVector<In>>>
  __device__ static void load(const In* tile, int valid, Acc (&items)[Items], Acc pad, Order = {}) {
    constexpr int V = Order::kVector;
    static_assert(Items % V == 0, "whole vectors per thread");
    using Vec = VectorOf<In, V * sizeof(In)>;
    const bool whole = valid == kTileItems;  // a reversed partial tile has no first element to point at
    const In* first = Order::kReverse && whole ? tile - kTileItems : tile;
    if (vector_path<V>(first, valid)) {
#pragma unroll
      for (int k = 0; k < Items / V; ++k) {
        const int vector = vector_index<V, Order::kReverse>(k);
        const typename Vec::Chunk chunk = Vec::load(first, vector);
#pragma unroll
        for (int j = 0; j < V; ++j) items[k * V + j] = static_cast<Acc>(chunk.item[Order::kReverse ? V - 1 - j : j]);
      }
    } else {
#pragma unroll
      for (int k = 0; k < Items / V; ++k)
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const int i = offset<V>(k, j);
          items[k * V + j] = i < valid ? static_cast<Acc>(Order::kReverse ? tile[-1 - i] : tile[i]) : pad;
        }
    }
  }

  // A zipped input (zip.cuh): each array loaded by the form above in its own type, then
  // items[i] = Acc(Zip{first[i], second[i]}), or `pad` past `valid`.
  template <class A, class B, class Acc, class Order>
  __device__ static void load(ZipPointer<A, B> tile, int valid, Acc (&items)[Items], Acc pad, Order order) {
    A firsts[Items];
    B seconds[Items];
    load(tile.first, valid, firsts, A{}, order);
    load(tile.second, valid, seconds, B{}, order);
    // A whole tile (every tile but the last) needs no item's offset: none is past `valid`.
    const bool whole = valid == kTileItems;
#pragma unroll
    for (int k = 0; k < Items / Order::kVector; ++k)
#pragma unroll
      for (int j = 0; j < Order::kVector; ++j) {
        const int i = k * Order::kVector + j;
        items[i] = whole || offset<Order::kVector>(k, j) < valid ? static_cast<Acc>(Zip<A, B>{firsts[i], seconds[i]})
                                                                 : pad;
      }
  }

  // The element of item offset(k, j) = Out(items[k * V + j]), for the first `valid` items.
  template <class Out, class Acc, class Order = TileOrder<kVector<Out>>>
  __device__ static void store(Out* tile, int valid, const Acc (&items)[Items], Order = {}) {
    constexpr int V = Order::kVector;
    using Vec = VectorOf<Out, V * sizeof(Out)>;
    const bool whole = valid == kTileItems;
    Out* first = Order::kReverse && whole ? tile - kTileItems : tile;
    if (vector_path<V>(first, valid)) {
#pragma unroll
      for (int k = 0; k < Items / V; ++k) {
        const int vector = vector_index<V, Order::kReverse>(k);
        typename Vec::Chunk chunk;
#pragma unroll
        for (int j = 0; j < V; ++j) chunk.item[Order::kReverse ? V - 1 - j : j] = static_cast<Out>(items[k * V + j]);
        Vec::store(first, vector, chunk);
      }
    } else {
#pragma unroll
      for (int k = 0; k < Items / V; ++k)
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const int i = offset<V>(k, j);
          if (i < valid) (Order::kReverse ? tile[-1 - i] : tile[i]) = static_cast<Out>(items[k * V + j]);
        }
    }
  }

  // A split output (indexed_elements.cuh): each item split into its value and its index, each
  // array stored by the form above in its own type (the indices only where there is an array).
  template <class T, class I, class Acc, class Order>
  __device__ static void store(SplitPointer<T, I> tile, int valid, const Acc (&items)[Items], Order order) {
    T values[Items];
    I indices[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const Split<T, I> item(items[i]);
      values[i] = item.value;
      indices[i] = item.index;
    }
    store(tile.values, valid, values, order);
    if (tile.indices) store(tile.indices, valid, indices, order);
  }

  // An output that stores its tiles itself (linear_recurrence.cuh's gradients, which are made
  // from each item and from arrays read at the store): it says so with a member type
  // StoresItsOwnTiles and writes the tile with its store_tile<RegisterTile>(valid, items, order),
  // through this class's loads, stores and layout.
  template <class Output, class Acc, class Order, class = typename Output::StoresItsOwnTiles>
  __device__ static void store(const Output& tile, int valid, const Acc (&items)[Items], Order order) {
    tile.template store_tile<RegisterTile>(valid, items, order);
  }

  // Scans the warp's run in place (inclusive, or exclusive: each item then holds the reduction
  // of the items before it, the identity first) and returns the run's total to every lane. V is
  // the vector width the items were loaded with (load's Order). `op` is the scan's operator,
  // stateful or not; the zoo's variants, which name operator types only, leave it to the default.
  template <class T, class Op, int V = kVector<T>>
  __device__ static T scan_warp(T (&items)[Items], bool exclusive, const Op& op = Op{}) {
    T rounds_before = op.template identity<T>();  // total of the rounds already scanned
    if constexpr (SharedReference::kApplies<T, Op>)
      if (!exclusive && SharedReference::scan_warp<V>(items, rounds_before)) return rounds_before;
#pragma unroll
    for (int k = 0; k < Items / V; ++k) scan_round<T, Op, V>(&items[k * V], exclusive, op, rounds_before);
    return rounds_before;
  }

  // Round k of scan_warp, the generic steps (`vector`: the thread's V items of it): the
  // thread-serial scan of the vector, the shuffles, the lanes and rounds before in front;
  // `rounds_before` gains the round's total.
  template <class T, class Op, int V>
  __device__ __forceinline__ static void scan_round(T* vector, bool exclusive, const Op& op, T& rounds_before) {
    ShuffleWarpScan::Storage<T> no_storage;
#pragma unroll
    for (int j = 1; j < V; ++j) vector[j] = op(vector[j - 1], vector[j]);
    const T lanes_through_mine = ShuffleWarpScan::inclusive<T, Op>(vector[V - 1], no_storage, op);
    const T before = op(rounds_before, exclusive_from_inclusive<T, Op>(lanes_through_mine, op));
    if (exclusive) {
#pragma unroll
      for (int j = V - 1; j > 0; --j) vector[j] = op(before, vector[j - 1]);
      vector[0] = before;
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) vector[j] = op(before, vector[j]);
    }
    rounds_before = op(rounds_before, shuffle_from(lanes_through_mine, kWarpSize - 1));
  }

  // The total of the warp's run, in order, to every lane, without scanning it: per round, each
  // thread reduces its vector and the warp reduces the 32 vector totals with shuffles down by
  // 1, 2, 4, 8, 16 (lane l then holds lanes l .. l + 2^s - 1 in order, lane 0 all 32).
  template <class T, class Op, int V = kVector<T>>
  __device__ static T reduce_warp(const T (&items)[Items], const Op& op = Op{}) {
    const int lane = lane_id();
    T total = op.template identity<T>();
#pragma unroll
    for (int k = 0; k < Items / V; ++k) {
      T lanes_from_mine = items[k * V];
#pragma unroll
      for (int j = 1; j < V; ++j) lanes_from_mine = op(lanes_from_mine, items[k * V + j]);
#pragma unroll
      for (int width = 1; width < kWarpSize; width *= 2) {
        const T next = shuffle_down(lanes_from_mine, width);
        if (lane + width < kWarpSize) lanes_from_mine = op(lanes_from_mine, next);
      }
      total = op(total, shuffle_from(lanes_from_mine, 0));
    }
    return total;
  }

  template <class T>
  struct BlockTotals {
    T before_warp;  // the reduction of the warps before the calling thread's warp
    T tile;         // the reduction of the whole tile
  };

  // From every warp's total (every lane passes its warp's): one word per warp in shared memory,
  // one barrier, then each thread reduces the words it needs, in warp order. The shared words are
  // free again after the caller's next barrier.
  // Aligned to 16 bytes because ptxas reads the words with 16-byte loads: unaligned, the four
  // totals of a 4-warp block were read as 20 bytes (LDS.128 + LDS), the other 4 being the shared
  // variable next to them (the tuned scan's carry-in slot), and compute-sanitizer's racecheck
  // rightly reported that read as unordered with warp 0's later write of the carry (the value read
  // was dead, but the read was real).
  template <class T, class Op>
  __device__ static BlockTotals<T> combine_warps(T warp_total, const Op& op = Op{}) {
    __shared__ alignas(16) T warp_totals[kWarps];
    const int warp = warp_id();
    if (lane_id() == 0) warp_totals[warp] = warp_total;
    __syncthreads();
    BlockTotals<T> totals{op.template identity<T>(), op.template identity<T>()};
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      if (w == warp) totals.before_warp = totals.tile;
      totals.tile = op(totals.tile, warp_totals[w]);
    }
    return totals;
  }

  // Puts `prefix` in front of every item of the thread.
  template <class T, class Op>
  __device__ static void prepend(T (&items)[Items], T prefix, const Op& op = Op{}) {
    if constexpr (SharedReference::kApplies<T, Op>)
      if (SharedReference::prepend(items, prefix)) return;
#pragma unroll
    for (int i = 0; i < Items; ++i) items[i] = op(prefix, items[i]);
  }
};

}  // namespace scan_zoo::detail
