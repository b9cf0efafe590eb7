// scan_zoo/extremes.cuh -- the running maximum and minimum along one axis of a batched array, with
// where each came from (torch.cummax and torch.cummin: values and indices). Header-only, like
// scan.cuh; a preview, as axis.cuh is (outside version 1.0's promise, CHANGELOG.md).
//
//   #include <scan_zoo/extremes.cuh>
//
//   scan_zoo::Workspace workspace;
//   // along the last axis of a float [rows, length] tensor; int64 indices, as torch's:
//   cudaError_t e = scan_zoo::cummax(d_x, d_values, d_indices, scan_zoo::Shape{rows, length}, workspace, stream);
//
//   cummax(in, values, indices, shape, workspace, stream = 0)
//       along every line of shape ([outer, length, inner], axis.cuh): values[t] = the largest of
//       in[0 .. t] and indices[t] the index along the line of the element it came from.
//   cummin(...), reverse_cummax(...), reverse_cummin(...): the smallest; from each line's end
//       (values[t] the extreme of in[t .. length - 1]).
//   indices may be null: the values alone (numpy's maximum.accumulate, jax.lax.cummax), with the
//   same rules and no index traffic.
// The rules, torch's (its CPU and CUDA kernels agree; the package's tests hold scan_zoo to them):
// a tie goes to the later element (the larger index; reversed, the smaller); a NaN wins over
// every number and a later NaN over an earlier one, so that from the first NaN on the values stay
// NaN, each with the latest NaN's index.
// Types: T any type that compares with < and ==: bool, the integers, __half and __nv_bfloat16
// (compared in float, which changes no value), float, double; values of T, indices of any
// integer type I. Position, the first template parameter (std::int64_t by default), is the index
// type the scan carries: std::int32_t makes a smaller accumulator (8 bytes with a 32-bit value
// instead of 16, and more tiles in flight: bench/NOTES.md, "torch's scan ops") and serves lines
// of at most 2^31 - 1 elements (cudaErrorInvalidValue for longer ones).
// Errors, streams, the workspace and forward progress: as axis.cuh.
//
// How: the pair (value, index) is the scan's accumulator (ValueIndex) and MaxWithIndex or
// MinWithIndex its operator, which keeps the later operand on a tie: not commutative, but
// associative, since it takes the maximum in one total order (NaN above every number, then the
// value, then the position in scan order). The index is not read from memory: the kernels number
// each element as they load it (detail/indexed_elements.cuh, Numbered), and write each pair as
// its value and its index to the two arrays (Split). The kernels are axis.cuh's row and column
// kernels (a 1-D array is one row).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "axis.cuh"
#include "detail/indexed_elements.cuh"

namespace scan_zoo {

// A value and the index along its line of the element it came from; index < 0 is no element
// (the identity of the operators below).
template <class T, class I>
struct ValueIndex {
  T value;
  I index;

