// radix_keys.cuh -- keys as unsigned integers of their own width whose order is the keys' order,
// so that a radix sort can sort any of them by the 8-bit digits of one unsigned word (CUB does
// the same "bit twiddling"). Shared by the GPU sorts (src/applications/radix_sort_*.cu) and their
// CPU reference. 32-bit keys (int32, uint32, float32) have 4 digits, 64-bit keys (int64, uint64,
// float64) 8: one pass each.
//   unsigned: the bits are the order.
//   signed:   flip the sign bit: -2^(b-1) .. 2^(b-1) - 1 map to 0 .. 2^b - 1 in order.
//   float:    positive floats (sign 0) order like their bits: flip the sign bit to put them above
//             the negatives; negative floats order backwards: negate the bits as an integer
//             (2^b - bits, below 2^(b-1), smaller for larger magnitudes). Negation rather than a
//             flip of every bit (CUB's twiddle) makes -0.0 (the sign bit alone) land on +0.0's
//             word, the sign bit, with no test: the two compare equal, so a stable sort keeps
//             them in input order (as CUB does), and the map is two instructions a word (IABS,
//             LOP3). NaNs (which the zoo's inputs exclude) would sort to the ends.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace zoo {

constexpr int kRadixBits = 8;  // one digit: 256 buckets
constexpr int kRadixBuckets = 1 << kRadixBits;

template <class T>
struct RadixKey {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "32- and 64-bit keys");
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  static constexpr int kPasses = int(sizeof(T)) * 8 / kRadixBits;  // 4 or 8
  static constexpr Bits kSign = Bits(1) << (sizeof(T) * 8 - 1);

  __host__ __device__ __forceinline__ static Bits ordered(T key) {
    Bits bits;
    memcpy(&bits, &key, sizeof bits);
    if constexpr (std::is_floating_point_v<T>) {
      const Bits magnitude = (bits & kSign) ? Bits(0) - bits : bits;  // |bits| as a signed integer
      return magnitude ^ (~bits & kSign);                             // the sign bit set for positive floats only
    } else if constexpr (std::is_signed_v<T>) {
      return bits ^ kSign;
    } else {
      return bits;
    }
  }

  // The key whose ordered word is all ones, every digit 255: no key sorts after it (among floats
  // it is a NaN, which the inputs exclude). The onesweep sort pads a partial tile with it.
  __host__ __device__ __forceinline__ static T last() {
    const Bits bits = std::is_floating_point_v<T> || std::is_signed_v<T> ? ~kSign : ~Bits(0);
    T key;
    memcpy(&key, &bits, sizeof key);
    return key;
  }
};

// Digit `pass` (0 = least significant) of an ordered word.
template <class Bits>
__host__ __device__ __forceinline__ int radix_digit(Bits ordered, int pass) {
  return static_cast<int>((ordered >> (pass * kRadixBits)) & (kRadixBuckets - 1));
}

// Digit `pass` of a key: that digit of its ordered word.
template <class T>
__host__ __device__ __forceinline__ int radix_digit_of(T key, int pass) {
  return radix_digit(RadixKey<T>::ordered(key), pass);
}

}  // namespace zoo
