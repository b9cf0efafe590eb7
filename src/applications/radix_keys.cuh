// radix_keys.cuh -- 32-bit keys as unsigned integers whose order is the keys' order, so that a
// radix sort can sort any of them by the digits of one unsigned word (CUB does the same "bit
// twiddling"). Shared by the GPU sorts (src/applications/radix_sort_*.cu) and their CPU reference.
//   int32:   flip the sign bit: -2^31 .. 2^31 - 1 map to 0 .. 2^32 - 1 in order.
//   float32: positive floats (sign 0) order like their bits: flip the sign bit to put them above
//            the negatives; negative floats order backwards: negate the bits as an integer
//            (2^32 - bits, below 2^31, smaller for larger magnitudes). Negation rather than a
//            flip of every bit (CUB's twiddle) makes -0.0 (0x80000000) land on +0.0's word,
//            0x80000000, with no test: the two compare equal, so a stable sort keeps them in
//            input order (as CUB does), and the map is two instructions (IABS, LOP3). NaNs
//            (which the zoo's inputs exclude) would sort to the ends.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace zoo {

template <class T>
struct RadixKey {
  static_assert(sizeof(T) == 4, "32-bit keys");
  __host__ __device__ __forceinline__ static std::uint32_t ordered(T key) {
    std::uint32_t bits;
    memcpy(&bits, &key, sizeof bits);
    if constexpr (std::is_floating_point_v<T>) {
      const std::uint32_t magnitude = (bits >> 31) ? 0u - bits : bits;  // |bits| as an int32
      return magnitude ^ (~bits & 0x80000000u);  // the sign bit set for positive floats only
    } else {
      return bits ^ 0x80000000u;
    }
  }
};

constexpr int kRadixBits = 8;                    // one digit: 256 buckets
constexpr int kRadixBuckets = 1 << kRadixBits;
constexpr int kRadixPasses = 32 / kRadixBits;    // 4 passes over 32-bit keys

__host__ __device__ __forceinline__ int radix_digit(std::uint32_t ordered, int pass) {
  return static_cast<int>((ordered >> (pass * kRadixBits)) & (kRadixBuckets - 1));
}

}  // namespace zoo
