// timing.cuh -- the timing protocol (docs/protocol.md, "How it measures"): the L2 flush
// between reps, events around every whole run, warm-up, an adaptive rep count, the median with
// the spread, and a noisy batch of reps measured again.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "../core/cuda_check.cuh"
#include "../core/rows.hpp"
#include "cli.hpp"
#include "watchdog.cuh"

namespace zoo {

// Facts about the current device, queried once.
inline const cudaDeviceProp& device_props() {
  static cudaDeviceProp props = [] {
    cudaDeviceProp p{};
    int device = 0;
    ZOO_CUDA(cudaGetDevice(&device));
    ZOO_CUDA(cudaGetDeviceProperties(&p, device));
    return p;
  }();
  return props;
}

// Cold-L2 timing: before each timed rep, read a buffer twice the L2 size so the scan finds none
// of its data in cache. Reading (not memset) leaves clean lines, so no write-back of the flush
// traffic leaks into the timed region.
__global__ void read_to_flush_l2(const int4* __restrict__ buffer, std::size_t count, int* sink) {
  int folded = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    int4 v = __ldcg(buffer + i);
    folded ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (folded == 1) *sink = folded;  // the buffer is zero: never taken, but keeps the loads alive
}

class L2Flusher {
 public:
  // Allocated before the first size's memory check, so that the checks see it as taken.
  void prepare() {
    if (buffer_) return;
    bytes_ = std::max<std::size_t>(2 * std::size_t(device_props().l2CacheSize), 32u << 20);
    ZOO_CUDA(cudaMalloc(&buffer_, bytes_ + sizeof(int4)));
    ZOO_CUDA(cudaMemset(buffer_, 0, bytes_ + sizeof(int4)));
  }
  void flush(cudaStream_t stream) {
    prepare();
    const std::size_t count = bytes_ / sizeof(int4);
    read_to_flush_l2<<<device_props().multiProcessorCount * 4, 512, 0, stream>>>(
        buffer_, count, reinterpret_cast<int*>(buffer_ + count));
    ZOO_CHECK_LAUNCH();
  }

 private:
  int4* buffer_ = nullptr;  // kept for the life of the process
  std::size_t bytes_ = 0;
};

// The q-quantile of sorted times, interpolated linearly between the two nearest reps: at
// q = 0.5 this is the usual median (the middle rep, or the mean of the two middle ones), and the
// percentiles of the row follow the same rule.
inline double quantile(const std::vector<float>& sorted_ms, double q) {
  const double position = q * double(sorted_ms.size() - 1);
  const std::size_t below = static_cast<std::size_t>(position);
  const std::size_t above = std::min(below + 1, sorted_ms.size() - 1);
  return sorted_ms[below] + (position - double(below)) * (double(sorted_ms[above]) - sorted_ms[below]);
}

// The row's figures from the reps' times (at least one).
inline Stats summarize(std::vector<float> times_ms) {
  std::sort(times_ms.begin(), times_ms.end());
  Stats stats;
  stats.reps = static_cast<int>(times_ms.size());
  stats.median_ms = quantile(times_ms, 0.5);
  stats.min_ms = times_ms.front();
  stats.max_ms = times_ms.back();
  stats.p10_ms = quantile(times_ms, 0.1);
  stats.p90_ms = quantile(times_ms, 0.9);
  return stats;
}

// Adaptive repetitions: at least kMinReps, then until kAutoBudgetS of wall time or kMaxReps.
constexpr int kMinReps = 10;
constexpr int kMaxReps = 300;
constexpr double kAutoBudgetS = 0.25;
constexpr int kHotGroup = 10;  // hot reps enqueued per host synchronization

// A batch of reps is noisy when its median is more than this many times its min. A scan's time
// barely depends on anything but N, so the bulk of its reps sit near the fastest one; a median far
// above the min means something else shared the GPU or the host during the batch (a CUB row at
// 2^11 with median 31.9 us and min 6.4 us reached a published table). The rule stays derivable
// from the row itself (median_ms / min_ms), so the tables can mark such rows without a new status.
constexpr double kNoisyMedianOverMin = 1.5;
// How many more whole batches (warm-up included) a noisy batch gets. The row reports the last
// one, not the best: picking the fastest batch would bias the tables toward fast.
constexpr int kNoisyRemeasures = 2;

inline bool noisy(const Stats& stats) { return stats.median_ms > kNoisyMedianOverMin * stats.min_ms; }

// One batch by the protocol of docs/protocol.md, "How it measures": warm-up, then reps each bracketed by
// its own event pair, adaptive count. Cold reps are timed one at a time, each behind its L2 flush
// (which also keeps the GPU busy while the rep is enqueued, so launch latency is not timed). Hot
// reps have nothing in front of them: they are enqueued in groups behind one untimed rep, each
// with its own event pair, so every timed rep waits in the queue behind the previous one and
// starts on a busy GPU with the previous rep's data in L2.
template <class RunOnce>
Stats time_batch(const Options& options, cudaStream_t stream, L2Flusher& flusher, RunOnce&& run_once) {
  for (int i = 0; i < options.warmup; ++i) {
    run_once();
    ZOO_CHECK_LAUNCH();
    wait_or_die(stream, "a warm-up scan");
  }
  const int group = options.hot ? kHotGroup : 1;
  std::vector<cudaEvent_t> starts(group), stops(group);
  for (int b = 0; b < group; ++b) {
    ZOO_CUDA(cudaEventCreate(&starts[b]));
    ZOO_CUDA(cudaEventCreate(&stops[b]));
  }
  std::vector<float> times_ms;
  const auto timing_began = std::chrono::steady_clock::now();
  while (true) {
    const int done = static_cast<int>(times_ms.size());
    if (options.reps > 0) {
      if (done >= options.reps) break;
    } else if (done >= kMinReps) {
      double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - timing_began).count();
      if (spent >= kAutoBudgetS || done >= kMaxReps) break;
    }
    const int count = std::min(group, (options.reps > 0 ? options.reps : kMaxReps) - done);
    if (options.hot) {
      run_once();  // the untimed lead
      ZOO_CHECK_LAUNCH();
    }
    for (int b = 0; b < count; ++b) {
      if (!options.hot) flusher.flush(stream);
      ZOO_CUDA(cudaEventRecord(starts[b], stream));
      run_once();
      ZOO_CHECK_LAUNCH();
      ZOO_CUDA(cudaEventRecord(stops[b], stream));
    }
    wait_or_die(stream, "a timed scan");
    for (int b = 0; b < count; ++b) {
      float ms = 0;
      ZOO_CUDA(cudaEventElapsedTime(&ms, starts[b], stops[b]));
      times_ms.push_back(ms);
    }
  }
  for (int b = 0; b < group; ++b) {
    ZOO_CUDA(cudaEventDestroy(starts[b]));
    ZOO_CUDA(cudaEventDestroy(stops[b]));
  }
  return summarize(times_ms);
}

