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

#include "complex.cuh"

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

namespace detail {
// A complex number type (complex.cuh's Complex, or any with real() and imag() and a constructor
// from the two): what Multiplies takes the schoolbook product of.
template <class T, class = void>
struct IsComplex : cuda::std::false_type {};
template <class T>
struct IsComplex<T, cuda::std::void_t<decltype(cuda::std::declval<const T&>().imag())>> : cuda::std::true_type {};
}  // namespace detail

// Products (cumprod). Integer products wrap like sums, in the unsigned type, widened to unsigned
// int for types narrower than it (whose operands C++ would otherwise promote to a signed int,
// where 65535 x 65535 overflows). Complex products are the schoolbook (ac - bd) + (ad + bc)i, as
// torch's (c10::complex) and NumPy's are, without the recovery of infinities from NaNs that C99's
// Annex G, and std::complex's operator*, add.
struct Multiplies {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (cuda::std::is_integral_v<T>) {
      using U = cuda::std::make_unsigned_t<T>;
      using Wide = cuda::std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U>;
      return static_cast<T>(static_cast<Wide>(static_cast<U>(a)) * static_cast<Wide>(static_cast<U>(b)));
    } else if constexpr (detail::IsComplex<T>::value) {
      return T(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
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

// exp of an argument <= 0 and log of a sum >= 1, for LogSumExp: in float on the device the
// hardware's approximations, ex2.approx and lg2.approx, where expf and logf take dozens of
// instructions. Their error is harmless here: a term exp(d), d <= 0, is off by about |d| 2^-24 of
// itself, at most 2^-24 / e of the sum it joins (>= 1: the largest term is exp(0) = 1); the log of
// that sum is off by about 2^-22 absolutely. Their flush-to-zero forms (.ftz) save the rescaling
// of subnormal arguments and results that __expf and __logf carry (a compare and two predicated
// multiplies each): an exp(d) that flushes, d < -87.3, is below 2^-126, far under the resolution
// of the sum >= 1 it joins, and a sum is never subnormal (>= 1, or 0 in the identity {-inf, 0},
// whose log is -inf either way).
template <class T>
__host__ __device__ __forceinline__ T exp_nonpositive(T d) {
#ifdef __CUDA_ARCH__
  if constexpr (cuda::std::is_same_v<T, float>) {
    float power_of_two;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(power_of_two) : "f"(d * 1.44269504088896341f));  // log2(e)
    return power_of_two;
  } else {
    return cuda::std::exp(d);
  }
#else
  return cuda::std::exp(d);
#endif
}
template <class T>
__host__ __device__ __forceinline__ T log_of_sum(T sum) {
#ifdef __CUDA_ARCH__
  if constexpr (cuda::std::is_same_v<T, float>) {
    float log2_of_sum;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(log2_of_sum) : "f"(sum));
    return log2_of_sum * 0.693147180559945309f;  // ln(2)
  } else {
    return cuda::std::log(sum);
  }
#else
  return cuda::std::log(sum);
#endif
}
}  // namespace detail

// A log-sum-exp kept as its largest term and a scaled sum: log(sum of exp(x)) = max + log(sum),
// where sum adds exp(x - max) over the terms. LogAddExp's fast accumulator (below): each combine
// costs one exp, against a log1p and an exp on plain values, and each result one log. An element
// x is {x, 1}; the result converts back to a value (any float type). T: float or double.
template <class T>
struct LogSumExp {
  T max;
  T sum;
  LogSumExp() = default;
  __host__ __device__ __forceinline__ LogSumExp(T largest, T scaled_sum) : max(largest), sum(scaled_sum) {}
  template <class U>
  __host__ __device__ __forceinline__ explicit LogSumExp(U x) : max(static_cast<T>(x)), sum(T(1)) {}
  template <class U>
  __host__ __device__ __forceinline__ explicit operator U() const {
    return static_cast<U>(max + detail::log_of_sum(sum));  // {-inf, 0}: -inf; an infinite max: itself
  }
  // No terms: log 0 = -inf (LogAddExp's identity).
  __host__ __device__ __forceinline__ static LogSumExp empty() {
    return {-cuda::std::numeric_limits<T>::infinity(), T(0)};
  }
};

