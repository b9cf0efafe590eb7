// test_hooks.cuh -- the one hook --inject-hang needs inside a kernel (tests only). Device code
// with no harness in it, so that any kernel may honour it, the library's tuned scan included.
#pragma once

#include <cstdint>

namespace zoo {

// Test-only (--inject-hang). In the single-pass scans (kHasSilentTile), the tile numbered
// g_silent_tile returns without scanning or publishing anything, so every later tile waits for
// it forever: the deadlock a broken inter-block protocol would cause. -1 (no such tile) in every
// other run; the check costs one constant-cache load per block.
//
// static: one copy per translation unit. The library (include/scan_zoo/scan.cuh) includes this
// header, and a user may build several translation units with -rdc=true, where one shared
// definition would collide at link time (and `inline __constant__` is refused without -rdc).
// The harness sets the copy of the one translation unit that holds its main and its kernels.
static __constant__ std::int64_t g_silent_tile = -1;

}  // namespace zoo
