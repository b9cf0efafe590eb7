// prefix_offsets -- the scan_zoo library in a user's program: turn per-item sizes into int64
// offsets into one large buffer (an exclusive scan), and keep a running sum of doubles (an
// inclusive scan), on the GPU, with the fastest scan measured for this GPU.
//
//   make examples && build/examples/prefix_offsets [N]        (default N = 10,000,000)
//
// Prints the last offset and the last running sum, each beside the value the CPU computes, and
// exits 1 if either differs.
#include <cuda_runtime.h>

#include <scan_zoo/scan.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                           \
  do {                                                                                        \
    const cudaError_t error = (call);                                                         \
    if (error != cudaSuccess) {                                                               \
      std::fprintf(stderr, "prefix_offsets: %s: %s\n", #call, cudaGetErrorString(error));     \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 10000000;
  if (n <= 0) {
    std::fprintf(stderr, "usage: prefix_offsets [N > 0]\n");
    return 2;
  }
  std::vector<std::int64_t> sizes(n);
  std::vector<double> values(n);
  for (std::int64_t i = 0; i < n; ++i) {
    sizes[i] = (i * 7919) % 4096;     // bytes per item
    values[i] = double(i % 13) - 6;   // small integers: every running sum is exact
  }

  std::int64_t* d_sizes = nullptr;
  double* d_values = nullptr;
  CHECK(cudaMalloc(&d_sizes, n * sizeof(std::int64_t)));
  CHECK(cudaMalloc(&d_values, n * sizeof(double)));
  CHECK(cudaMemcpy(d_sizes, sizes.data(), n * sizeof(std::int64_t), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_values, values.data(), n * sizeof(double), cudaMemcpyHostToDevice));

  // One workspace for both scans, one after the other in the same stream; it allocates itself
  // on first use and frees itself at the end of main.
  scan_zoo::Workspace workspace;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  // Offsets: out[i] = sizes[0] + ... + sizes[i - 1], out[0] = 0; in place.
  CHECK(scan_zoo::exclusive_scan(d_sizes, d_sizes, n, std::int64_t(0), scan_zoo::Plus{}, workspace, stream));
  // Running sums: out[i] = values[0] + ... + values[i]; in place too.
  CHECK(scan_zoo::inclusive_scan(d_values, d_values, n, scan_zoo::Plus{}, workspace, stream));
  CHECK(cudaStreamSynchronize(stream));

  std::int64_t last_offset = 0;
  double last_sum = 0;
  CHECK(cudaMemcpy(&last_offset, d_sizes + n - 1, sizeof last_offset, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&last_sum, d_values + n - 1, sizeof last_sum, cudaMemcpyDeviceToHost));
  std::int64_t want_offset = 0;
  double want_sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i < n - 1) want_offset += sizes[i];
    want_sum += values[i];
  }
  std::printf("scan_zoo %s: N = %lld\n", SCAN_ZOO_VERSION, static_cast<long long>(n));
  std::printf("last offset  %lld (CPU: %lld)\n", static_cast<long long>(last_offset), static_cast<long long>(want_offset));
  std::printf("last sum     %.1f (CPU: %.1f)\n", last_sum, want_sum);
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(d_sizes));
  CHECK(cudaFree(d_values));
  return last_offset == want_offset && last_sum == want_sum ? 0 : 1;
}
