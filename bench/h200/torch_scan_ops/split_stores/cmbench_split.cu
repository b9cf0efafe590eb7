// cmbench: cummax (+indices) timing beside cumsum and a copy of the same bytes; cold L2; median of 25.
#include <scan_zoo/extremes.cuh>
#ifdef WORD_BLOCKS
namespace scan_zoo::detail {
template <class C, class B, bool R, class Op>
inline constexpr int kRowsBlocksPerSm<RankedPosition<C, B, R>, Op, false> = WORD_BLOCKS;
}  // namespace scan_zoo::detail
#endif
#ifdef PAIR_ITEMS
namespace scan_zoo::detail {
template <class T>
struct RowsTile<ValueIndex<T, int>> {
  static constexpr int kThreads = 256;
  static constexpr int kItems = PAIR_ITEMS;
};
template <class T, class Op, bool LineTotals>
inline constexpr int kRowsBlocksPerSm<ValueIndex<T, int>, Op, LineTotals> = PAIR_BLOCKS;
}  // namespace scan_zoo::detail
#endif
// The values-alone operator of extremes.cuh under another name, so that the row kernel takes the
// default 3 blocks an SM (ptxas spills 8-16 bytes there; the library takes 2).
struct LaterUnlessGreaterAt3Blocks {
  template <class V>
  __host__ __device__ V operator()(const V& earlier, const V& later) const {
    const bool earlier_wins = (earlier > later) | ((earlier != earlier) & (later == later));
    return earlier_wins ? earlier : later;
  }
  template <class V>
  __host__ __device__ static V identity() { return -cuda::std::numeric_limits<V>::infinity(); }
};
// The library's LatestValue accumulator at other row tiles: Items x Blocks.
template <int Items, int Blocks>
struct ProbeLatest {
  float value;
  ProbeLatest() = default;
  __host__ __device__ explicit ProbeLatest(float v) : value(v) {}
  template <class U> __host__ __device__ explicit operator U() const { return static_cast<U>(value); }
};
struct ProbeLaterUnlessGreater {
  template <class P>
  __host__ __device__ P operator()(const P& earlier, const P& later) const {
    const float e = earlier.value, l = later.value;
    const bool earlier_wins = (e > l) | ((e != e) & (l == l));
    return earlier_wins ? earlier : later;
  }
  template <class P>
  __host__ __device__ static P identity() { return P(-cuda::std::numeric_limits<float>::infinity()); }
};
namespace scan_zoo::detail {
template <int Items, int Blocks>
struct RowsTile<ProbeLatest<Items, Blocks>> {
  static constexpr int kThreads = 256;
  static constexpr int kItems = Items;
};
template <int Items, int Blocks, bool LineTotals>
inline constexpr int kRowsBlocksPerSm<ProbeLatest<Items, Blocks>, ProbeLaterUnlessGreater, LineTotals> = Blocks;
}  // namespace scan_zoo::detail
using Latest24x3 = ProbeLatest<24, 3>;
using Latest16x4 = ProbeLatest<16, 4>;
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); std::exit(2);} } while (0)

