// test_hooks.cuh -- the hook --inject-hang needs inside a kernel (tests only). No harness in it,
// so that any kernel may honour it, the library's tuned scan included.
#pragma once

#include <cstdint>

namespace zoo {

// Test-only (--inject-hang). In the single-pass scans (kHasSilentTile), the silent tile returns
// without scanning or publishing anything, so every later tile waits for it forever: the
// deadlock a broken inter-block protocol would cause. -1 (no such tile) in every other run.
//
// The teaching variants read g_silent_tile, a __constant__ variable: one constant-cache load per
// block. static: one copy per translation unit, since the library (include/scan_zoo/scan.cuh)
// includes this header and a user may build several translation units with -rdc=true, where one
// shared definition would collide at link time (and `inline __constant__` is refused without
// -rdc). The harness sets the copy of the one translation unit that holds its main and kernels.
static __constant__ std::int64_t g_silent_tile = -1;

// The library's tuned kernel takes the silent tile as a launch argument, read from this host
// variable when it launches: a kernel parameter arrives with the launch, where the variable above
// is a load from memory the L2 flush left cold, in front of each block's first load, which the
// small scans felt (bench/NOTES.md, "A test hook must cost nothing").
inline std::int64_t g_silent_tile_argument = -1;

}  // namespace zoo