// The log-sum-exp of complex values (logcumsumexp of complex64 and complex128), kept as the
// largest real part, the imaginary part of the term that has it (the earliest on a tie), and the
// sum of exp(z - max) over the terms. A term's magnitude is at most 1 and carries its angle, so a
// combine rescales by a real exp, as for real values, and an element z costs a sine and a cosine,
// {re z, im z, e^(i im z)}. The result is max + log(sum): its real part max + log|sum|. Its
// imaginary part is defined only up to a multiple of 2 pi, and torch's kernels pick one by the
// order of their combines (each side's max plus the angle of log1p of the other's exp): its CPU
// and CUDA kernels differ by multiples of 2 pi (bench/NOTES.md, "torch's scan ops: complex
// logcumsumexp"; tests/test_torch_switch.py compares modulo 2 pi). Here it is the principal angle
// of the sum moved by the multiple of 2 pi that brings it nearest the largest term's own
// imaginary part: the same for any order of combines, a line's first result is its first element
// (to rounding), and where one term dominates its branch is kept, as torch's kernels keep it.
// Where every real part so far is -inf (e^z = 0, whose angle no branch can recover) it is the
// principal angle of the sum of their directions (torch's CPU kernel keeps the last one's). A NaN
// in either part of any term makes both parts NaN from there on, as in torch.
template <class T>
struct LogSumExp<Complex<T>> {
  T max;
  T angle;
  Complex<T> sum;
  LogSumExp() = default;
  __host__ __device__ __forceinline__ LogSumExp(T largest, T its_angle, Complex<T> scaled_sum)
      : max(largest), angle(its_angle), sum(scaled_sum) {}
  template <class U>
  __host__ __device__ __forceinline__ explicit LogSumExp(Complex<U> z)
      : LogSumExp(term(static_cast<T>(z.real()), static_cast<T>(z.imag()))) {}
  template <class U>
  __host__ __device__ __forceinline__ explicit operator Complex<U>() const {
    const Complex<T> value = log_of(*this);
    return Complex<U>(static_cast<U>(value.real()), static_cast<U>(value.imag()));
  }
  __host__ __device__ __forceinline__ static LogSumExp empty() {
    return {-cuda::std::numeric_limits<T>::infinity(), T(0), Complex<T>(T(0), T(0))};
  }

 private:
  // Out of line, as detail::log_add_exp is: the kernels convert each item where they load and
  // store it, in unrolled loops, and inlined there the sines, cosines, atan2s and logs took the
  // package's build past its 5 minutes on 2 cores (bench/NOTES.md, "torch's scan ops: complex
  // logcumsumexp").
  __host__ __device__ __noinline__ static LogSumExp term(T re, T im) {
    return {re, im, Complex<T>(cuda::std::cos(im), cuda::std::sin(im))};
  }
  __host__ __device__ __noinline__ static Complex<T> log_of(const LogSumExp& a) {
    constexpr T kTwoPi = T(6.28318530717958647692528676655900577);
    const T principal = cuda::std::atan2(a.sum.imag(), a.sum.real());
    const T turns =
        a.max == -cuda::std::numeric_limits<T>::infinity() ? T(0) : cuda::std::rint((a.angle - principal) / kTwoPi);
    const T imag = a.max != a.max ? a.max : principal + turns * kTwoPi;  // a NaN max: NaN in both parts
    return Complex<T>(a.max + cuda::std::log(cuda::std::hypot(a.sum.real(), a.sum.imag())), imag);
  }
};

namespace detail {
template <class T>
inline constexpr bool kIsLogSumExp = false;
template <class T>
inline constexpr bool kIsLogSumExp<LogSumExp<T>> = true;
}  // namespace detail

// log(exp(a) + exp(b)) (logcumsumexp), with torch's rules for the special values: a NaN on
// either side gives NaN; two equal infinities give that infinity; -inf is the identity, exactly.
// - On plain values (float, double): max + log1p(exp(min - max)), so that nothing overflows.
// - On LogSumExp<T> accumulators, the fast way: scan with the accumulator named,
//   inclusive_scan<LogSumExp<float>>(x, y, ..., LogAddExp{}, ...), for float, __half and
//   __nv_bfloat16 data (LogSumExp<double> for double). The later operand's terms are rescaled
//   to the earlier's max, or the earlier's to the later's where that is larger: one exp a
//   combine, exp(0) where the maxima are equal (two equal infinities, which would give NaN);
//   a NaN max, or a NaN sum from exp(NaN), stays NaN through every later combine.
// - On LogSumExp<Complex<T>> accumulators, for complex data (Complex<float>, Complex<double>):
//   the same steps, the larger real part's term keeping its angle, the sums complex.
struct LogAddExp {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(T a, T b) const { return detail::log_add_exp(a, b); }
  template <class T>
  __host__ __device__ __forceinline__ LogSumExp<T> operator()(LogSumExp<T> a, LogSumExp<T> b) const {
    const bool later_larger = b.max > a.max;
    const T larger = later_larger ? b.max : a.max, smaller = later_larger ? a.max : b.max;
    const T scale = smaller == larger ? T(1) : detail::exp_nonpositive(smaller - larger);
    const T rescaled = later_larger ? a.sum : b.sum, kept = later_larger ? b.sum : a.sum;
    return LogSumExp<T>(larger, rescaled * scale + kept);
  }
  template <class T>
  __host__ __device__ __forceinline__ LogSumExp<Complex<T>> operator()(LogSumExp<Complex<T>> a,
                                                                      LogSumExp<Complex<T>> b) const {
    const bool later_larger = b.max > a.max;
    const T larger = later_larger ? b.max : a.max, smaller = later_larger ? a.max : b.max;
    const T scale = smaller == larger ? T(1) : detail::exp_nonpositive(smaller - larger);
    const Complex<T> rescaled = later_larger ? a.sum : b.sum, kept = later_larger ? b.sum : a.sum;
    return LogSumExp<Complex<T>>(larger, later_larger ? b.angle : a.angle,
                                 Complex<T>(rescaled.real() * scale + kept.real(), rescaled.imag() * scale + kept.imag()));
  }
  template <class T>
  __host__ __device__ __forceinline__ static T identity() {
    if constexpr (detail::kIsLogSumExp<T>)
      return T::empty();
    else
      return -cuda::std::numeric_limits<T>::infinity();
  }
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
