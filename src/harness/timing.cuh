// timing.cuh -- the timing protocol (docs/protocol.md, "How it measures"): the L2 flush
// between reps, events around every whole run, warm-up, an adaptive rep count, the median with
// the spread, and a noisy batch of reps measured again. The protocol (time_batch, time_reps)
// runs over a *timer*, which says how one rep is timed on the hardware of the run:
//
//   struct Timer {
//     static constexpr bool kSameRepsOnEveryProcess;  // true: every process runs as many reps as
//                                                     // the others (each rep is a collective), so
//                                                     // an adaptive count comes from a probe rep's
//                                                     // agreed time, not from a process's clock
//     int group() const;                              // reps enqueued per host synchronization
//     void warm_up(RunOnce&);                         // one untimed run, waited for
//     void time_group(int count, RunOnce&, std::vector<float>& times_ms);
//                                                     // count timed reps, their times appended
//   };
//
// OneGpuTimer (here): an event pair on one stream per rep, behind the L2 flush. Several GPUs:
// ShardedTimer (src/multi_gpu/multi_gpu_launcher.cuh).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
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
// above the min means something else shared the GPU or the host during the batch (a CUB row
// whose median was five times its min once reached a published table). The rule stays derivable
// from the row itself (median_ms / min_ms), so the tables can mark such rows without a new status.
constexpr double kNoisyMedianOverMin = 1.5;
// How many more whole batches (warm-up included) a noisy batch gets. The row reports the last
// one, not the best: picking the fastest batch would bias the tables toward fast.
constexpr int kNoisyRemeasures = 2;

inline bool noisy(const Stats& stats) { return stats.median_ms > kNoisyMedianOverMin * stats.min_ms; }

// One GPU: every rep between its own event pair on `stream`. Cold reps are timed one at a time,
// each behind its L2 flush (which also keeps the GPU busy while the rep is enqueued, so launch
// latency is not timed). Hot reps have nothing in front of them: they are enqueued in groups
// behind one untimed rep, each with its own event pair, so every timed rep waits in the queue
// behind the previous one and starts on a busy GPU with the previous rep's data in L2.
class OneGpuTimer {
 public:
  static constexpr bool kSameRepsOnEveryProcess = false;  // one process: its clock decides

  OneGpuTimer(const Options& options, cudaStream_t stream, L2Flusher& flusher)
      : hot_(options.hot), stream_(stream), flusher_(flusher), starts_(group()), stops_(group()) {
    for (int b = 0; b < group(); ++b) {
      ZOO_CUDA(cudaEventCreate(&starts_[b]));
      ZOO_CUDA(cudaEventCreate(&stops_[b]));
    }
  }
  OneGpuTimer(const OneGpuTimer&) = delete;
  OneGpuTimer& operator=(const OneGpuTimer&) = delete;
  ~OneGpuTimer() {
    for (int b = 0; b < group(); ++b) {
      ZOO_CUDA(cudaEventDestroy(starts_[b]));
      ZOO_CUDA(cudaEventDestroy(stops_[b]));
    }
  }

  int group() const { return hot_ ? kHotGroup : 1; }
  template <class RunOnce>
  void warm_up(RunOnce& run_once) {
    run_once();
    ZOO_CHECK_LAUNCH();
    wait_or_die(stream_, "a warm-up scan");
  }
  template <class RunOnce>
  void time_group(int count, RunOnce& run_once, std::vector<float>& times_ms) {
    if (hot_) {
      run_once();  // the untimed lead
      ZOO_CHECK_LAUNCH();
    }
    for (int b = 0; b < count; ++b) {
      if (!hot_) flusher_.flush(stream_);
      ZOO_CUDA(cudaEventRecord(starts_[b], stream_));
      run_once();
      ZOO_CHECK_LAUNCH();
      ZOO_CUDA(cudaEventRecord(stops_[b], stream_));
    }
    wait_or_die(stream_, "a timed scan");
    for (int b = 0; b < count; ++b) {
      float ms = 0;
      ZOO_CUDA(cudaEventElapsedTime(&ms, starts_[b], stops_[b]));
      times_ms.push_back(ms);
    }
  }

 private:
  bool hot_;
  cudaStream_t stream_;
  L2Flusher& flusher_;
  std::vector<cudaEvent_t> starts_, stops_;
};

// One batch by the protocol of docs/protocol.md, "How it measures": warm-up, then reps (each
// timed by the timer), a fixed --reps or an adaptive count: at least kMinReps, then until
// kAutoBudgetS of wall time or kMaxReps. A timer whose processes must run equal counts fixes the
// adaptive count from a probe rep instead (which counts as the first): its time is agreed, a
// process's clock is not.
template <class Timer, class RunOnce>
Stats time_batch(const Options& options, Timer& timer, RunOnce& run_once) {
  for (int i = 0; i < options.warmup; ++i) timer.warm_up(run_once);
  std::vector<float> times_ms;
  int reps = options.reps;  // 0: adaptive
  if (reps == 0 && Timer::kSameRepsOnEveryProcess) {
    timer.time_group(1, run_once, times_ms);
    reps = static_cast<int>(
        std::clamp<double>(std::ceil(kAutoBudgetS * 1e3 / std::max(times_ms[0], 1e-3f)), kMinReps, kMaxReps));
  }
  const auto timing_began = std::chrono::steady_clock::now();
  while (true) {
    const int done = static_cast<int>(times_ms.size());
    if (reps > 0) {
      if (done >= reps) break;
    } else if (done >= kMinReps) {
      double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - timing_began).count();
      if (spent >= kAutoBudgetS || done >= kMaxReps) break;
    }
    timer.time_group(std::min(timer.group(), (reps > 0 ? reps : kMaxReps) - done), run_once, times_ms);
  }
  return summarize(times_ms);
}

// A noisy batch measured again: `stats` is a first batch's, measure_batch() measures a whole new
// one (warm-up included); while the batch is noisy, at most kNoisyRemeasures more times. stderr
// says which rows were re-measured (`label`) and whether they settled; the row reports the last
// batch. Where several processes time together, their batches are the same (each rep's time is
// agreed), so that all take the same decisions.
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

// Times run_once() (which enqueues one whole run) with `timer`: one batch (time_batch), measured
// again while it is noisy (remeasure_while_noisy); `label` names the row in stderr's lines.
template <class Timer, class RunOnce>
Stats time_reps(const Options& options, Timer& timer, const std::string& label, RunOnce&& run_once) {
  const auto batch = [&] { return time_batch(options, timer, run_once); };
  return remeasure_while_noisy(batch(), label, batch);
}

// The same on one GPU, for the programs that time outside ZOO_MAIN (probes/, tune/): run_once()
// enqueues one whole scan on `stream`, and the row in progress (current_row()) names the lines.
template <class RunOnce>
Stats time_reps(const Options& options, cudaStream_t stream, L2Flusher& flusher, RunOnce&& run_once) {
  OneGpuTimer timer(options, stream, flusher);
  return time_reps(options, timer, row_label(current_row()), run_once);
}

}  // namespace zoo
