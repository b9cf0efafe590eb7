// scan_zoo/operators.cuh -- the operators the library ships, and what an operator of your own
// needs. Included by scan.cuh.
//
// An operator is an associative functor on T with
//   __host__ __device__ T operator()(const T& a, const T& b) const   (a holds the earlier elements:
//                                                                      never assumed commutative)
//   template <class U> __host__ __device__ static U identity()       (op(identity, x) == x == op(x, identity))
// The kernels pad the last tile and start every running prefix with the identity, in registers,
// with no branch on whether a slot is real (CUB guards its partial tiles instead). An operator
// without an identity (a semigroup, such as "keep the first") gets one adjoined: scan
// Adjoined<T> elements with AdjoinIdentity<YourOp>.
#pragma once

#include <cuda/std/limits>
#include <cuda/std/type_traits>

namespace scan_zoo {

// Sums. Integer sums wrap (two's complement): the addition is done in the unsigned type, where
// the wrap is defined, instead of signed overflow, which is undefined behaviour in C++.
struct Plus {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (cuda::std::is_integral_v<T>) {
      using U = cuda::std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
  template <class T>
  __host__ __device__ __forceinline__ static T identity() { return T(0); }
};

struct Max {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(T a, T b) const { return b > a ? b : a; }
  template <class T>
  __host__ __device__ __forceinline__ static T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity)
      return -cuda::std::numeric_limits<T>::infinity();
    else
      return cuda::std::numeric_limits<T>::lowest();
  }
};

struct Min {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(T a, T b) const { return b < a ? b : a; }
  template <class T>
  __host__ __device__ __forceinline__ static T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity)
      return cuda::std::numeric_limits<T>::infinity();
    else
      return cuda::std::numeric_limits<T>::max();
  }
};

// Every operator has an identity after adjoining a new element, "absent", that each side passes
// through: scan Adjoined<T> elements ({value, true}) with AdjoinIdentity<Op>; its identity is
// {T{}, false}. The price is the flag's bytes in each element (padded to T's alignment).
template <class T>
struct Adjoined {
  T value;
  bool present;
};

template <class Semigroup>
struct AdjoinIdentity {
  template <class U>
  __host__ __device__ static U identity() {
    return U{};  // Adjoined<T>{T{}, false}
  }
  template <class T>
  __host__ __device__ Adjoined<T> operator()(const Adjoined<T>& earlier, const Adjoined<T>& later) const {
    if (!earlier.present) return later;
    if (!later.present) return earlier;
    return {Semigroup{}(earlier.value, later.value), true};
  }
};

}  // namespace scan_zoo
