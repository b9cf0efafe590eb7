// space.cuh -- the configuration space the tuner sweeps exhaustively: the cartesian product of
// the value lists below, configuration i decoded from i in mixed radix (Threads varies fastest).
//
// Why these values (and not others):
//   threads            128, 256. CUB's sm_90 tuning for 4-byte scans uses 128; 256 halves the
//                      tiles per N. 512 and more: longer barriers for the same work, fewer blocks
//                      per SM to hide the look-back with.
//   items per thread   8, 16, 24, 32: from tiles small enough for 2^10..2^16 to spread over
//                      several SMs, to tiles that amortize the look-back (CUB: 15 on sm_90).
//                      Fewer than 8 cannot fill 16-byte vectors twice; more than 32 spills or
//                      drops to one or two blocks per SM.
//   vector bytes       4 (scalar), 8, 16: the widths the hardware issues.
//   block scan         warp scans, raking, Blelloch (block_scan.cuh).
//   look-back          serial or warp window, each with or without the sleeping back-off.
//   descriptor         packed 64-bit, two-field. Not the 30-bit one: it has no room for an
//                      epoch (so it needs a reset launch, which the tuned scan exists to avoid),
//                      refuses float32 and values beyond +-2^29, and was slower than packed
//                      64-bit at 2^28 in the zoo sweep (1.13 vs 0.83 ms).
//   grid               one tile per block (tile = blockIdx.x), or persistent with the next tile
//                      prefetched. Not a ticket (dynamic tile index): it costs an atomic round
//                      trip before the first load (bench/NOTES.md), and the blocks of one
//                      launch are dispatched in index order anyway.
// 2 x 4 x 3 x 3 x 2 x 2 x 2 x 2 = 1152 configurations.
#pragma once

#include "common/tuned_scan.cuh"

namespace zoo::tune {

inline constexpr int kThreadsValues[] = {128, 256};
inline constexpr int kItemsValues[] = {8, 16, 24, 32};
inline constexpr int kVectorBytesValues[] = {4, 8, 16};
inline constexpr BlockScanKind kBlockScanValues[] = {BlockScanKind::WarpScans, BlockScanKind::Raking,
                                                     BlockScanKind::Blelloch};
inline constexpr LookbackKind kLookbackValues[] = {LookbackKind::Serial, LookbackKind::Warp};
inline constexpr bool kSleepValues[] = {false, true};
inline constexpr DescriptorKind kDescriptorValues[] = {DescriptorKind::Packed64, DescriptorKind::TwoField};
inline constexpr GridKind kGridValues[] = {GridKind::TilePerBlock, GridKind::Persistent};

template <class Array>
constexpr int count_of(const Array& values) {
  return static_cast<int>(sizeof(values) / sizeof(values[0]));
}

// Digit `place` of index i in the mixed radix of the lists (radices: the list lengths in order).
constexpr int digit(int i, int place) {
  const int radix[] = {count_of(kThreadsValues),   count_of(kItemsValues),    count_of(kVectorBytesValues),
                       count_of(kBlockScanValues), count_of(kLookbackValues), count_of(kSleepValues),
                       count_of(kDescriptorValues), count_of(kGridValues)};
  for (int p = 0; p < place; ++p) i /= radix[p];
  return i % radix[place];
}

inline constexpr int kSpaceSize = count_of(kThreadsValues) * count_of(kItemsValues) * count_of(kVectorBytesValues) *
                                  count_of(kBlockScanValues) * count_of(kLookbackValues) * count_of(kSleepValues) *
                                  count_of(kDescriptorValues) * count_of(kGridValues);

template <int I>
using ConfigAt = TunedConfig<kThreadsValues[digit(I, 0)], kItemsValues[digit(I, 1)], kVectorBytesValues[digit(I, 2)],
                             kBlockScanValues[digit(I, 3)], kLookbackValues[digit(I, 4)], kSleepValues[digit(I, 5)],
                             kDescriptorValues[digit(I, 6)], kGridValues[digit(I, 7)]>;

}  // namespace zoo::tune
