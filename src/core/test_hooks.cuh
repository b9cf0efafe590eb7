// test_hooks.cuh -- the hook --inject-hang needs inside a zoo kernel (tests only). The library's
// kernel (include/scan_zoo/) has none: for single_pass_scan_tuned the harness hangs a stand-in
// kernel of its own in front of the scan instead (harness.cuh, run_never_finishing).
#pragma once

#include <cstdint>

namespace zoo {

// Test-only (--inject-hang). In the zoo's single-pass scans (kHasSilentTile), the silent tile
// returns without scanning or publishing anything, so every later tile waits for it forever: the
// deadlock a broken inter-block protocol would cause. -1 (no such tile) in every other run.
//
// The teaching variants read g_silent_tile, a __constant__ variable: one constant-cache load per
// block. static: one copy per translation unit (a binary is one); the harness sets it.
static __constant__ std::int64_t g_silent_tile = -1;

// The onesweep sort takes the silent tile as a launch argument, read from this host variable
// when it launches: a kernel parameter arrives with the launch, where the variable above is a
// load from memory the L2 flush left cold, in front of each block's first load, which the small
// sizes felt (bench/NOTES.md, "A test hook must cost nothing").
inline std::int64_t g_silent_tile_argument = -1;

}  // namespace zoo
