// cuda_check.cuh -- every CUDA runtime call of the host code goes through ZOO_CUDA, every launch is
// followed by ZOO_CHECK_LAUNCH(): an error ends the process with exit code 4, its text, where it
// happened, and an ERROR row for the combination in progress.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "rows.hpp"

namespace zoo {

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
