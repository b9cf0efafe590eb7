// hierarchical_kogge_stone -- Kogge-Stone block scan in shared memory, inside the multi-level
// scan-then-add hierarchy.
//
// Idea (Kogge & Stone 1973, a recurrence solver that became the classic parallel-prefix adder;
// as a GPU scan it is often called Hillis-Steele 1986). Each of the block's 1024 threads owns one
// element in shared memory. In step k every element combines the element 2^k places to its left
// into itself; after log2(1024) = 10 steps element i holds x[0] (+) ... (+) x[i]. The update is
// in place, so each step needs two barriers: one after everybody has read its left partner, one
// after everybody has written (otherwise thread i+stride could read thread i's new value).
// The multi-level hierarchy in common/hierarchy.cuh scans the tile totals and adds each tile's
// carry-in back down.
//
// Cost per 1024-element tile: work n*log2(n) - (n-1) = 9217 combines (a sequential scan needs
// 1023: not work-efficient), depth 10 steps, 2 barriers per step (20 in all).
// Launches: for N > 1024, 2 per hierarchy level (scan tiles, add carries) minus one for the top:
// 5 at N = 2^28 (tile scans of 2^28, 2^18 and 2^8 elements; carry adds over 2^18 and 2^28).
// Global traffic: 4 accesses per element (scan pass reads and writes, carry pass reads and
// writes again): at best 50% of memcpy bandwidth. One element per thread and 20 barriers per
// tile make it latency-bound well before that, which is what the coarsened, double-buffered
// and warp-shuffle variants go after.
//
// Constraints: any N (64-bit indexing), every type and operator of the harness, inclusive or
// exclusive (the exclusive output reads each thread's left neighbour). Tile = 1024 items.
//
// In the charts: a flat launch-bound line up to ~2^16, then well under the memcpy ceiling at
// large N; compare with hierarchical_kogge_stone_double_buffering (one barrier per step).
//
// Run: make bin/hierarchical_kogge_stone && ./bin/hierarchical_kogge_stone 2^28
#include "common/harness.cuh"
#include "common/hierarchy.cuh"

struct KoggeStoneTile {
  static constexpr int kThreads = 1024;
  static constexpr int kTileItems = 1024;  // one element per thread

  template <class T, class Op>
  __device__ static T scan_tile(const T* in, T* out, int valid, bool exclusive) {
    __shared__ T scanned[kTileItems];
    const Op op;
    const int t = threadIdx.x;
    scanned[t] = t < valid ? in[t] : Op::template identity<T>();
    for (int stride = 1; stride < kTileItems; stride *= 2) {
      __syncthreads();  // the previous step's writes are visible
      T left;
      if (t >= stride) left = scanned[t - stride];
      __syncthreads();  // every read of this step is done before anyone overwrites
      if (t >= stride) scanned[t] = op(left, scanned[t]);
    }
    __syncthreads();
    if (t < valid) out[t] = !exclusive ? scanned[t] : t == 0 ? Op::template identity<T>() : scanned[t - 1];
    return scanned[kTileItems - 1];  // padding is the identity: the last slot is the tile total
  }
};

struct HierarchicalKoggeStone : zoo::VariantDefaults, zoo::Hierarchy<KoggeStoneTile> {
  static constexpr std::int64_t kTileItems = KoggeStoneTile::kTileItems;
  using zoo::Hierarchy<KoggeStoneTile>::workspace_bytes;
};

ZOO_MAIN(HierarchicalKoggeStone)