// A copy of cummax's own bytes: reads x (4 B), writes a value (4 B) and an int64 index (8 B).
__global__ void shaped_copy(const float4* x, float4* v, longlong2* idx, long n4) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n4; i += long(gridDim.x) * blockDim.x) {
    const float4 a = x[i];
    v[i] = a;
    idx[2 * i] = make_longlong2(4 * i, 4 * i + 1);
    idx[2 * i + 1] = make_longlong2(4 * i + 2, 4 * i + 3);
  }
}
// The same with U float4s a thread in flight before any store, one pass (no grid-stride loop).
template <int U>
__global__ void shaped_copy_unrolled(const float4* x, float4* v, longlong2* idx, long n4) {
  const long first = (blockIdx.x * long(blockDim.x)) * U + threadIdx.x;
  float4 a[U];
#pragma unroll
  for (int u = 0; u < U; ++u) if (first + u * blockDim.x < n4) a[u] = x[first + u * blockDim.x];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const long i = first + u * blockDim.x;
    if (i < n4) {
      v[i] = a[u];
      idx[2 * i] = make_longlong2(4 * i, 4 * i + 1);
      idx[2 * i + 1] = make_longlong2(4 * i + 2, 4 * i + 3);
    }
  }
}
// The same loads and value stores; the indices stored so that each warp instruction covers 512
// contiguous bytes (lane l the l-th 16 bytes of the warp's span), not 16 bytes every 32.
template <int U>
__global__ void shaped_copy_warp_contiguous(const float4* x, float4* v, longlong2* idx, long n4) {
  const long first = (blockIdx.x * long(blockDim.x)) * U + threadIdx.x;
  const int lane = threadIdx.x & 31;
  float4 a[U];
#pragma unroll
  for (int u = 0; u < U; ++u) if (first + u * blockDim.x < n4) a[u] = x[first + u * blockDim.x];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const long i = first + u * blockDim.x;
    if (i < n4) {
      v[i] = a[u];
      const long warp_q = 2 * (i - lane);  // the warp's first index pair
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        const long q = warp_q + 32 * k + lane;
        idx[q] = make_longlong2(2 * q, 2 * q + 1);
      }
    }
  }
}
static void* flush_buf; static size_t flush_bytes = size_t(512) << 20;
template <class F> static void timed(const char* name, double copy_us, F&& f, double* out_median = nullptr) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> ts;
  for (int i = 0; i < 25; ++i) {
    CK(cudaMemsetAsync(flush_buf, i, flush_bytes));
    CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); ts.push_back(ms * 1000);
  }
  std::sort(ts.begin(), ts.end());
  double med = ts[ts.size() / 2];
  if (out_median) *out_median = med;
  if (copy_us > 0) std::printf("%-44s %9.1f us (%.1f-%.1f)  %5.1f%% of copy\n", name, med, ts.front(), ts.back(), 100 * copy_us / med);
  else std::printf("%-44s %9.1f us (%.1f-%.1f)\n", name, med, ts.front(), ts.back());
}

