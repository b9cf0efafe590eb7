// scan_zoo/operators.cuh -- the operators the library ships, and what an operator of your own
// needs. Included by scan.cuh.
//
// An operator is an associative functor on T with
//   __host__ __device__ T operator()(const T& a, const T& b) const   (a holds the earlier elements:
//                                                                      never assumed commutative)
//   template <class U> __host__ __device__ U identity() [const]      (op(identity, x) == x == op(x, identity);
//                                                                      static or a member)
// It is copied into the kernels by value, state included (a modulus, a tolerance), and so must
// be trivially copyable.
// The kernels pad the last tile and start every running prefix with the identity, in registers,
// with no branch on whether a slot is real (CUB guards its partial tiles instead). A callable
// without one gets it from with_identity(fn, value); a semigroup, which has none (such as "keep
// the first"), gets one adjoined: scan Adjoined<T> elements with AdjoinIdentity.
#pragma once

#include <cuda/std/cmath>
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

// Products (cumprod). Integer products wrap like sums, in the unsigned type, widened to unsigned
// int for types narrower than it (whose operands C++ would otherwise promote to a signed int,
// where 65535 x 65535 overflows).
struct Multiplies {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (cuda::std::is_integral_v<T>) {
      using U = cuda::std::make_unsigned_t<T>;
      using Wide = cuda::std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U>;
      return static_cast<T>(static_cast<Wide>(static_cast<U>(a)) * static_cast<Wide>(static_cast<U>(b)));
    } else {
      return a * b;
    }
  }
  template <class T>
  __host__ __device__ __forceinline__ static T identity() { return T(1); }
};

namespace detail {
// LogAddExp's arithmetic, out of line on the device: the kernels apply an operator in many
// unrolled places (each thread's items, the warp's shuffles, the block's totals, the look-back),
// and inlined there exp and log1p multiplied the package's compile time (python/src/logsumexps.cu
// took longer than every other operator together: bench/NOTES.md, "torch's scan ops").
template <class T>
__host__ __device__ __noinline__ T log_add_exp(T a, T b) {
  const bool a_nan = a != a, b_nan = b != b;
  const T low = b_nan ? b : a_nan ? a : (b < a ? b : a);
  const T high = b_nan ? b : a_nan ? a : (b < a ? a : b);
  if (low == high && !cuda::std::isfinite(low)) return a;      // both +inf or both -inf
  return high + cuda::std::log1p(cuda::std::exp(low - high));  // a NaN propagates through here
}
}  // namespace detail

// log(exp(a) + exp(b)), computed as max + log1p(exp(min - max)) so that nothing overflows
// (logcumsumexp), for float and double. torch's rules for the special values: a NaN on either
// side gives NaN; two equal infinities give that infinity (where min - max would be NaN); -inf is
// the identity, exactly (log1p(exp(-inf)) = 0).
struct LogAddExp {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(T a, T b) const { return detail::log_add_exp(a, b); }
  template <class T>
  __host__ __device__ __forceinline__ static T identity() { return -cuda::std::numeric_limits<T>::infinity(); }
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

// An operator from any callable on T and its identity element: a lambda (an extended __device__
// or __host__ __device__ lambda under nvcc --extended-lambda, or a function object with state,
// captured or held). The callable's result is converted to the operands' type.
template <class Fn, class T>
struct WithIdentity {
  Fn fn;
  T identity_element;

  template <class U>
  __host__ __device__ U identity() const {
    return static_cast<U>(identity_element);
  }
  // The kernels call it on the device; a __device__-only callable is never called on the host.
#pragma nv_exec_check_disable
  template <class U>
  __host__ __device__ U operator()(const U& earlier, const U& later) const {
    return static_cast<U>(fn(earlier, later));
  }
};

template <class Fn, class T>
WithIdentity<Fn, T> with_identity(Fn fn, T identity_element) {
  return {fn, identity_element};
}

// Every operator has an identity after adjoining a new element, "absent", that each side passes
// through: scan Adjoined<T> elements ({value, true}) with AdjoinIdentity<Semigroup>; its identity
// is {T{}, false}. The price is the flag's bytes in each element (padded to T's alignment). The
// semigroup travels inside, state and all: AdjoinIdentity<KeepFirst>{} for a stateless one,
// AdjoinIdentity{semigroup} for one with state (or a lambda).
template <class T>
struct Adjoined {
  T value;
  bool present;
};

template <class Semigroup>
struct AdjoinIdentity {
  Semigroup semigroup;

  template <class U>
  __host__ __device__ static U identity() {
    return U{};  // Adjoined<T>{T{}, false}
  }
#pragma nv_exec_check_disable
  template <class T>
  __host__ __device__ Adjoined<T> operator()(const Adjoined<T>& earlier, const Adjoined<T>& later) const {
    if (!earlier.present) return later;
    if (!later.present) return earlier;
    return {static_cast<T>(semigroup(earlier.value, later.value)), true};
  }
};

template <class Semigroup>
AdjoinIdentity(Semigroup) -> AdjoinIdentity<Semigroup>;

}  // namespace scan_zoo