// A noisy batch measured again: `stats` is a first batch's, measure_batch() measures a whole new
// one (warm-up included); while the batch is noisy, at most kNoisyRemeasures more times. stderr
// says which rows were re-measured (`label`) and whether they settled; the row reports the last
// batch. Shared by the one-GPU harness (time_reps) and the multi-GPU one, whose batches are the
// same on every process (each rep's time is agreed), so that all take the same decisions.
template <class MeasureBatch>
Stats remeasure_while_noisy(Stats stats, const std::string& label, MeasureBatch&& measure_batch) {
  if (!noisy(stats)) return stats;
  for (int remeasure = 1; remeasure <= kNoisyRemeasures && noisy(stats); ++remeasure) {
    std::fprintf(stderr,
                 "%s: noisy: median %.4f ms is %.2fx the min %.4f ms (over %.1fx): measuring again (%d of %d)\n",
                 label.c_str(), stats.median_ms, stats.median_ms / stats.min_ms, stats.min_ms, kNoisyMedianOverMin,
                 remeasure, kNoisyRemeasures);
    stats = measure_batch();
  }
  if (noisy(stats))
    std::fprintf(stderr,
                 "%s: still noisy after %d more batches: the row reports the last (median %.4f ms, %.2fx the min)\n",
                 label.c_str(), kNoisyRemeasures, stats.median_ms, stats.median_ms / stats.min_ms);
  else
    std::fprintf(stderr, "%s: settled: median %.4f ms, %.2fx the min\n", label.c_str(), stats.median_ms,
                 stats.median_ms / stats.min_ms);
  return stats;
}

// Times run_once() (which enqueues one whole scan on `stream`): one batch (time_batch), measured
// again while it is noisy (remeasure_while_noisy).
template <class RunOnce>
Stats time_reps(const Options& options, cudaStream_t stream, L2Flusher& flusher, RunOnce&& run_once) {
  const auto batch = [&] { return time_batch(options, stream, flusher, run_once); };
  return remeasure_while_noisy(batch(), row_label(current_row()), batch);
}

}  // namespace zoo
