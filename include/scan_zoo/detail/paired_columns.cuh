// scan_zoo/detail/paired_columns.cuh -- the scan down the two columns of a [length, 2] array (and
// of each [length, 2] slab of an [outer, length, 2] one) as a 1-D scan of `length` items, each
// item a whole row, under the operator applied column by column.
//
// Why: a row of two 4-byte columns is 8 bytes, a quarter of a 32-byte sector, and the column
// kernel (columns_kernel.cuh) moves such narrow tiles one element at a time through shared memory,
// while a row as one item of 8 bytes is what the register-tile kernels move best: whole 16-byte
// vectors straight into registers, no shared-memory staging, one descriptor a tile.
// Which kernel: one slab (outer = 1) of 8-byte pairs is a plain 1-D scan, run by the 1-D kernel
// (tuned_kernel.cuh) in the tile the row-items probe found fastest (FlatPairsConfig below); the
// slabs of a middle axis (outer > 1), and pairs of 1- or 2-byte elements, go to the row kernel
// (rows_kernel.cuh), a line starting every `length` items.
// Measured (bench/NOTES.md, "Narrow columns as row items: the probe", "Two columns as pairs of
// the row kernel", "One slab of pairs through the 1-D kernel"): two float32 columns run at the
// 1-D scan's speed as row items, well ahead of the column kernel; 3 columns (12-byte items) barely
// ahead, and 4 or more (16-byte items and wider) behind it. So only pairs go this way, of
// elements of at most 4 bytes. Forward progress: as the kernel's that runs them (blocks dispatched
// in blockIdx.x order; a tile waits only on tiles with smaller indices).
//
// The operator combines the earlier row's element on the left in each column, so it stays correct
// for every associative operator, commutative or not, with its state. The initial value stands in
// front of both columns; the line totals (Options::total, [outer, 2] row-major) are the last
// item's pair. Taken only when the item is well defined in memory: a plain pointer input (not a
// zip), In, Acc and Out of 1, 2 or 4 bytes, the initial value not in device memory (the kernel
// would read a pair there), and in, out and total aligned to the pair; else the column kernel.
#pragma once

#include <cstdint>
#include <type_traits>

#include "rows_kernel.cuh"
#include "tuned_kernel.cuh"
#include "zip.cuh"

namespace scan_zoo::detail {

// One row of a two-column array: the item the kernels scan.
template <class T>
struct alignas(2 * sizeof(T)) ColumnPair {
  T column[2];

  ColumnPair() = default;
  __host__ __device__ explicit ColumnPair(const T& both) : column{both, both} {}
  // The loads' and stores' conversion (register_tile.cuh: static_cast<Acc>, static_cast<Out>),
  // column by column.
  template <class U>
  __host__ __device__ explicit ColumnPair(const ColumnPair<U>& other)
      : column{static_cast<T>(other.column[0]), static_cast<T>(other.column[1])} {}
};

// The scan's operator applied to each column on its own, its state inside.
template <class Op>
struct EachColumn {
  Op op;
  template <class P>
  __host__ __device__ __forceinline__ P operator()(const P& earlier, const P& later) const {
    P result;
    result.column[0] = op(earlier.column[0], later.column[0]);
    result.column[1] = op(earlier.column[1], later.column[1]);
    return result;
  }
  template <class P>
  __host__ __device__ __forceinline__ P identity() const {
    using T = typename std::remove_reference<decltype(P{}.column[0])>::type;
    return P{op.template identity<T>()};
  }
};

// Pairs of 4-byte elements take tiles of 128 x 16, the table's best for them in the row-items
// probe on both GPUs, not the 256 x 12 of the other 8-byte values (chosen for the linear
// recurrence's maps, whose operator costs more): on the H200 at 2^25 rows of 2, 151.7 us against
// 158.5; 256 x 16 at the row kernel's three blocks an SM spilled under Min and Max
// (bench/NOTES.md, "Two columns as pairs of the row kernel").
template <class T>
struct RowsTile<ColumnPair<T>> {
  static constexpr int kThreads = sizeof(ColumnPair<T>) == 8 ? 128 : RowsTile<std::uint32_t>::kThreads;
  static constexpr int kItems = sizeof(ColumnPair<T>) == 8 ? 16 : RowsTile<std::uint32_t>::kItems;
};

// One slab of 8-byte pairs (outer = 1) needs no row arithmetic: the 1-D kernel (tuned_kernel.cuh)
// scans it in the tile the row-items probe found fastest on both GPUs (the table's 128 x 16,
// exchange, dense, a window of 32, 200 ns of sleep before the first poll).
using FlatPairsConfig = TunedConfig<128, 16, Publish::Exchange, 1, 1, 200, Aggregate::AfterScan>;
template <class Acc>
inline constexpr bool kFlatPairs = sizeof(ColumnPair<Acc>) == 8;

// Whether a scan of these types may go as pairs at all; the rest is at run time (pairable below).
template <class T>
inline constexpr bool kPairableSize = sizeof(T) <= 4 && (sizeof(T) & (sizeof(T) - 1)) == 0;
template <class In, class Out, class Acc>
inline constexpr bool kPairable = std::is_same<typename InputPointer<In>::type, const In*>::value &&
                                  kPairableSize<In> && kPairableSize<Out> && kPairableSize<Acc>;

template <class T>
bool pair_aligned(const T* pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer) % alignof(ColumnPair<T>) == 0;
}

// Whether this scan of two columns goes as pairs: its pointers aligned to the pair, and no initial
// value in device memory.
template <class Args>
bool pairable(const Args& args) {
  return pair_aligned(args.in) && pair_aligned(args.out) && pair_aligned(args.total) &&
         args.front.initial_in_memory == nullptr;
}

// The arguments of the row kernel's scan of the rows as pairs, from those of the scan of `n`
// elements down two columns.
template <class Args>
auto as_pairs(const Args& args) {
  using In = typename Args::InT;
  using Out = typename Args::OutT;
  using Acc = typename Args::AccT;
  using Pairs = ScanArgs<ColumnPair<In>, ColumnPair<Out>, ColumnPair<Acc>, EachColumn<typename Args::OpT>,
                         Args::kReverse>;
  return Pairs{reinterpret_cast<const ColumnPair<In>*>(args.in),
               reinterpret_cast<ColumnPair<Out>*>(args.out),
               args.n / 2,
               args.exclusive,
               {ColumnPair<Acc>(args.front.initial)},
               {args.op},
               reinterpret_cast<ColumnPair<Out>*>(args.total)};
}

}  // namespace scan_zoo::detail
