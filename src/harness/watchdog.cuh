// watchdog.cuh -- no wait for the GPU is unbounded. Every wait goes through wait_or_die(): it
// polls an event and, when the step has not finished within --timeout seconds (g_timeout_s),
// prints a HANG row for the combination in progress and ends the process with exit code 5.
// _Exit skips the CUDA runtime's teardown (which could wait on the stuck kernel); the driver
// destroys the context, and with it the kernel, when the process goes. never_finishing_kernel is
// what --inject-hang runs in variants without an inter-block protocol to break.
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "../core/cuda_check.cuh"
#include "../core/rows.hpp"

namespace zoo {

inline double g_timeout_s = 60.0;

[[noreturn]] inline void watchdog_fire(const char* what) {
  std::fprintf(stderr,
               "watchdog: %s did not finish within %.3g s (--timeout); the scan is presumed hung.\n"
               "  The process exits without waiting for it; the driver tears the context down.\n",
               what, g_timeout_s);
  if (current_row().n >= 0) print_untimed_row(current_row(), "HANG");
  std::fflush(stderr);
  std::_Exit(kExitWatchdog);
}

// Test-only (--inject-hang), for variants without an inter-block protocol to break: a kernel
// that waits for a flag nobody sets, standing in for a scan that never finishes.
__global__ void never_finishing_kernel(const int* flag) {
  cuda::atomic_ref<const int, cuda::thread_scope_device> never_set(*flag);
  while (never_set.load(cuda::memory_order_acquire) == 0) __nanosleep(1000);
}

inline void wait_or_die(cudaStream_t stream, const char* what) {
  static cudaEvent_t done = [] {
    cudaEvent_t event;
    ZOO_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    return event;
  }();
  ZOO_CUDA(cudaEventRecord(done, stream));
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    cudaError_t status = cudaEventQuery(done);
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) ZOO_CUDA(status);
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > g_timeout_s) watchdog_fire(what);
    if (waited < 1e-3) std::this_thread::yield();  // short steps: stay responsive
    else std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace zoo
