// matrix_product.cuh -- the library self-tests' check of operand order (api_selftest.cu,
// api_forms_reverse_selftest.cu, api_forms_deterministic_selftest.cu): 2x2 matrices of 32-bit
// unsigned integers (arithmetic mod 2^32, so every product is exact) under their product,
// associative but not commutative. A scan that swapped its operands anywhere would give other
// matrices.
#pragma once

#include <cstdint>

struct Mat2 {
  std::uint32_t a, b, c, d;
  bool operator==(const Mat2& o) const { return a == o.a && b == o.b && c == o.c && d == o.d; }
};

struct Mat2Product {
  __host__ __device__ Mat2 operator()(const Mat2& x, const Mat2& y) const {
    return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
  }
  template <class U>
  __host__ __device__ static U identity() {
    return {1, 0, 0, 1};
  }
};

// 3x3 matrices of the same kind: 36 bytes, past the pieced descriptors' 32, so the scan's
// descriptors are a status word and value slots (grid/descriptors.cuh's TwoFieldTileState).
struct Mat3 {
  std::uint32_t m[9];
  bool operator==(const Mat3& o) const {
    for (int i = 0; i < 9; ++i)
      if (m[i] != o.m[i]) return false;
    return true;
  }
};

struct Mat3Product {
  __host__ __device__ Mat3 operator()(const Mat3& x, const Mat3& y) const {
    Mat3 r;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        r.m[3 * i + j] = x.m[3 * i] * y.m[j] + x.m[3 * i + 1] * y.m[3 + j] + x.m[3 * i + 2] * y.m[6 + j];
    return r;
  }
  template <class U>
  __host__ __device__ static U identity() {
    return {1, 0, 0, 0, 1, 0, 0, 0, 1};
  }
};
