// cuda_check.cuh -- exit codes, the output row, CUDA error checking, and small launch helpers
// shared by the harness and every variant.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace zoo {

// One meaning each (README "Exit codes"). In a list run the worst outcome wins: 5, 4, 1, 3, 0.
enum ExitCode : int {
  kExitPass = 0,
  kExitVerifyFailed = 1,
  kExitUsage = 2,
  kExitUnsupported = 3,
  kExitCudaOrMemory = 4,
  kExitWatchdog = 5,
};

inline int exit_severity(int code) {
  switch (code) {
    case kExitWatchdog: return 4;
    case kExitCudaOrMemory: return 3;
    case kExitVerifyFailed: return 2;
    case kExitUnsupported: return 1;
    default: return 0;
  }
}
inline int worse_exit(int a, int b) { return exit_severity(b) > exit_severity(a) ? b : a; }

// The combination being worked on. It names the row that a fatal error still prints.
struct RowLabel {
  std::string variant, type, op, mode;
  std::int64_t n = -1;  // -1: no row in progress (the global N of a multi-GPU run)
  int gpus = 1;         // the GPUs the run was spread over
};
inline RowLabel& current_row() {
  static RowLabel row;
  return row;
}

// stdout row (the timing.txt schema):
//   variant type op mode n reps median_ms min_ms max_ms gbps status gpus
inline void print_row(const RowLabel& row, int reps, double median_ms, double min_ms, double max_ms,
                      double gbps, const std::string& status) {
  std::printf("%s %s %s %s %lld %d %.6f %.6f %.6f %.2f %s %d\n", row.variant.c_str(), row.type.c_str(),
              row.op.c_str(), row.mode.c_str(), static_cast<long long>(row.n), reps, median_ms,
              min_ms, max_ms, gbps, status.c_str(), row.gpus);
  std::fflush(stdout);
}
inline void print_untimed_row(const RowLabel& row, const std::string& status) {
  print_row(row, 0, NAN, NAN, NAN, NAN, status);
}

[[noreturn]] inline void cuda_fatal(cudaError_t error, const char* expression, const char* file, int line) {
  std::fprintf(stderr, "CUDA error %s at %s:%d\n  in: %s\n  %s\n", cudaGetErrorName(error), file, line,
               expression, cudaGetErrorString(error));
  if (current_row().n >= 0) print_untimed_row(current_row(), "ERROR");
  std::fflush(stderr);
  std::exit(kExitCudaOrMemory);
}

}  // namespace zoo

// Every CUDA runtime call goes through ZOO_CUDA; every kernel launch is followed by
// ZOO_CHECK_LAUNCH() so a bad launch configuration is reported where it happened.
#define ZOO_CUDA(expression)                                                   \
  do {                                                                         \
    cudaError_t zoo_error_ = (expression);                                     \
    if (zoo_error_ != cudaSuccess)                                             \
      ::zoo::cuda_fatal(zoo_error_, #expression, __FILE__, __LINE__);          \
  } while (0)
#define ZOO_CHECK_LAUNCH() ZOO_CUDA(cudaGetLastError())

namespace zoo {

template <class I>
__host__ __device__ constexpr I ceil_div(I a, I b) { return (a + b - 1) / b; }

// The scratch memory the harness allocated for a variant (workspace_bytes(n) bytes, outside the
// timed region).
struct Workspace {
  void* data = nullptr;
  std::size_t bytes = 0;
};

// Carves aligned sub-buffers out of one workspace allocation. With no base it only counts, so a
// variant's workspace_bytes() and run() share one layout function and cannot disagree.
class WorkspaceCarver {
 public:
  explicit WorkspaceCarver(void* base = nullptr) : base_(static_cast<char*>(base)) {}
  template <class U>
  U* take(std::size_t count) {
    offset_ = ceil_div<std::size_t>(offset_, kAlignment) * kAlignment;
    U* pointer = base_ ? reinterpret_cast<U*>(base_ + offset_) : nullptr;
    offset_ += count * sizeof(U);
    return pointer;
  }
  std::size_t bytes() const { return offset_; }

 private:
  static constexpr std::size_t kAlignment = 256;  // what cudaMalloc gives: every vector width works
  char* base_;
  std::size_t offset_ = 0;
};

}  // namespace zoo
