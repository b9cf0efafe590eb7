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
//   same rules, no index traffic and a smaller accumulator (below).
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
// How: the scan takes the maximum in one total order: NaN above every number, then the value,
// then the position in scan order (so a tie goes to the later element). Its accumulator is
//   - for values of at most 32 bits with a 32-bit Position, one 64-bit word (RankedPosition): the
//     value's rank in that order in the high half, the position below it, and the operator the
//     larger word (LargerWord), one unsigned compare; a NaN comes back as the default quiet NaN
//     (its sign and payload are not kept), every number bit for bit, -0.0 included;
//   - else the pair (value, index) (ValueIndex), with MaxWithIndex or MinWithIndex, which keep
//     the later operand on a tie: not commutative, but associative;
//   - for the values alone, the value (LaterUnlessBetter): a NaN comes back bit for bit.
// The index is not read from memory: the kernels number each element as they load it
// (detail/indexed_elements.cuh, Numbered), and write each result as its value and its index to
// the two arrays (Split). The kernels are axis.cuh's row and column kernels (a 1-D array is one
// row).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <cuda/std/limits>
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

// What a pair holds a value of T as: float for the 16-bit floats (as accumulator_t does), T else.
template <class T>
using ComparedAs = accumulator_t<UseDefault, T>;

// ---- One word a result: RankedPosition ----
// The order of the scan (the top of this file) as an unsigned 64-bit word:
//   bits 63..32  the value's rank: a 32-bit key in the value's order, every NaN the largest
//                (0xffffffff); for the minimum, the numbers' keys reversed (~key), NaN still the
//                largest, since a NaN wins either way;
//   bits 31..1   the position in scan order: the index along the line, or 2^31 - 1 - index
//                reversed, so a tie goes to the later element;
//   bit 0        the sign of a zero: -0.0 and 0.0 compare equal, so they share a rank, and the
//                bit brings the sign back; below the position, it never decides.
// The operator is then the larger word: an unsigned compare and a select a combine, against the
// pair's NaN tests and compares (bench/NOTES.md, "torch's scan ops: cummax in one word").
// RankedAs<T>: the type a value is ranked as, float for the floating types (exact for the 16-bit
// ones), else a 32-bit integer of T's signedness.
template <class T>
using RankedAs = std::conditional_t<std::is_floating_point<ComparedAs<T>>::value, float,
                                    std::conditional_t<std::is_signed<T>::value, std::int32_t, std::uint32_t>>;

template <class C, class Better, bool Reverse>
struct RankedPosition {
  static constexpr bool kMin = std::is_same<Better, Less>::value;
  static constexpr std::uint32_t kNanRank = 0xffffffffu, kLastPosition = 0x7fffffffu;
  std::uint64_t word;

  RankedPosition() = default;
  __host__ __device__ constexpr explicit RankedPosition(std::uint64_t w) : word(w) {}
  // An element as loaded: its rank (and a zero's sign), at position 0 until the kernel numbers it.
  template <class U>
  __host__ __device__ explicit RankedPosition(const Numbered<U>& element) : word(rank_word(static_cast<C>(element.value))) {}

