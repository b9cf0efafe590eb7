// matrix_product.cuh -- the library self-tests' check of operand order (api_selftest.cu,
// api_forms_selftest.cu): 2x2 matrices of 32-bit unsigned integers (arithmetic mod 2^32, so every
// product is exact) under their product, associative but not commutative. A scan that swapped
// its operands anywhere would give other matrices.
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
