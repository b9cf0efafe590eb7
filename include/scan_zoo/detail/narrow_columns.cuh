// scan_zoo/detail/narrow_columns.cuh -- the scan down the C columns of a [length, C] array, C = 2,
// 3 or 4 (and down the two columns of each [length, 2] slab of an [outer, length, 2] one), as a
// 1-D scan of `length` items, each item a whole row, under the operator applied column by column.
//
// Why: a row of two to four 4-byte columns is 8 to 16 bytes, under a 32-byte sector, and the
// column kernel (columns_kernel.cuh) moves such narrow tiles one element at a time through shared
// memory and looks back with a descriptor word per column, while a row as one item is what the
// register-tile kernels move best: whole vectors straight into registers, no shared-memory
// staging, one descriptor a tile (for 12- and 16-byte rows, grid/descriptors.cuh's
// PackedTileStatePieces: a relaxed word a 4-byte piece, one round trip).
// Which kernel: one slab (outer = 1) is a plain 1-D scan, run by the 1-D kernel (tuned_kernel.cuh)
// in the tile the row-items probe (probes/row_items.cu) found fastest: FlatRowsConfig<C> below. The
// slabs of a middle axis (outer > 1) go to the row kernel (rows_kernel.cuh), a line starting every
// `length` items, for two columns only (its tiles of 12- and 16-byte items fit one block an SM);
// wider ones, and 3 or 4 columns of a middle axis, stay in the column kernel.
// Measured (bench/NOTES.md, "Narrow columns as row items: the probe", "Two columns as pairs of
// the row kernel", "One slab of pairs through the 1-D kernel", "Three and four columns as row
// items"): two float32 columns run at the 1-D scan's speed as row items, well ahead of the column
// kernel; three and four columns ahead of it with the pieced descriptor (which the 12- and
// 16-byte items lacked when the probe first ran them, and lost); 8 columns (32-byte items) behind
// it. Forward progress: as the kernel's that runs them (blocks dispatched in blockIdx.x order; a
// tile waits only on tiles with smaller indices).
//
// The operator combines the earlier row's element on the left in each column, so it stays correct
// for every associative operator, commutative or not, with its state. The initial value stands in
// front of every column; the line totals (Options::total, [outer, C] row-major) are the last
// item's row. Taken only when the item is well defined in memory: a plain pointer input (not a
// zip); In, Acc and Out of 1, 2 or 4 bytes for two columns, of 4 bytes for three and four; the
// initial value not in device memory (the kernel would read a row there); and in, out and total
// aligned to the row; else the column kernel.
#pragma once

#include <cstdint>
#include <type_traits>

#include "rows_kernel.cuh"
#include "tuned_kernel.cuh"
#include "indexed_elements.cuh"

namespace scan_zoo::detail {

// A row of C <= 4 elements of T aligned to its size where that is a power of two (the vector
// loads'), else to T's (12 bytes: loaded a T at a time).
template <class T, int C>
inline constexpr std::size_t kRowAlignment = (C & (C - 1)) == 0 ? C * sizeof(T) : sizeof(T);

// One row of a C-column array: the item the kernels scan.
template <class T, int C>
struct alignas(kRowAlignment<T, C>) ColumnRow {
  static constexpr int kColumns = C;
  T column[C];