  __host__ __device__ static std::uint64_t rank_word(C v) {
    std::uint32_t key, zero_sign = 0;
    if constexpr (std::is_floating_point<C>::value) {
      std::uint32_t bits;
      memcpy(&bits, &v, sizeof bits);
      zero_sign = v == C(0) ? bits >> 31 : 0u;
      bits = v == C(0) ? 0u : bits;
      key = bits ^ (bits >> 31 ? 0xffffffffu : 0x80000000u);  // sign-magnitude to unsigned order
      key = kMin ? ~key : key;
      key = v != v ? kNanRank : key;
    } else {
      key = std::is_signed<C>::value ? static_cast<std::uint32_t>(v) ^ 0x80000000u : static_cast<std::uint32_t>(v);
      key = kMin ? ~key : key;
    }
    return std::uint64_t(key) << 32 | zero_sign;
  }
  __host__ __device__ C value() const {
    const std::uint32_t rank = static_cast<std::uint32_t>(word >> 32), key = kMin ? ~rank : rank;
    if constexpr (std::is_floating_point<C>::value) {
      std::uint32_t bits = (key & 0x80000000u ? key ^ 0x80000000u : ~key) | (static_cast<std::uint32_t>(word) << 31);
      C v;
      memcpy(&v, &bits, sizeof v);
      return rank == kNanRank ? cuda::std::numeric_limits<C>::quiet_NaN() : v;
    } else {
      return static_cast<C>(std::is_signed<C>::value ? key ^ 0x80000000u : key);
    }
  }
  __host__ __device__ std::int32_t index() const {
    const std::uint32_t position = static_cast<std::uint32_t>(word) >> 1;
    return static_cast<std::int32_t>(Reverse ? kLastPosition - position : position);
  }
};

// The hooks by which the kernels number and split a result (detail/indexed_elements.cuh).
template <class C, class Better, bool Reverse>
__host__ __device__ void assign_index(RankedPosition<C, Better, Reverse>& acc, std::int64_t index) {
  const std::uint32_t i = static_cast<std::uint32_t>(index);
  acc.word |= std::uint64_t(Reverse ? RankedPosition<C, Better, Reverse>::kLastPosition - i : i) << 1;
}
template <class C, class Better, bool Reverse>
__host__ __device__ C value_part(const RankedPosition<C, Better, Reverse>& acc) {
  return acc.value();
}
template <class C, class Better, bool Reverse>
__host__ __device__ std::int32_t index_part(const RankedPosition<C, Better, Reverse>& acc) {
  return acc.index();
}
template <class C, class Better, bool Reverse>
inline constexpr int kIndexBytes<RankedPosition<C, Better, Reverse>> = 4;

// The row kernel's blocks an SM for a word: 4 (64 registers, no spill for any value type, nvcc
// 13.0), where rows_kernel.cuh's rule for 8-byte accumulators takes 3 (72 registers): 1.09-1.13x
// faster along rows of 131072 and one line of 2^26 (bench/NOTES.md, "torch's scan ops: cummax in
// one word"; the pairs it replaced were fastest at 4 too, "cummax's pairs").
template <class C, class Better, bool Reverse, class Op>
inline constexpr int kRowsBlocksPerSm<RankedPosition<C, Better, Reverse>, Op, false> = 4;

// RankedPosition's operator: the larger word (no two elements' words are equal: their positions
// differ); the identity is the word 0, below every element's.
struct LargerWord {
  template <class P>
  __host__ __device__ P operator()(const P& earlier, const P& later) const {
    return later.word > earlier.word ? later : earlier;
  }
  template <class P>
  __host__ __device__ static P identity() {
    return P(std::uint64_t(0));
  }
};

// The accumulator and operator of a scan of T values with Position indices, Op one of the pair
// operators above: one word where the value ranks in 32 bits and the position fits 31, else the
// pair.
template <class T, class Position, class Op, bool Reverse, bool OneWord = sizeof(T) <= 4 && sizeof(Position) <= 4>
struct ExtremeAccumulator {
  using Acc = ValueIndex<ComparedAs<T>, Position>;
  using Operator = Op;
};
template <class T, class Position, class Better, bool Reverse>
struct ExtremeAccumulator<T, Position, KeepsLaterOnTies<Better>, Reverse, true> {
  using Acc = RankedPosition<RankedAs<T>, Better, Reverse>;
  using Operator = LargerWord;
};

