// scan_zoo/detail/core.cuh -- what every piece of the library shares: the two kinds of scan, the
// tile arithmetic, and the type list the configuration tables are written in.
#pragma once

#include <cstdint>

namespace scan_zoo::detail {

enum class ScanKind { Inclusive, Exclusive };

template <class I>
__host__ __device__ constexpr I ceil_div(I a, I b) { return (a + b - 1) / b; }

// The elements of the tile of `tile_items` that starts at element `begin` of n: a whole tile, or
// what is left of n in the last one.
__host__ __device__ __forceinline__ int tile_extent(std::int64_t begin, std::int64_t n, std::int64_t tile_items) {
  return static_cast<int>(min(tile_items, n - begin));
}

template <class... Ts>
struct TypeList {};

}  // namespace scan_zoo::detail
