// scan_zoo/detail/vector_access.cuh -- wide (up to 16-byte) loads and stores of consecutive elements.
//
// A warp whose lanes each move 16 contiguous bytes issues a quarter of the memory instructions
// of a scalar loop for the same bytes, which memory-bound kernels need to reach copy bandwidth.
#pragma once

#include <cstdint>

namespace scan_zoo::detail {

// A vector of Bytes / sizeof(T) elements, aligned to its size when that is a power of two (the
// hardware's 2-, 4-, 8- and 16-byte accesses), to 16 bytes when it is a larger power of two (32
// bytes: the int64 indices beside four float values of a split output, indexed_elements.cuh; moved
// in two 16-byte accesses, where alignment as T made them four 8-byte ones); a vector of odd size
// (a 12-byte struct) is only aligned as T, and the compiler moves it in T's own accesses.
template <class T, int Bytes>
struct VectorOf {
  static_assert(Bytes % sizeof(T) == 0, "the vector must hold whole elements");
  static constexpr int kCount = Bytes / static_cast<int>(sizeof(T));
  static constexpr bool kPowerOfTwo = (Bytes & (Bytes - 1)) == 0;
  static constexpr int kAlignment = kPowerOfTwo ? (Bytes <= 16 ? Bytes : 16) : int(alignof(T));

  struct alignas(kAlignment) Chunk {
    T item[kCount];
  };

  // The v-th vector of `base` (which must be Bytes-aligned).
  __device__ __forceinline__ static Chunk load(const T* base, std::int64_t v) {
    return reinterpret_cast<const Chunk*>(base)[v];
  }
  __device__ __forceinline__ static void store(T* base, std::int64_t v, const Chunk& chunk) {
    reinterpret_cast<Chunk*>(base)[v] = chunk;
  }
};

}  // namespace scan_zoo::detail
