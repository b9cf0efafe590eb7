// linear_recurrence -- the scan_zoo library in a user's program: the state update of a diagonal
// state-space model, h[t] = a[t] * h[t - 1] + b[t], along the sequence axis of [batch, channels,
// length] tensors, with bf16 decays and inputs and a float state, in one launch
// (include/scan_zoo/linear_recurrence.cuh); then the backward pass's form, the same recurrence
// run from each sequence's end.
//
//   make examples && build/examples/linear_recurrence [LENGTH]     (default LENGTH = 65,536)
//
// Prints the largest difference from the loop on the CPU for each direction, beside what float
// rounding allows, and exits 1 if either is larger.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <scan_zoo/linear_recurrence.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    const cudaError_t error = (call);                                                          \
    if (error != cudaSuccess) {                                                                \
      std::fprintf(stderr, "linear_recurrence: %s: %s\n", #call, cudaGetErrorString(error));   \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

int main(int argc, char** argv) {
  const std::int64_t batch = 4, channels = 16, length = argc > 1 ? std::atoll(argv[1]) : 65536;
  if (length <= 0) {
    std::fprintf(stderr, "usage: linear_recurrence [LENGTH > 0]\n");
    return 2;
  }
  const std::int64_t lines = batch * channels, n = lines * length;
  std::vector<__nv_bfloat16> a(n), b(n);
  for (std::int64_t i = 0; i < n; ++i) {
    a[i] = __float2bfloat16(0.9f + 0.1f * float((i * 7919) % 1000) / 1000.0f);  // decays in [0.9, 1)
    b[i] = __float2bfloat16(float((i * 104729) % 2001) / 1000.0f - 1.0f);       // inputs in [-1, 1]
  }
  __nv_bfloat16 *d_a = nullptr, *d_b = nullptr;
  float* d_h = nullptr;
  CHECK(cudaMalloc(&d_a, n * sizeof(__nv_bfloat16)));
  CHECK(cudaMalloc(&d_b, n * sizeof(__nv_bfloat16)));
  CHECK(cudaMalloc(&d_h, n * sizeof(float)));
  CHECK(cudaMemcpy(d_a, a.data(), n * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, b.data(), n * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));

  scan_zoo::Workspace workspace;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  const scan_zoo::Shape along_length{lines, length};  // the last axis of [batch, channels, length]
  std::vector<float> h(n);
  int status = 0;
  for (const bool reverse : {false, true}) {
    // Forward: h[t] = a[t] h[t - 1] + b[t], h[-1] = 0. Reverse: h[t] = a[t] h[t + 1] + b[t].
    CHECK(reverse ? scan_zoo::reverse_linear_recurrence(d_a, d_b, d_h, along_length, workspace, stream)
                  : scan_zoo::linear_recurrence(d_a, d_b, d_h, along_length, workspace, stream));
    CHECK(cudaMemcpyAsync(h.data(), d_h, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    double largest = 0, worst = 0;
    for (std::int64_t line = 0; line < lines; ++line) {
      double state = 0;  // the loop, in double
      for (std::int64_t step = 0; step < length; ++step) {
        const std::int64_t i = line * length + (reverse ? length - 1 - step : step);
        state = double(__bfloat162float(a[i])) * state + double(__bfloat162float(b[i]));
        largest = std::max(largest, std::fabs(state));
        worst = std::max(worst, std::fabs(double(h[i]) - state));
      }
    }
    // Float rounding in any grouping: a few units in the last place of the largest state, times
    // the number of steps a rounding error survives (the decays keep it to about 1 / (1 - 0.9)).
    const double allowed = 1e-5 * std::max(1.0, largest);
    std::printf("%s: %lld lines of %lld, largest |h| %.3f, largest difference from the loop %.2e (allowed %.2e)\n",
                reverse ? "reverse" : "forward", static_cast<long long>(lines), static_cast<long long>(length), largest,
                worst, allowed);
    if (!(worst <= allowed)) status = 1;
  }
  std::printf("scan_zoo %s\n", SCAN_ZOO_VERSION);
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_h));
  return status;
}