int main(int argc, char** argv) {
  const bool one = argc > 1 && !std::strcmp(argv[1], "--one");
  CK(cudaMalloc(&flush_buf, flush_bytes));
  const std::int64_t n = std::int64_t(1) << 26;
  std::vector<float> h(n); std::mt19937 g(7); std::uniform_real_distribution<float> d(-1000, 1000);
  for (auto& v : h) v = d(g);
  float *x, *v; std::int64_t* idx; int* xi; int* vi; void* scratch;
  CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&v, n * 4)); CK(cudaMalloc(&idx, n * 8)); CK(cudaMalloc(&scratch, n * 16));
  CK(cudaMalloc(&xi, n * 4)); CK(cudaMalloc(&vi, n * 4));
  CK(cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice));
  for (auto& f : h) { int r = int(f); std::memcpy(&f, &r, 4); }
  CK(cudaMemcpy(xi, h.data(), n * 4, cudaMemcpyHostToDevice));
  scan_zoo::Workspace w;
  if (one) {  // one call for ncu
    CK(scan_zoo::cummax<std::int32_t>(x, v, idx, scan_zoo::Shape{64, 131072}, w, 0)); CK(cudaDeviceSynchronize());
    CK(scan_zoo::inclusive_scan(x, v, scan_zoo::Shape{64, 131072}, scan_zoo::Plus{}, w, 0)); CK(cudaDeviceSynchronize());
    return 0;
  }
  struct S { const char* name; scan_zoo::Shape shape; };
  const S shapes[] = {{"rows 64x131072", {64, 131072}}, {"rows 8x131072", {8, 131072}}, {"1-D 2^26", {1, n}}};
  for (const S& s : shapes) {
    const std::int64_t m = s.shape.outer * s.shape.length;
    double c16, c4;
    char name[96];
    std::snprintf(name, sizeof name, "copy %lld x 16 B  [%s]", (long long)m, s.name);
    timed(name, 0, [&] { CK(cudaMemcpyAsync(scratch, static_cast<char*>(scratch) + m * 8, m * 8, cudaMemcpyDeviceToDevice)); }, &c16);
    std::snprintf(name, sizeof name, "copy %lld x 8 B  [%s]", (long long)m, s.name);
    timed(name, 0, [&] { CK(cudaMemcpyAsync(v, x, m * 4, cudaMemcpyDeviceToDevice)); }, &c4);
    std::snprintf(name, sizeof name, "shaped copy 4 B in, 12 B out [%s]", s.name);
    timed(name, c16, [&] { shaped_copy<<<132 * 8, 256>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(v),
                                                         reinterpret_cast<longlong2*>(idx), m / 4); });
    std::snprintf(name, sizeof name, "shaped copy, 4 float4 a thread [%s]", s.name);
    timed(name, c16, [&] { shaped_copy_unrolled<4><<<(m / 4 + 1023) / 1024, 256>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(v),
                                                         reinterpret_cast<longlong2*>(idx), m / 4); });
    std::snprintf(name, sizeof name, "shaped copy, indices warp-contiguous [%s]", s.name);
    timed(name, c16, [&] { shaped_copy_warp_contiguous<4><<<(m / 4 + 1023) / 1024, 256>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(v),
                                                         reinterpret_cast<longlong2*>(idx), m / 4); });
    std::snprintf(name, sizeof name, "memset of 16 B an element [%s]", s.name);
    timed(name, c16, [&] { CK(cudaMemsetAsync(scratch, 1, m * 16)); });
    std::snprintf(name, sizeof name, "cummax f32 +idx %s", s.name);
    timed(name, c16, [&] { CK(scan_zoo::cummax<std::int32_t>(x, v, idx, s.shape, w, 0)); });
    std::snprintf(name, sizeof name, "cummax i32 +idx %s", s.name);
    timed(name, c16, [&] { CK(scan_zoo::cummax<std::int32_t>(xi, vi, idx, s.shape, w, 0)); });
    std::snprintf(name, sizeof name, "cummax f32 values only %s", s.name);
    timed(name, c4, [&] { CK(scan_zoo::cummax<std::int32_t>(x, v, static_cast<std::int64_t*>(nullptr), s.shape, w, 0)); });
    std::snprintf(name, sizeof name, "cummax f32 values only, 3 blocks %s", s.name);
    timed(name, c4, [&] { CK(scan_zoo::inclusive_scan<float>(x, v, s.shape, LaterUnlessGreaterAt3Blocks{}, w, 0)); });
    std::snprintf(name, sizeof name, "cummax f32 values only, 24 x 3 %s", s.name);
    timed(name, c4, [&] { CK(scan_zoo::inclusive_scan<Latest24x3>(x, v, s.shape, ProbeLaterUnlessGreater{}, w, 0)); });
    std::snprintf(name, sizeof name, "cummax f32 values only, 16 x 4 %s", s.name);
    timed(name, c4, [&] { CK(scan_zoo::inclusive_scan<Latest16x4>(x, v, s.shape, ProbeLaterUnlessGreater{}, w, 0)); });
    std::snprintf(name, sizeof name, "cummax i32 values only %s", s.name);
    timed(name, c4, [&] { CK(scan_zoo::cummax<std::int32_t>(xi, vi, static_cast<std::int64_t*>(nullptr), s.shape, w, 0)); });
    std::snprintf(name, sizeof name, "cumsum f32 %s", s.name);
    timed(name, c4, [&] { CK(scan_zoo::inclusive_scan(x, v, s.shape, scan_zoo::Plus{}, w, 0)); });
    double c9;
    std::snprintf(name, sizeof name, "copy %lld x 9 B  [%s]", (long long)m, s.name);
    timed(name, 0, [&] { CK(cudaMemcpyAsync(scratch, static_cast<char*>(scratch) + m * 8, m * 9 / 2, cudaMemcpyDeviceToDevice)); }, &c9);
    std::snprintf(name, sizeof name, "cumsum u8->i64 %s", s.name);
    timed(name, c9, [&] { CK(scan_zoo::inclusive_scan(reinterpret_cast<const std::uint8_t*>(xi), idx, s.shape, scan_zoo::Plus{}, w, 0)); });
  }
  {  // the shaped copies write every index once: check the warp-contiguous one
    CK(cudaMemset(idx, 0xff, 64 * 131072 * 8));
    shaped_copy_warp_contiguous<4><<<(64 * 131072 / 4 + 1023) / 1024, 256>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(v),
                                                         reinterpret_cast<longlong2*>(idx), 64 * 131072 / 4);
    CK(cudaDeviceSynchronize());
    std::vector<std::int64_t> hi(64 * 131072); CK(cudaMemcpy(hi.data(), idx, hi.size() * 8, cudaMemcpyDeviceToHost));
    long bad = 0; for (long t = 0; t < long(hi.size()); ++t) bad += hi[t] != t;
    std::printf("check warp-contiguous shaped copy: %ld wrong\n", bad);
  }
  // check one result
  CK(scan_zoo::cummax<std::int32_t>(x, v, idx, scan_zoo::Shape{64, 131072}, w, 0)); CK(cudaDeviceSynchronize());
  std::vector<float> hv(n); std::vector<std::int64_t> hi(n); std::vector<float> hx(n);
  CK(cudaMemcpy(hv.data(), v, 64 * 131072 * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(hi.data(), idx, 64 * 131072 * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hx.data(), x, 64 * 131072 * 4, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int r = 0; r < 64; ++r) { float best = 0; long at = -1; for (long t = 0; t < 131072; ++t) { float q = hx[r * 131072 + t]; if (at < 0 || !(best > q)) { best = q; at = t; } if (hv[r * 131072 + t] != best || hi[r * 131072 + t] != at) ++bad; } }
  std::printf("check rows 64x131072: %ld wrong\n", bad);
  for (int pass = 0; pass < 4; ++pass) {  // the values alone, every form
    CK(cudaMemset(v, 0xff, 64 * 131072 * 4));
    if (pass == 0) CK(scan_zoo::cummax<std::int32_t>(x, v, static_cast<std::int64_t*>(nullptr), scan_zoo::Shape{64, 131072}, w, 0));
    else if (pass == 1) CK(scan_zoo::inclusive_scan<float>(x, v, scan_zoo::Shape{64, 131072}, LaterUnlessGreaterAt3Blocks{}, w, 0));
    else if (pass == 2) CK(scan_zoo::inclusive_scan<Latest24x3>(x, v, scan_zoo::Shape{64, 131072}, ProbeLaterUnlessGreater{}, w, 0));
    else CK(scan_zoo::inclusive_scan<Latest16x4>(x, v, scan_zoo::Shape{64, 131072}, ProbeLaterUnlessGreater{}, w, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hv.data(), v, 64 * 131072 * 4, cudaMemcpyDeviceToHost));
    long wrong = 0;
    for (int r = 0; r < 64; ++r) { float best = 0; for (long t = 0; t < 131072; ++t) { float q = hx[r * 131072 + t]; if (t == 0 || !(best > q)) best = q; wrong += hv[r * 131072 + t] != best; } }
    std::printf("check values alone (%s) rows 64x131072: %ld wrong\n", pass == 0 ? "library" : pass == 1 ? "plain float, 3 blocks" : pass == 2 ? "24 x 3" : "16 x 4", wrong);
    bad += wrong;
  }
  return bad != 0;
}