// ---- The values alone: one value a result ----
// With no indices to write, the accumulator is the value itself (LatestValue: 4 bytes for every
// type of at most 32 bits, against the word's 8) and the operator the same rule on values:
// the later operand unless the earlier is better, or a NaN that the later is not. It picks the
// latest of the best elements, as the pairs do, so the result is that element's value, bit for
// bit (a NaN's sign and payload too, and a zero's sign). Its identity is the value below every
// number (-inf for the maximum of a float, the type's lowest integer), which the later operand
// of a tie beats, so it is an identity on both sides.
// The value is held as it compares (ComparedAs), widened to 32 bits (RankedAs) where narrower
// (accumulators of one byte spilled hundreds of bytes in the column kernel and in the rows of two
// columns), in a type of its own: on a plain float the row kernel spilled 8-16 bytes at 3 and at
// 4 blocks an SM in four forms of the operator's NaN tests, and at 2 blocks it ran 1.2x slower
// than at 3 (nvcc 13.0; bench/NOTES.md, "torch's scan ops: split stores, the values alone,
// widening columns").
template <class T>
using ValueAs = std::conditional_t<(sizeof(ComparedAs<T>) < 4), RankedAs<T>, ComparedAs<T>>;

template <class V>
struct LatestValue {
  V value;
  LatestValue() = default;
  // An element as loaded, and a result as stored.
  template <class U>
  __host__ __device__ explicit LatestValue(const U& element) : value(static_cast<V>(element)) {}
  template <class U>
  __host__ __device__ explicit operator U() const {
    return static_cast<U>(value);
  }
};

template <class Better>
struct LaterUnlessBetter {
  template <class V>
  __host__ __device__ LatestValue<V> operator()(const LatestValue<V>& earlier, const LatestValue<V>& later) const {
    const V e = earlier.value, l = later.value;
    const bool earlier_wins = Better{}(e, l) | ((e != e) & (l == l));
    return earlier_wins ? earlier : later;
  }
  template <class P>
  __host__ __device__ static P identity() {
    using V = decltype(P::value);
    using Limits = cuda::std::numeric_limits<V>;
    constexpr bool kMax = std::is_same<Better, Greater>::value;
    if constexpr (Limits::has_infinity) return P(kMax ? -Limits::infinity() : Limits::infinity());
    else return P(kMax ? Limits::lowest() : Limits::max());
  }
};

// The values alone of T scan this (running_extreme, and extremes_workspace_bytes, which must agree).
template <class T>
using ValuesAccumulator = LatestValue<ValueAs<T>>;

template <class Op>
struct ValuesOperator;
template <class Better>
struct ValuesOperator<KeepsLaterOnTies<Better>> {
  using type = LaterUnlessBetter<Better>;
};

template <class Position, class Op, bool Reverse, class T, class I>
cudaError_t running_extreme(const T* in, T* values, I* indices, const Shape& shape, Workspace& workspace,
                            cudaStream_t stream) {
  static_assert(std::is_integral<Position>::value && std::is_signed<Position>::value && std::is_integral<I>::value,
                "scan_zoo: the indices are integers, and Position a signed integer type");
  if (shape.length > std::int64_t(std::numeric_limits<Position>::max())) return cudaErrorInvalidValue;
  if (indices == nullptr)
    return scan_along<ValuesAccumulator<T>, Reverse, T, LineTotals::Never>(
        in, values, shape, ScanKind::Inclusive, IdentityInFront{}, typename ValuesOperator<Op>::type{}, workspace,
        stream, Options<T>{});
  using Chosen = ExtremeAccumulator<T, Position, Op, Reverse>;
  using Out = Split<T, I>;
  return scan_along<typename Chosen::Acc, Reverse, Numbered<T>, LineTotals::Never>(
      reinterpret_cast<const Numbered<T>*>(in), SplitPointer<T, I>{values, indices}, shape, ScanKind::Inclusive,
      IdentityInFront{}, typename Chosen::Operator{}, workspace, stream, Options<Out>{});
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
  using Acc = typename detail::ExtremeAccumulator<T, Position, MaxWithIndex, false>::Acc;  // the same size for all four
  const std::size_t with_indices = workspace_bytes<Acc, T>(shape);
  const std::size_t values_alone = workspace_bytes<detail::ValuesAccumulator<T>, T>(shape);
  return with_indices > values_alone ? with_indices : values_alone;
}

}  // namespace scan_zoo
