// test_hooks.cuh -- what --inject-hang uses to provoke the watchdog (tests only). Device code
// with no harness in it, so that any kernel may honour it.
#pragma once

#include <cuda/atomic>

#include <cstdint>

namespace zoo {

// Test-only (--inject-hang). In the single-pass scans (kHasSilentTile), the tile numbered
// g_silent_tile returns without scanning or publishing anything, so every later tile waits for
// it forever: the deadlock a broken inter-block protocol would cause. -1 (no such tile) in every
// other run; the check costs one constant-cache load per block.
__constant__ std::int64_t g_silent_tile = -1;

// Test-only (--inject-hang), for variants without an inter-block protocol to break: a kernel
// that waits for a flag nobody sets, standing in for a scan that never finishes.
__global__ void never_finishing_kernel(const int* flag) {
  cuda::atomic_ref<const int, cuda::thread_scope_device> never_set(*flag);
  while (never_set.load(cuda::memory_order_acquire) == 0) __nanosleep(1000);
}

}  // namespace zoo
