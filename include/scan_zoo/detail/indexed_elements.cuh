// scan_zoo/detail/indexed_elements.cuh -- the elements of a scan that says where its result came
// from (extremes.cuh: cummax and cummin with indices), in the kernels' own terms:
//   - Numbered<T>: an input element that the kernels number, as they load it, with its index
//     along its line. It has T's layout, so the caller's array of T is read as it is; no index is
//     read from memory.
//   - Split<T, I>: an output element of two parts, the value and the index, written to two arrays
//     (SplitPointer), each with its own stores, as zip.cuh's pairs are read from two.
// A kernel reads its input through InputPointer<In> (zip.cuh) and writes through
// OutputPointer<Out> (below); the row and column kernels number a Numbered input's items right
// after their loads. They reach the accumulator only through three hooks, so that an accumulator
// may hold its value and index its own way (extremes.cuh: ValueIndex's members, or the one word of
// a RankedPosition):
//   - assign_index(acc, index): the item's index along its line, right after its load;
//   - value_part(acc), index_part(acc): what Split writes;
//   - kIndexBytes<Acc>: the bytes of the index it holds (4: lines under 2^31 elements).
// The forms here read and write members `value` and `index`; an accumulator of another layout
// declares its own beside it, found by argument-dependent lookup where the kernels call them.
#pragma once

#include <cstdint>
#include <type_traits>

#include "zip.cuh"

namespace scan_zoo::detail {

template <class T>
struct Numbered {
  T value;
};

template <class In>
inline constexpr bool kNumbered = false;
template <class T>
inline constexpr bool kNumbered<Numbered<T>> = true;

template <class Acc>
__host__ __device__ void assign_index(Acc& acc, std::int64_t index) {
  acc.index = static_cast<decltype(acc.index)>(index);
}
template <class Pair>
__host__ __device__ auto value_part(const Pair& pair) -> decltype(pair.value) {
  return pair.value;
}
template <class Pair>
__host__ __device__ auto index_part(const Pair& pair) -> decltype(pair.index) {
  return pair.index;
}
template <class Acc>
inline constexpr int kIndexBytes = sizeof(Acc::index);

template <class T, class I>
struct Split {
  T value;
  I index;

  Split() = default;
  // From an accumulator with a value and an index (extremes.cuh's ValueIndex or RankedPosition).
  template <class Pair>
  __host__ __device__ explicit Split(const Pair& pair)
      : value(static_cast<T>(value_part(pair))), index(static_cast<I>(index_part(pair))) {}
};

// The two arrays; a null `indices` writes the values alone (and stays null as the pointer moves).
template <class T, class I>
struct SplitPointer {
  T* values;
  I* indices;

  __host__ __device__ SplitPointer operator+(std::int64_t offset) const {
    return {values + offset, indices ? indices + offset : nullptr};
  }
  __host__ __device__ SplitPointer operator-(std::int64_t offset) const { return *this + -offset; }
};

// What a scan of Out elements writes through: an Out*, or a split output's two arrays.
template <class Out>
struct OutputPointer {
  using type = Out*;
};
template <class T, class I>
struct OutputPointer<Split<T, I>> {
  using type = SplitPointer<T, I>;
};

// A split output's stores go by vectors of as many items in both arrays, counted in the wider
// array (as a zip's loads are): 16 bytes of int64 indices a store, 8 of float values. Counted in
// the values, each thread's 16-byte vector of four floats took two 16-byte index stores 16 bytes
// apart, so a warp's store instruction wrote half of every 32-byte sector it touched, and that
// alone cost 1.26-1.35x on a copy of cummax's bytes (bench/NOTES.md, "torch's scan ops: cummax
// in one word"); counted in the wider array, cummax ran 1.03-1.16x faster ("torch's scan ops:
// split stores, the values alone, widening columns").
template <class T, class I>
struct VectorUnit<Split<T, I>> {
  using type = typename std::conditional<(sizeof(T) >= sizeof(I)), T, I>::type;
};

}  // namespace scan_zoo::detail
