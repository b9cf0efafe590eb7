// scan_zoo/detail/segment_starts.cuh -- where lines start for the row kernel (rows_kernel.cuh)
// when they are segments given by offsets (segmented.cuh): segment s holds the elements
// begins[s] .. ends[s] - 1, the segments in ascending order and disjoint, gaps allowed between
// them and around them (their elements are left as they were), empty segments anywhere.
//
// Each tile finds its segments itself, with no pass before the scan:
//   1. the block finds the last segment that starts at or before the tile's first element, by a
//      search of `begins` as wide as the block (three rounds for 2^20 segments at 256 threads;
//      a 32-way search by warp 0 took four, and each round is a trip to L2 that the tile's own
//      loads do not cover: bench/NOTES.md, "Scans along an axis");
//   2. the block marks, in shared memory, the tile's items that start a segment and those that lie
//      in a gap, a thread a segment (the segments that start in the tile, and the one before),
//      round after round while the block's last thread still had one;
//   3. a tile with no mark is plain (the tuned kernel's steps); any other runs the lifted steps,
//      where an item in a gap also counts as a start (so a tile with a gap is closed and no
//      look-back walks through it), and its store leaves the gaps' elements alone.
// A gap's marks are written a word of 32 items at a time by the thread of the segment before it:
// the cost of a gap is its length / 32, spread over the tiles it covers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core.cuh"
#include "warp.cuh"

namespace scan_zoo::detail {

template <class Offset>
struct SegmentStarts {
  static constexpr bool kLineTotals = false;
  const Offset* begins;
  const Offset* ends;
  std::int64_t segments;
  std::int64_t n;

  // Bit i of an array of 32-bit words (bit i % 32 of word i / 32).
  __device__ static bool marked(const std::uint32_t* words, int i) { return (words[i >> 5] >> (i & 31)) & 1u; }

  // The marks of one tile's items, in shared memory, a bit an item (`marked`):
  // `heads` (a segment, or a gap, starts there: a restart of the lifted scan) and `outside` (in a
  // gap: not stored). 2 KB for a tile of 8192 items; a thread clears one word of each.
  template <int TileItems>
  struct Marks {
    static constexpr int kWords = TileItems / 32;
    std::uint32_t heads[kWords];
    std::uint32_t outside[kWords];

    // Sets bits from .. to - 1 of `words`, a word at a time (atomically: the ranges of two threads
    // may share a word).
    __device__ static void set(std::uint32_t* words, int from, int to) {
      while (from < to) {
        const int end_of_word = (from | 31) + 1, until = to < end_of_word ? to : end_of_word;
        const std::uint32_t ones = until - from == 32 ? ~0u : ((1u << (until - from)) - 1) << (from & 31);
        atomicOr(&words[from >> 5], ones);
        from = until;
      }
    }
  };

  // The thread's items, round after round (RegisterTile's layout: round k's first item is
  // kStep further than round k - 1's, its V items side by side in one word of marks): one read
  // of shared memory a round, not one an item (a quarter of the kernel's instructions at 10^6
  // segments, ncu: bench/NOTES.md, "Scans along an axis").
  template <int V, int TileItems>
  struct Cursor {
    static_assert(kWarpSize % V == 0, "a round's items lie in one word of marks");
    static constexpr int kStep = kWarpSize * V;
    const std::uint32_t* heads;
    int position;
    std::uint32_t bits;  // the marks from `position` on

    __device__ Cursor(const std::uint32_t* marks, int first) : heads(marks), position(first) { read(); }
    __device__ void read() { bits = position < TileItems ? heads[position >> 5] >> (position & 31) : 0u; }
    __device__ bool starts_row(int j) const { return (bits >> j) & 1u; }
    __device__ void next_round() {
      position += kStep;
      read();
    }
  };

  template <int TileItems>
  struct InTile {
    const Marks<TileItems>* marks;
    bool plain;
    bool leaves_out;