  ColumnRow() = default;
  __host__ __device__ explicit ColumnRow(const T& every) {
    for (int c = 0; c < C; ++c) column[c] = every;
  }
  // The loads' and stores' conversion (register_tile.cuh: static_cast<Acc>, static_cast<Out>),
  // column by column.
  template <class U>
  __host__ __device__ explicit ColumnRow(const ColumnRow<U, C>& other) {
    for (int c = 0; c < C; ++c) column[c] = static_cast<T>(other.column[c]);
  }
};

// The scan's operator applied to each column on its own, its state inside.
template <class Op>
struct EachColumn {
  Op op;
  template <class R>
  __host__ __device__ __forceinline__ R operator()(const R& earlier, const R& later) const {
    R result;
    for (int c = 0; c < R::kColumns; ++c) result.column[c] = op(earlier.column[c], later.column[c]);
    return result;
  }
  template <class R>
  __host__ __device__ __forceinline__ R identity() const {
    using T = typename std::remove_reference<decltype(R{}.column[0])>::type;
    return R{op.template identity<T>()};
  }
};

// Pairs of 4-byte elements take tiles of 128 x 16 in the row kernel, the table's best for them in
// the row-items probe on both GPUs, not the 256 x 12 of the other 8-byte values (chosen for the
// linear recurrence's maps, whose operator costs more); 256 x 16 at the row kernel's three blocks
// an SM spilled under Min and Max (bench/NOTES.md, "Two columns as pairs of the row kernel").
template <class T>
struct RowsTile<ColumnRow<T, 2>> {
  static constexpr int kThreads = sizeof(ColumnRow<T, 2>) == 8 ? 128 : RowsTile<std::uint32_t>::kThreads;
  static constexpr int kItems = sizeof(ColumnRow<T, 2>) == 8 ? 16 : RowsTile<std::uint32_t>::kItems;
};

// One slab of rows needs no row arithmetic: the 1-D kernel (tuned_kernel.cuh) scans it in the
// tile the row-items probe found fastest, a configuration of the shipped table: for 8-byte pairs
// 128 x 16, exchange, dense descriptors, a window of 32, 200 ns of sleep before the first poll
// (both GPUs); for rows of 3 and 4 float32 128 x 8, exchange, a descriptor a sector, a window of
// 32, 600 ns of sleep (the H200; bench/NOTES.md, "Three and four columns as row items").
template <int C>
using FlatRowsConfig = std::conditional_t<C == 2, TunedConfig<128, 16, Publish::Exchange, 1, 1, 200, Aggregate::AfterScan>,
                                          TunedConfig<128, 8, Publish::Exchange, 4, 1, 600, Aggregate::AfterScan>>;

// Whether a scan of these types may go as rows of C at all (plain pointers in and out; and, for
// two columns, through the row kernel too); the rest is at run time (row_aligned below).
template <class T>
inline constexpr bool kPairableSize = sizeof(T) <= 4 && (sizeof(T) & (sizeof(T) - 1)) == 0;
template <class In, class Out, class Acc, int C>
inline constexpr bool kRowItems =
    std::is_same<typename InputPointer<In>::type, const In*>::value && !kNumbered<In> &&
    std::is_same<typename OutputPointer<Out>::type, Out*>::value &&
    (C == 2 ? kPairableSize<In> && kPairableSize<Out> && kPairableSize<Acc>
            : sizeof(In) == 4 && sizeof(Out) == 4 && sizeof(Acc) == 4);
// One slab of pairs goes to the 1-D kernel only as 8-byte items (pairs of 1- or 2-byte elements
// stay in the row kernel, whose tiles they were measured in).
template <class Acc, int C>
inline constexpr bool kFlatRows = C != 2 || sizeof(ColumnRow<Acc, 2>) == 8;

template <int C, class T>
bool row_aligned(const T* pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer) % alignof(ColumnRow<T, C>) == 0;
}

// Whether this scan of C columns goes as rows: its pointers aligned to the row, and no initial
// value in device memory.
template <int C, class Args>
bool rows_as_items(const Args& args) {
  return row_aligned<C>(args.in) && row_aligned<C>(args.out) && row_aligned<C>(args.total) &&
         args.front.initial_in_memory == nullptr;
}

// The arguments of the scan of the rows as items, from those of the scan of `n` elements down C
// columns.
template <int C, class Args>
auto as_rows(const Args& args) {
  using In = typename Args::InT;
  using Out = typename Args::OutT;
  using Acc = typename Args::AccT;
  using Rows = ScanArgs<ColumnRow<In, C>, ColumnRow<Out, C>, ColumnRow<Acc, C>, EachColumn<typename Args::OpT>,
                        Args::kReverse, Args::kOrder>;
  return Rows{reinterpret_cast<const ColumnRow<In, C>*>(args.in),
              reinterpret_cast<ColumnRow<Out, C>*>(args.out),
              args.n / C,
              args.exclusive,
              {ColumnRow<Acc, C>(args.front.initial)},
              {args.op},
              reinterpret_cast<ColumnRow<Out, C>*>(args.total),
              args.fixed_at_run};
}

}  // namespace scan_zoo::detail
