// scan_zoo/detail/tuned_space.cuh -- the configuration space of the tuned scan (tuned_kernel.cuh), which the
// tuner (tune/, `make tune`) sweeps exhaustively: the cartesian product of the value lists below,
// configuration i decoded from i in mixed radix (Threads varies fastest). tune/list_space.cu
// lists it, one row per configuration: index, name, parameters (`make build/tune/space.txt`).
//
// The shipped table (tuned_table.cuh) names its configurations by their index here, ConfigAt<i>,
// so changing the lists changes what its indices mean: re-run the tuning (`make tune` on every
// GPU the table has), or, when only the order changed, the selection (`make tune-select`, which
// looks the measured names up in the new listing). The table's static_assert on kSpaceSize
// catches a change of size.
//
// Every configuration is the register-resident one-launch scan of tuned_kernel.cuh; the lists are
// what the measurements left open (bench/NOTES.md, "Register-resident tiles" and "Publishing by
// exchange"):
//   threads            128, 256, 512: small tiles for small N, large ones for fewer look-backs.
//   items per thread   4, 8, 16, 32: one to eight 16-byte vectors of int32 per thread. More
//                      registers than 32 items take cannot keep several blocks on an SM.
//   publish            store, exchange, exchange + fence (grid/protocol.cuh): the one-word choice
//                      that moved the look-back most.
//   descriptor stride  1 (dense: four descriptors to a 32-byte sector, a 32-tile poll reads two
//                      128-byte lines) or 4 (one per sector: eight lines, but no two tiles'
//                      publishes and polls share a sector).
//   descriptors/lane   1 or 2 per poll: a window of 32 or 64 tiles.
//   back-off           spin, or sleep 200 / 600 ns before the first poll (half that between
//                      polls).
//   aggregate          published after the warps' scans, or early (from reductions, with the
//                      warps scanning while warp 0 looks back).
// Not in the space: the serial look-back, the two-field descriptor and the persistent grid, which
// lost at every N in the space before this one (bench/NOTES.md, "The tuned scan, first space");
// the transposing blocked tiles, slower than register tiles in the same look-back at every N
// ("Register-resident tiles"); and the 30-bit descriptor, which has no room for an epoch.
// 3 x 4 x 3 x 2 x 2 x 3 x 2 = 864 configurations.
#pragma once

#include "tuned_kernel.cuh"

namespace scan_zoo::detail::tuned {

inline constexpr int kThreadsValues[] = {128, 256, 512};
inline constexpr int kItemsValues[] = {4, 8, 16, 32};
inline constexpr Publish kPublishValues[] = {Publish::Store, Publish::Exchange, Publish::ExchangeFence};
inline constexpr int kStrideValues[] = {1, 4};
inline constexpr int kPerLaneValues[] = {1, 2};
inline constexpr int kSleepNsValues[] = {0, 200, 600};
inline constexpr Aggregate kAggregateValues[] = {Aggregate::AfterScan, Aggregate::Early};

template <class Array>
constexpr int count_of(const Array& values) {
  return static_cast<int>(sizeof(values) / sizeof(values[0]));
}

// Digit `place` of index i in the mixed radix of the lists (radices: the list lengths in order).
constexpr int digit(int i, int place) {
  const int radix[] = {count_of(kThreadsValues), count_of(kItemsValues),   count_of(kPublishValues),
                       count_of(kStrideValues),  count_of(kPerLaneValues), count_of(kSleepNsValues),
                       count_of(kAggregateValues)};
  for (int p = 0; p < place; ++p) i /= radix[p];
  return i % radix[place];
}

inline constexpr int kSpaceSize = count_of(kThreadsValues) * count_of(kItemsValues) * count_of(kPublishValues) *
                                  count_of(kStrideValues) * count_of(kPerLaneValues) * count_of(kSleepNsValues) *
                                  count_of(kAggregateValues);

template <int I>
using ConfigAt = TunedConfig<kThreadsValues[digit(I, 0)], kItemsValues[digit(I, 1)], kPublishValues[digit(I, 2)],
                             kStrideValues[digit(I, 3)], kPerLaneValues[digit(I, 4)], kSleepNsValues[digit(I, 5)],
                             kAggregateValues[digit(I, 6)]>;

}  // namespace scan_zoo::detail::tuned
