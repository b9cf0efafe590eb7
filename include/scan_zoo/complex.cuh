// scan_zoo/complex.cuh -- a complex number the scans can carry: cumprod of complex64 and
// complex128 is a scan of Complex<float> or Complex<double> under Multiplies (operators.cuh: the
// schoolbook product, as torch's and NumPy's).
//
// Its layout is std::complex<T>'s (the real part, then the imaginary), as torch's, NumPy's and
// cuda::std::complex's are, so that their arrays are read in place; aligned to its size, so that
// one vector access moves it. Unlike cuda::std::complex it is trivially default constructible:
// the kernels keep accumulators in shared memory, which takes no constructor (cuda::std::complex
// zero-initializes).
#pragma once

namespace scan_zoo {

template <class T>
struct alignas(2 * sizeof(T)) Complex {
  T re;
  T im;

  Complex() = default;
  __host__ __device__ constexpr Complex(T real, T imag = T(0)) : re(real), im(imag) {}
  __host__ __device__ constexpr T real() const { return re; }
  __host__ __device__ constexpr T imag() const { return im; }
};

}  // namespace scan_zoo
