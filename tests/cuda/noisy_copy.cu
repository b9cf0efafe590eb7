// noisy_copy -- a test fixture, not a scan: a copy (checked as one) whose every other run takes
// about a millisecond longer, like a GPU that something else keeps busy half of the time. Its
// median is then far above its min, so the harness must flag the batch as noisy and measure it
// again (timing.cuh, time_reps). SCAN_ZOO_NOISY_RUNS=K limits the slow runs to the first K of
// the process (the verified run counts), so that a later batch can settle; unset, every batch
// stays noisy. Built into build/tests/, never into bin/.
#include <cstdlib>

#include "harness/harness.cuh"

// Holds one thread for about `cycles` clock ticks (a millisecond at 2 GHz for 2e6).
__global__ void hold_the_gpu(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

struct NoisyCopy : zoo::VariantDefaults {
  template <class T, class Op>
  using Problem = zoo::CopyProblem<T, Op>;

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, zoo::ScanKind, zoo::Workspace, cudaStream_t stream) {
    static const char* limit = std::getenv("SCAN_ZOO_NOISY_RUNS");
    static const long long noisy_runs = limit ? std::atoll(limit) : -1;
    static long long runs = 0;
    const long long run = runs++;
    if (run % 2 == 1 && (noisy_runs < 0 || run < noisy_runs)) hold_the_gpu<<<1, 1, 0, stream>>>(2'000'000);
    ZOO_CUDA(cudaMemcpyAsync(out, in, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  }
};

ZOO_MAIN(NoisyCopy)
