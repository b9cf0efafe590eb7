// hangprobe.cu -- does the library's cummax/cummin of lines of many tiles finish, and if not,
// which descriptor is it waiting for? (bench/NOTES.md, "torch's scan ops: the padding of a pair".)
// Alternates cummax and cummin of 8 x 131072 and of one line of 100003 (random integers -5..5 as
// T, positions of type P), each checked element by element against a serial reference; a call
// that has not finished after 10 s has the descriptors of its run copied out on a second stream
// while it spins, and printed as [epoch, status, low 32 bits] for each of a tile's four words
// (the row kernel's layout for a 16-byte accumulator: PackedTileStatePieces, 4 words a tile).
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude bench/h200/torch_scan_ops/padding/hangprobe.cu -o hangprobe
//   ./hangprobe double32|int64_32|double64|float32|int32_32 [reps]
#include <scan_zoo/extremes.cuh>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <unistd.h>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); std::fflush(stdout); _exit(2);} } while (0)

static bool wait_for(cudaStream_t s, double seconds) {
  auto t0 = std::chrono::steady_clock::now();
  while (true) {
    cudaError_t e = cudaStreamQuery(s);
    if (e == cudaSuccess) return true;
    if (e != cudaErrorNotReady) { std::printf("error %s\n", cudaGetErrorString(e)); std::fflush(stdout); _exit(2); }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

template <class T, class P>
int run(const char* name, int reps) {
  const std::int64_t rows = 8, length = 131072, n = rows * length;
  std::vector<T> h(n);
  std::mt19937 gen(1234);
  std::uniform_int_distribution<int> d(-5, 5);
  for (auto& v : h) v = T(d(gen));
  T *x, *v; std::int64_t* idx;
  CK(cudaMalloc(&x, n * sizeof(T))); CK(cudaMalloc(&v, n * sizeof(T))); CK(cudaMalloc(&idx, n * 8));
  CK(cudaMemcpy(x, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  std::size_t bytes = std::max(scan_zoo::extremes_workspace_bytes<T, P>(scan_zoo::Shape{rows, length}),
                               scan_zoo::extremes_workspace_bytes<T, P>(scan_zoo::Shape{1, 100003}));
  bytes = bytes * 3 / 2;
  void* wmem; CK(cudaMalloc(&wmem, bytes));
  scan_zoo::Workspace w(wmem, bytes);
  cudaStream_t s, side; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); CK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  std::vector<T> hv(n); std::vector<std::int64_t> hi(n);
  unsigned long long* words; CK(cudaMallocHost(&words, bytes));
  int failures = 0;
  for (int rep = 0; rep < reps; ++rep) {
    const bool one_d = rep % 2 == 1;
    const scan_zoo::Shape shape = one_d ? scan_zoo::Shape{1, 100003} : scan_zoo::Shape{rows, length};
    const bool max = (rep / 2) % 2 == 0;
    CK(cudaMemsetAsync(v, 0xff, n * sizeof(T), s)); CK(cudaMemsetAsync(idx, 0xff, n * 8, s));
    CK(cudaStreamSynchronize(s));
    cudaError_t e = max ? scan_zoo::cummax<P>(x, v, idx, shape, w, s) : scan_zoo::cummin<P>(x, v, idx, shape, w, s);
    if (e != cudaSuccess) { std::printf("%s rep %d: call error %s\n", name, rep, cudaGetErrorString(e)); return 1; }
    if (!wait_for(s, 10.0)) {
      const std::int64_t count = shape.outer * shape.length, tiles = (count + 4095) / 4096;
      std::printf("%s rep %d (%s, %s): STALLED after 10 s; %lld tiles\n", name, rep, one_d ? "1-D 100003" : "8x131072",
                  max ? "max" : "min", (long long)tiles);
      CK(cudaMemcpyAsync(words, wmem, tiles * 4 * 8, cudaMemcpyDeviceToHost, side));
      if (!wait_for(side, 5.0)) { std::printf("side copy stalled too\n"); std::fflush(stdout); _exit(3); }
      unsigned epoch = 0;
      for (std::int64_t t = 0; t < tiles; ++t)
        for (int p = 0; p < 4; ++p) epoch = std::max(epoch, unsigned(words[t * 4 + p] >> 34));
      std::printf("highest epoch %u\n", epoch);
      for (std::int64_t t = 0; t < tiles; ++t) {
        std::printf("tile %4lld:", (long long)t);
        for (int p = 0; p < 4; ++p) {
          unsigned tag = unsigned(words[t * 4 + p] >> 32);
          std::printf(" [e%u s%u %08x]", tag >> 2, tag & 3, unsigned(words[t * 4 + p]));
        }
        std::printf("\n");
      }
      std::fflush(stdout);
      _exit(3);
    }
    CK(cudaMemcpy(hv.data(), v, shape.outer * shape.length * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hi.data(), idx, shape.outer * shape.length * 8, cudaMemcpyDeviceToHost));
    std::int64_t bad = 0;
    for (std::int64_t r = 0; r < shape.outer; ++r) {
      T best = 0; std::int64_t at = -1;
      for (std::int64_t t = 0; t < shape.length; ++t) {
        const T val = h[r * shape.length + t];
        if (at < 0 || (max ? !(best > val) : !(best < val))) { best = val; at = t; }
        if (hv[r * shape.length + t] != best || hi[r * shape.length + t] != at) ++bad;
      }
    }
    if (bad) { ++failures; std::printf("%s rep %d: %lld wrong\n", name, rep, (long long)bad); }
  }
  std::printf("%s: %d reps finished, %d with wrong elements\n", name, reps, failures);
  return failures ? 1 : 0;
}

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "double32";
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  if (!std::strcmp(which, "double32")) return run<double, std::int32_t>(which, reps);
  if (!std::strcmp(which, "int64_32")) return run<std::int64_t, std::int32_t>(which, reps);
  if (!std::strcmp(which, "double64")) return run<double, std::int64_t>(which, reps);
  if (!std::strcmp(which, "float32")) return run<float, std::int32_t>(which, reps);
  if (!std::strcmp(which, "int32_32")) return run<std::int32_t, std::int32_t>(which, reps);
  std::printf("unknown %s\n", which);
  return 2;
}