  ValueIndex() = default;
  __host__ __device__ constexpr ValueIndex(T v, I i) : value(v), index(i) {}
  // An element as loaded, before the kernel numbers it.
  template <class U>
  __host__ __device__ explicit ValueIndex(const detail::Numbered<U>& element)
      : value(static_cast<T>(element.value)), index(-1) {}
};

namespace detail {

// Whether the later operand of a pair wins: a NaN always, a number over an earlier number when
// Better(later, earlier) or equal (a tie goes to the later); an earlier NaN is kept.
// Without a branch: one predicate and a select per field (bitwise & and |, no short circuit). The
// form with early returns compiled each combine into a diamond of branches with a reconvergence
// point, and a scan runs a combine per element and per shuffle step (bench/NOTES.md, "torch's
// scan ops: cummax's pairs").
template <class Better>
struct KeepsLaterOnTies {
  template <class P>
  __host__ __device__ P operator()(const P& earlier, const P& later) const {
    const bool later_nan = later.value != later.value, earlier_nan = earlier.value != earlier.value;
    const bool later_wins = (later.index >= 0) & ((earlier.index < 0) | later_nan |
                                                  (!earlier_nan & !Better{}(earlier.value, later.value)));
    return P(later_wins ? later.value : earlier.value, later_wins ? later.index : earlier.index);
  }
  template <class P>
  __host__ __device__ static P identity() {
    return P(typename std::remove_cv<decltype(P::value)>::type{}, -1);
  }
};

struct Greater {
  template <class T>
  __host__ __device__ bool operator()(const T& a, const T& b) const { return a > b; }
};
struct Less {
  template <class T>
  __host__ __device__ bool operator()(const T& a, const T& b) const { return a < b; }
};

}  // namespace detail

// The operators on ValueIndex pairs (the top of this file): the larger (smaller) value, ties and
// NaNs to the later operand.
using MaxWithIndex = detail::KeepsLaterOnTies<detail::Greater>;
using MinWithIndex = detail::KeepsLaterOnTies<detail::Less>;

namespace detail {

// The row kernel's blocks an SM for a pair of 8 bytes (a 32-bit value, or a 16-bit float held as
// float, or a narrower integer, beside a 32-bit position), without line totals: 4 at the default
// 12 items, where ptxas fits the kernel in 64 registers without a spill; 1.10x faster along rows
// of 131072 and one line of 2^26 than at 3 blocks (of 8, 12 and 16 items at 2 to 4 blocks it was
// the fastest but at 8 x 131072: bench/NOTES.md, "torch's scan ops: cummax's pairs"). Values of
// one byte (int8 and bool spilled 4 bytes at 4, nvcc 13.0) and wider pairs keep rows_kernel.cuh's
// rule by size.
template <class T, class I, class Op>
inline constexpr int kRowsBlocksPerSm<ValueIndex<T, I>, Op, false> =
    sizeof(ValueIndex<T, I>) == 8 && sizeof(T) > 1 ? 4 : kRowsBlocksPerSmBySize<ValueIndex<T, I>, Op, false>;

// What a pair holds a value of T as: float for the 16-bit floats (as accumulator_t does), T else.
template <class T>
using ComparedAs = accumulator_t<UseDefault, T>;

template <class Position, class Op, bool Reverse, class T, class I>
cudaError_t running_extreme(const T* in, T* values, I* indices, const Shape& shape, Workspace& workspace,
                            cudaStream_t stream) {
  static_assert(std::is_integral<Position>::value && std::is_signed<Position>::value && std::is_integral<I>::value,
                "scan_zoo: the indices are integers, and Position a signed integer type");
  if (shape.length > std::int64_t(std::numeric_limits<Position>::max())) return cudaErrorInvalidValue;
  using Pair = ValueIndex<ComparedAs<T>, Position>;
  using Out = Split<T, I>;
  return scan_along<Pair, Reverse, Numbered<T>, LineTotals::Never>(
      reinterpret_cast<const Numbered<T>*>(in), SplitPointer<T, I>{values, indices}, shape, ScanKind::Inclusive,
      IdentityInFront{}, Op{}, workspace, stream, Options<Out>{});
}

}  // namespace detail

template <class Position = std::int64_t, class T, class I>
cudaError_t cummax(const T* in, T* values, I* indices, const Shape& shape, Workspace& workspace, cudaStream_t stream = 0) {
  return detail::running_extreme<Position, MaxWithIndex, false>(in, values, indices, shape, workspace, stream);
}

template <class Position = std::int64_t, class T, class I>
cudaError_t cummin(const T* in, T* values, I* indices, const Shape& shape, Workspace& workspace, cudaStream_t stream = 0) {
  return detail::running_extreme<Position, MinWithIndex, false>(in, values, indices, shape, workspace, stream);
}

template <class Position = std::int64_t, class T, class I>
cudaError_t reverse_cummax(const T* in, T* values, I* indices, const Shape& shape, Workspace& workspace,
                           cudaStream_t stream = 0) {
  return detail::running_extreme<Position, MaxWithIndex, true>(in, values, indices, shape, workspace, stream);
}

template <class Position = std::int64_t, class T, class I>
cudaError_t reverse_cummin(const T* in, T* values, I* indices, const Shape& shape, Workspace& workspace,
                           cudaStream_t stream = 0) {
  return detail::running_extreme<Position, MinWithIndex, true>(in, values, indices, shape, workspace, stream);
}

// Bytes of device memory that a Workspace(memory, bytes) needs for these scans of `shape` with
// values of T and Position indices.
template <class T, class Position = std::int64_t>
std::size_t extremes_workspace_bytes(const Shape& shape) {
  return workspace_bytes<ValueIndex<detail::ComparedAs<T>, Position>, T>(shape);
}

}  // namespace scan_zoo
