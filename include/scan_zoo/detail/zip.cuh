// scan_zoo/detail/zip.cuh -- two arrays read as one input of pairs, for the scans whose element
// is made of two numbers that live in two tensors: the linear recurrence's (a[t], b[t])
// (linear_recurrence.cuh). No pair is ever stored: a tile loads each array with its own vector
// loads and pairs the registers (RegisterTile::load's ZipPointer form), so the pairs cost no
// traffic beyond the two arrays' own bytes.
//
// The kernels take their input as `args.in + offset` and `args.in[i]`: a ZipPointer answers both
// for both arrays at once, and InputPointer<In> names the pointer type a scan of In elements
// reads through (const In* for every other In).
#pragma once

#include <cstdint>
#include <type_traits>

namespace scan_zoo::detail {

// One element of a zipped input: first from the first array, second from the second.
template <class A, class B>
struct Zip {
  A first;
  B second;
};

template <class A, class B>
struct ZipPointer {
  const A* first;
  const B* second;

  __host__ __device__ ZipPointer operator+(std::int64_t offset) const { return {first + offset, second + offset}; }
  __host__ __device__ ZipPointer operator-(std::int64_t offset) const { return {first - offset, second - offset}; }
  __host__ __device__ Zip<A, B> operator[](std::int64_t i) const { return {first[i], second[i]}; }
};

template <class In>
struct InputPointer {
  using type = const In*;
};
template <class A, class B>
struct InputPointer<Zip<A, B>> {
  using type = ZipPointer<A, B>;
};

// The element type a vector access counts in: the element itself, the wider of a zip's two
// arrays (each array goes by vectors of its own type, as many elements per vector for both), as
// for a split output's two (indexed_elements.cuh).
template <class In>
struct VectorUnit {
  using type = In;
};
template <class A, class B>
struct VectorUnit<Zip<A, B>> {
  using type = typename std::conditional<(sizeof(A) >= sizeof(B)), A, B>::type;
};

}  // namespace scan_zoo::detail
