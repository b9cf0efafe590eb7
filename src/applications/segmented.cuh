// segmented.cuh -- a segmented scan is an ordinary scan under a lifted operator (Schwartz 1980;
// Blelloch 1990, "Prefix sums and their applications", section 1.5). Pair every value with a
// flag that says "a segment starts here", and combine
//
//     (f1, v1) (+) (f2, v2) = (f1 | f2,  f2 ? v2 : v1 + v2)
//
// The right operand's flag discards everything to its left: the scan restarts at each head.
// The lifted operator is associative whenever + is (it is not commutative, and the zoo's scans
// never assume it is), and its identity is (no head, identity of +). So every block-level scan of
// the zoo (block_scan.cuh, over warp shuffles of the pair) scans segments unchanged.
//
// Across tiles the look-back needs no flag at all: a tile that contains a head has a total
// that does not depend on anything before it, and publishes it as INCLUSIVE at once (a "closed"
// tile, grid/lookback.cuh); a tile without a head publishes its plain reduction as AGGREGATE. A
// walk back therefore always stops at the nearest tile that holds a head, which is exactly where
// the carry into a later tile begins. The descriptors stay the scan's 32-bit values.
#pragma once

#include <cstdint>

#include "../core/ops.cuh"

namespace zoo {

template <class T>
struct Flagged {
  using Value = T;
  T value;
  std::uint32_t head;  // 1: a segment starts at (or within the range of) this value
};

template <class Op>
struct Segmented {
  template <class P>
  __host__ __device__ __forceinline__ P operator()(P left, P right) const {
    return P{right.head ? right.value : Op{}(left.value, right.value), left.head | right.head};
  }
  template <class P>
  __host__ __device__ __forceinline__ static P identity() {
    return P{Op::template identity<typename P::Value>(), 0u};
  }
};

}  // namespace zoo