    template <class Tile, int V>
    __device__ Cursor<V, TileItems> cursor(int offset) const {
      return {marks->heads, offset};
    }
    // Every item of the tile but those in gaps.
    template <class Tile, class Order, class Out, class Acc, int Items>
    __device__ void store(Out* at, int valid, const Acc (&items)[Items]) const {
      if (!leaves_out) return Tile::store(at, valid, items, Order{});
      constexpr int V = Order::kVector;
#pragma unroll
      for (int k = 0; k < Items / V; ++k)
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const int i = Tile::template offset<V>(k, j);
          if (i < valid && !marked(marks->outside, i)) at[i] = static_cast<Out>(items[k * V + j]);
        }
    }
  };

  // 1. The number of segments that start at or before `index`, less one: the segment `index`
  // lies in or after (-1: before the first). Every thread of the block, the answer on each. A
  // round probes Threads points `step` apart; begins ascend, so the probes at or before `index`
  // are the first k, and the barrier's count is k.
  template <int Threads>
  __device__ std::int64_t last_starting_by(std::int64_t index) const {
    std::int64_t low = 0, high = segments;  // the count lies in [low, high]
    while (low < high) {
      const std::int64_t step = ceil_div<std::int64_t>(high - low, Threads);
      const std::int64_t probe = low + std::int64_t(threadIdx.x) * step;
      const int by = __syncthreads_count(probe < high && static_cast<std::int64_t>(begins[probe]) <= index);
      if (by == 0) break;  // begins[low] > index: the count is low
      const std::int64_t last = low + (by - 1) * step;
      low = last + 1;
      high = last + step < high ? last + step : high;
    }
    return low - 1;
  }

  template <class Config>
  __device__ InTile<Config::kTileItems> at_tile(std::int64_t begin, int valid) const {
    constexpr int kTileItems = Config::kTileItems;
    __shared__ Marks<kTileItems> marks;
    for (int w = threadIdx.x; w < Marks<kTileItems>::kWords; w += Config::kThreads) marks.heads[w] = marks.outside[w] = 0;
    const std::int64_t first = last_starting_by<Config::kThreads>(begin);
    if (segments == 0) __syncthreads();  // the clearing before the marks (else the search's barriers do)

    // 2. A thread a segment, from the one the tile begins in (or -1: the gap before the first)
    // to the last that starts in the tile; begins ascend, so the threads with a segment are the
    // first of each round, and a round whose last thread has none is the last (no round of loads
    // only to learn that).
    const std::int64_t end = begin + valid;
    bool marked = false, gap = false;
    for (std::int64_t round = first;; round += Config::kThreads) {
      const std::int64_t s = round + threadIdx.x;
      const bool mine = s < segments && (s == first || static_cast<std::int64_t>(begins[s]) < end);
      if (mine) {
        std::int64_t gap_begin = 0;  // the gap after segment s (before the first, for s = -1)
        if (s >= 0) {
          const std::int64_t b = begins[s], e = ends[s];
          if (b >= begin && b < end) {
            Marks<kTileItems>::set(marks.heads, int(b - begin), int(b - begin) + 1);
            marked = true;
          }
          gap_begin = e > b ? e : b;
        }
        const std::int64_t gap_end = s + 1 < segments ? static_cast<std::int64_t>(begins[s + 1]) : n;
        const std::int64_t from = gap_begin > begin ? gap_begin : begin, to = gap_end < end ? gap_end : end;
        if (from < to) {
          Marks<kTileItems>::set(marks.heads, int(from - begin), int(to - begin));
          Marks<kTileItems>::set(marks.outside, int(from - begin), int(to - begin));
          marked = gap = true;
        }
      }
      if (!__syncthreads_or(mine && threadIdx.x == Config::kThreads - 1)) break;
    }
    // 3. Plain, or lifted; the barrier also makes the marks visible to every thread.
    const bool any_mark = __syncthreads_or(marked);
    const bool any_gap = __syncthreads_or(gap);
    return {&marks, !any_mark, any_gap};
  }
};

}  // namespace scan_zoo::detail
