// colprobe: scans along columns and a middle axis whose accumulator is wider than the element
// (bfloat16 summed in float, int8 in int32, log-sum-exps of bfloat16, the values alone of
// cummax), beside a copy of the same bytes; cold L2, medians of 25. Built against two trees.
#include <cuda_bf16.h>
#include <scan_zoo/extremes.cuh>
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); std::exit(2);} } while (0)
static void* flush_buf; static size_t flush_bytes = size_t(512) << 20;
template <class F> static double timed(const char* name, double copy_us, F&& f) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> ts;
  for (int i = 0; i < 25; ++i) {
    CK(cudaMemsetAsync(flush_buf, i, flush_bytes));
    CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); ts.push_back(ms * 1000);
  }
  std::sort(ts.begin(), ts.end());
  const double med = ts[ts.size() / 2];
  if (copy_us > 0) std::printf("%-52s %9.1f us (%.1f-%.1f)  %5.1f%% of copy\n", name, med, ts.front(), ts.back(), 100 * copy_us / med);
  else std::printf("%-52s %9.1f us (%.1f-%.1f)\n", name, med, ts.front(), ts.back());
  return med;
}
int main() {
  CK(cudaMalloc(&flush_buf, flush_bytes));
  const std::int64_t n = std::int64_t(1) << 24;  // 32 MiB of bfloat16
  std::vector<__nv_bfloat16> h(n); std::mt19937 g(11); std::uniform_real_distribution<float> d(-4, 4);
  for (auto& v : h) v = __float2bfloat16(d(g));
  std::vector<std::int8_t> h8(n); for (auto& v : h8) v = std::int8_t(g() % 7) - 3;
  __nv_bfloat16 *x, *y; std::int8_t *x8, *y8; float *xf, *yf;
  CK(cudaMalloc(&x, n * 2)); CK(cudaMalloc(&y, n * 2)); CK(cudaMalloc(&x8, n)); CK(cudaMalloc(&y8, n));
  CK(cudaMalloc(&xf, n * 4)); CK(cudaMalloc(&yf, n * 4));
  CK(cudaMemcpy(x, h.data(), n * 2, cudaMemcpyHostToDevice)); CK(cudaMemcpy(x8, h8.data(), n, cudaMemcpyHostToDevice));
  std::vector<float> hf(n); for (std::int64_t i = 0; i < n; ++i) hf[i] = __bfloat162float(h[i]);
  CK(cudaMemcpy(xf, hf.data(), n * 4, cudaMemcpyHostToDevice));
  scan_zoo::Workspace w;
  struct S { const char* name; scan_zoo::Shape shape; };
  const S shapes[] = {{"columns 262144x64", {1, 262144, 64}}, {"middle 8x8192x256", {8, 8192, 256}}};
  char name[128];
  for (const S& s : shapes) {
    const double c2 = timed("copy 2 B an element", 0, [&] { CK(cudaMemcpyAsync(y, x, n * 2, cudaMemcpyDeviceToDevice)); });
    const double c1 = timed("copy 1 B an element", 0, [&] { CK(cudaMemcpyAsync(y8, x8, n, cudaMemcpyDeviceToDevice)); });
    const double c4 = timed("copy 4 B an element", 0, [&] { CK(cudaMemcpyAsync(yf, xf, n * 4, cudaMemcpyDeviceToDevice)); });
    std::snprintf(name, sizeof name, "cumsum bf16 in float %s", s.name);
    timed(name, c2, [&] { CK(scan_zoo::inclusive_scan<float>(x, y, s.shape, scan_zoo::Plus{}, w, 0)); });
    std::snprintf(name, sizeof name, "cumsum int8 in int32 %s", s.name);
    timed(name, c1, [&] { CK(scan_zoo::inclusive_scan<int>(x8, y8, s.shape, scan_zoo::Plus{}, w, 0)); });
    std::snprintf(name, sizeof name, "logcumsumexp bf16 on LogSumExp<float> %s", s.name);
    timed(name, c2, [&] { CK(scan_zoo::inclusive_scan<scan_zoo::LogSumExp<float>>(x, y, s.shape, scan_zoo::LogAddExp{}, w, 0)); });
    std::snprintf(name, sizeof name, "cummax bf16 values alone %s", s.name);
    timed(name, c2, [&] { CK(scan_zoo::cummax<std::int32_t>(x, y, static_cast<std::int64_t*>(nullptr), s.shape, w, 0)); });
    std::snprintf(name, sizeof name, "cummax float values alone %s", s.name);
    timed(name, c4, [&] { CK(scan_zoo::cummax<std::int32_t>(xf, yf, static_cast<std::int64_t*>(nullptr), s.shape, w, 0)); });
    std::snprintf(name, sizeof name, "cumsum float %s", s.name);
    timed(name, c4, [&] { CK(scan_zoo::inclusive_scan(xf, yf, s.shape, scan_zoo::Plus{}, w, 0)); });
  }
  // check the bf16 sum along columns against a float loop rounded once
  const scan_zoo::Shape s{1, 262144, 64};
  CK(cudaMemset(y, 0xff, n * 2));
  CK(scan_zoo::inclusive_scan<float>(x, y, s, scan_zoo::Plus{}, w, 0)); CK(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> got(n); CK(cudaMemcpy(got.data(), y, n * 2, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int c = 0; c < 64; ++c) { double acc = 0; for (long r = 0; r < 262144; ++r) { acc += hf[r * 64 + c];
    const float want = __bfloat162float(__float2bfloat16(float(acc))), have = __bfloat162float(got[r * 64 + c]);
    bad += std::abs(have - want) > 1e-2f * std::max(1.0f, std::abs(want)); } }
  std::printf("check cumsum bf16 columns: %ld beyond 1%%\n", bad);
  return bad != 0;
}
