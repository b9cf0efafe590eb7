// multi_gpu_launcher.cuh -- the launcher (harness.cuh) of the scans across GPUs (src/multi_gpu/):
// the hardware of a run whose one global array is sharded over G GPUs, its problems in
// sharded_problem.cuh. A variant names it with `using Launcher = zoo::ShardedLauncher;`
// (ShardedVariantDefaults does) and keeps the single-GPU harness's command line, rows, exit codes,
// watchdog and timing protocol (timing.cuh); what several GPUs need is here:
//
//   NCCL   one process drives every GPU (--gpus G, default every visible one; ncclCommInitAll),
//          or one process per GPU (--nccl-id FILE --rank R --gpus G; ncclCommInitRank, rank 0
//          passing NCCL's unique id to the others through FILE), as on several nodes.
//   memory every GPU checks its own (the problem's arrays and check, the variant's workspace),
//          then all agree, so that no rank waits forever for one that gave up.
//   check  every GPU checks its shard (the problem's check), then all agree on the count of
//          wrong elements.
//   time   per rep: a barrier (a one-word NCCL all-reduce), the L2 flush on every GPU, then each
//          GPU's own event pair around the whole operation; the rep's time is the slowest GPU's
//          (each GPU waits in the exchange for the others, so that is the operation's time),
//          agreed by every process (ShardedTimer). Reps are counted alike on every rank: a
//          fixed --reps, or ~0.25 s worth from a probe rep.
//   rows   N global and G in the gpus column; printed by the process of rank 0 only.
//   errors fewer GPUs than asked, or not enough memory on any GPU: exit 4 with the count or that
//          GPU's needed and free bytes; an NCCL error: exit 4 with NCCL's text; a step of any GPU
//          longer than --timeout (a hang, or a peer that never joins): exit 5.
// --input and --output are refused (usage, exit 2): a file would have to hold the whole array on
// one host, which the scan across GPUs exists to avoid.
//
// The problem a ShardedLauncher runs provides, besides what the harness reads (problem.cuh: the
// traits, the labels, bytes_moved()):
//   place(gpus, world)                       each of this process's GPUs gets its rank's shard
//   shards()                                 what the variant's run() enqueues on
//   device_bytes(g), device_bytes_detail(g)  GPU g's arrays and check, for the memory check
//   allocate(g)                              false when the memory is not there
//   prepare(seed)                            fresh input on every GPU, the output poisoned
//   run<Variant>()                           enqueues the variant's whole run on every GPU
//   check(g, seed)                           GPU g's shard against the reference
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "../harness/harness.cuh"

namespace zoo {

[[noreturn]] inline void nccl_fatal(ncclResult_t result, const char* expression, const char* file, int line) {
  const char* last = ncclGetLastError(nullptr);
  std::fprintf(stderr, "NCCL error %d at %s:%d\n  in: %s\n  %s%s%s\n", static_cast<int>(result), file, line,
               expression, ncclGetErrorString(result), last && *last ? ": " : "", last ? last : "");
  if (current_row().n >= 0) print_untimed_row(current_row(), "ERROR");
  std::fflush(stderr);
  std::exit(kExitCudaOrMemory);
}

}  // namespace zoo

#define ZOO_NCCL(expression)                                                   \
  do {                                                                         \
    ncclResult_t zoo_nccl_result_ = (expression);                              \
    if (zoo_nccl_result_ != ncclSuccess)                                       \
      ::zoo::nccl_fatal(zoo_nccl_result_, #expression, __FILE__, __LINE__);    \
  } while (0)

namespace zoo {

// One GPU this process drives.
struct Gpu {
  int rank = 0, device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;  // the watchdog's
  L2Flusher flusher;
  long long* word = nullptr;   // the barrier's and the agreements' all-reduces (kept for the process)
  long long* host_word = nullptr;  // its pinned host side: copies to and from it stay on `stream`
};

// Waits for every GPU's queued work, with the watchdog (watchdog.cuh): a step longer than
// --timeout on any GPU ends the run (exit 5). NCCL's asynchronous errors end it too (exit 4).
inline void wait_all_or_die(const std::vector<Gpu>& gpus, const char* what) {
  for (const Gpu& gpu : gpus) {
    ZOO_CUDA(cudaSetDevice(gpu.device));
    ZOO_CUDA(cudaEventRecord(gpu.done, gpu.stream));
  }
  const auto start = std::chrono::steady_clock::now();
  for (const Gpu& gpu : gpus) {
    while (true) {
      const cudaError_t status = cudaEventQuery(gpu.done);
      if (status == cudaSuccess) break;
      if (status != cudaErrorNotReady) ZOO_CUDA(status);
      ncclResult_t async = ncclSuccess;
      ZOO_NCCL(ncclCommGetAsyncError(gpu.comm, &async));
      if (async != ncclSuccess) nccl_fatal(async, "an NCCL operation (ncclCommGetAsyncError)", __FILE__, __LINE__);
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (waited > g_timeout_s) watchdog_fire(what);
      if (waited < 1e-3) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

// The word every process agrees on: each process puts `mine` in, every one gets `op` (sum, min or
// max) of all of them. A process of several GPUs counts once in a sum: its others put in 0.
// Every copy goes through the pinned host word on the GPU's own stream. A plain cudaMemcpy from
// pageable memory may return before its bytes land, and the stream is non-blocking, so the
// all-reduce could read the word's old value: under load it read 0, and a memory check that every
// rank passed said "another rank has not enough device memory". A pageable read-back would block
// the host until the all-reduce ends, out of the watchdog's reach.
inline long long agree(std::vector<Gpu>& gpus, long long mine, ncclRedOp_t op, const char* what) {
  for (Gpu& gpu : gpus) {
    *gpu.host_word = op == ncclSum && &gpu != &gpus[0] ? 0 : mine;
    ZOO_CUDA(cudaSetDevice(gpu.device));
    ZOO_CUDA(cudaMemcpyAsync(gpu.word, gpu.host_word, sizeof *gpu.word, cudaMemcpyHostToDevice, gpu.stream));
  }
  ZOO_NCCL(ncclGroupStart());
  for (Gpu& gpu : gpus)
    ZOO_NCCL(ncclAllReduce(gpu.word, gpu.word, 1, ncclInt64, op, gpu.comm, gpu.stream));
  ZOO_NCCL(ncclGroupEnd());
  ZOO_CUDA(cudaSetDevice(gpus[0].device));
  ZOO_CUDA(cudaMemcpyAsync(gpus[0].host_word, gpus[0].word, sizeof *gpus[0].word, cudaMemcpyDeviceToHost,
                           gpus[0].stream));
  wait_all_or_die(gpus, what);
  return *gpus[0].host_word;
}

// Runs `init` (a blocking NCCL initialisation, which waits for every rank to join) under the
// watchdog: a peer that never comes ends the run with exit 5 instead of a hang.
template <class Init>
void under_watchdog(const char* what, Init&& init) {
  std::atomic<bool> finished{false};
  std::thread worker([&] {
    init();
    finished = true;
  });
  const auto start = std::chrono::steady_clock::now();
  while (!finished) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > g_timeout_s)
      watchdog_fire(what);  // _Exit: the worker thread goes with the process
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  worker.join();
}

// One process per GPU: rank 0 writes NCCL's unique id to the file (through a temporary name
// and a rename, so a reader never sees half of it); the others wait for the file to appear.
inline ncclUniqueId exchange_unique_id(const Options& options) {
  ncclUniqueId id{};
  const std::string& path = options.nccl_id_path;
  if (options.rank == 0) {
    ZOO_NCCL(ncclGetUniqueId(&id));
    const std::string temporary = path + ".partial";
    std::ofstream file(temporary, std::ios::binary);
    file.write(id.internal, sizeof id.internal);
    file.close();
    if (!file || std::rename(temporary.c_str(), path.c_str()) != 0) {
      std::fprintf(stderr, "cannot write --nccl-id file '%s': %s\n", path.c_str(), std::strerror(errno));
      std::exit(kExitUsage);
    }
    return id;
  }
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    std::ifstream file(path, std::ios::binary);
    if (file && file.read(id.internal, sizeof id.internal) && file.gcount() == sizeof id.internal) return id;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > g_timeout_s) {
      std::fprintf(stderr, "rank %d: no NCCL id in '%s' after %.3g s (--timeout): did rank 0 start?\n", options.rank,
                   path.c_str(), g_timeout_s);
      std::exit(kExitWatchdog);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Before each rep: a barrier (a one-word all-reduce: no GPU starts before every process is
// there), then the L2 flush on every GPU, unless --hot.
inline void barrier_then_flush(std::vector<Gpu>& gpus, bool hot) {
  agree(gpus, 0, ncclSum, "the barrier before a rep");
  for (Gpu& gpu : gpus) {
    ZOO_CUDA(cudaSetDevice(gpu.device));
    if (!hot) gpu.flusher.flush(gpu.stream);
  }
}

// The timer (timing.cuh) of a run over several GPUs: per rep the barrier and the flush, each
// GPU's own event pair around the whole operation, and the slowest GPU's time, agreed by every
// process. Every rank sees the same times, so all take the protocol's decisions (the rep count, a
// noisy batch measured again) together and their collectives stay in step.
class ShardedTimer {
 public:
  static constexpr bool kSameRepsOnEveryProcess = true;

  ShardedTimer(std::vector<Gpu>& gpus, const Options& options)
      : gpus_(gpus), hot_(options.hot), starts_(gpus.size()), stops_(gpus.size()) {
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
      ZOO_CUDA(cudaSetDevice(gpus_[g].device));
      ZOO_CUDA(cudaEventCreate(&starts_[g]));
      ZOO_CUDA(cudaEventCreate(&stops_[g]));
    }
  }
  ShardedTimer(const ShardedTimer&) = delete;
  ShardedTimer& operator=(const ShardedTimer&) = delete;
  ~ShardedTimer() {
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
      ZOO_CUDA(cudaEventDestroy(starts_[g]));
      ZOO_CUDA(cudaEventDestroy(stops_[g]));
    }
  }

  // One rep per host synchronization: each starts behind a barrier of every process.
  int group() const { return 1; }
  template <class RunOnce>
  void warm_up(RunOnce& run_once) {
    run_once();
    wait_all_or_die(gpus_, "a warm-up run");
  }
  template <class RunOnce>
  void time_group(int count, RunOnce& run_once, std::vector<float>& times_ms) {
    for (int rep = 0; rep < count; ++rep) times_ms.push_back(timed_rep(run_once));
  }

 private:
  template <class RunOnce>
  float timed_rep(RunOnce& run_once) {
    barrier_then_flush(gpus_, hot_);
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
      ZOO_CUDA(cudaSetDevice(gpus_[g].device));
      ZOO_CUDA(cudaEventRecord(starts_[g], gpus_[g].stream));
    }
    run_once();
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
      ZOO_CUDA(cudaSetDevice(gpus_[g].device));
      ZOO_CUDA(cudaEventRecord(stops_[g], gpus_[g].stream));
    }
    wait_all_or_die(gpus_, "a timed run");
    float slowest = 0;
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
      float ms = 0;
      ZOO_CUDA(cudaEventElapsedTime(&ms, starts_[g], stops_[g]));
      slowest = std::max(slowest, ms);
    }
    // Across processes: the slowest GPU of all, in nanoseconds (the agreement is on integers).
    return static_cast<float>(agree(gpus_, std::llround(slowest * 1e6), ncclMax, "agreeing on a rep") * 1e-6);
  }

  std::vector<Gpu>& gpus_;
  bool hot_;
  std::vector<cudaEvent_t> starts_, stops_;
};

// The launcher of the scans across GPUs: this process's GPUs and their communicators, set up
// once (start); per combination, the problem's shards on them (Launch).
class ShardedLauncher {
 public:
  static constexpr const char* kDescription = "a scan across GPUs of scan-zoo";

  static bool accepts(const Options& options, const std::string& variant) {
    if (!options.input_path.empty() || !options.output_path.empty()) {
      std::fprintf(stderr, "%s: error: --input and --output are not supported: the multi-GPU binaries generate "
                           "their input on the GPUs and check it there\n", variant.c_str());
      return false;
    }
    if (options.values || options.segment_length > 0) {
      std::fprintf(stderr, "%s: error: --values and --segment-length are for the sorts and the segmented scans\n",
                   variant.c_str());
      return false;
    }
    return true;
  }

  ShardedLauncher() = default;
  ShardedLauncher(const ShardedLauncher&) = delete;
  ShardedLauncher& operator=(const ShardedLauncher&) = delete;
  ~ShardedLauncher() {
    for (Gpu& gpu : gpus_) ncclCommDestroy(gpu.comm);
  }

  // The GPUs of this process and their communicators, where some combination will run; exits 4
  // when fewer GPUs are visible than asked.
  void start(const Options& options, const std::string& variant, bool runs_any) {
    options_ = &options;
    if (!runs_any) return;
    ensure_cuda_device();
    int visible = 0;
    ZOO_CUDA(cudaGetDeviceCount(&visible));
    const bool per_process = options.rank >= 0;
    world_ = options.gpus > 0 ? options.gpus : visible;
    const int needed = per_process ? 1 : world_;
    if (needed > visible) {
      std::fprintf(stderr, "%s: --gpus %d asks for %d GPUs in this process, but %d %s visible\n", variant.c_str(),
                   world_, needed, visible, visible == 1 ? "is" : "are");
      std::exit(kExitCudaOrMemory);
    }
    gpus_.resize(needed);
    std::vector<ncclComm_t> comms(needed);
    if (per_process) {
      Gpu& gpu = gpus_[0];
      gpu.rank = options.rank;
      gpu.device = options.rank % visible;  // with CUDA_VISIBLE_DEVICES set per process: device 0
      prints_rows_ = options.rank == 0;
      if (options.rank == 0 && std::ifstream(options.nccl_id_path)) {
        std::fprintf(stderr, "%s: --nccl-id file '%s' exists already: give a fresh path for each launch\n",
                     variant.c_str(), options.nccl_id_path.c_str());
        std::exit(kExitUsage);
      }
      const ncclUniqueId id = exchange_unique_id(options);
      ZOO_CUDA(cudaSetDevice(gpu.device));
      under_watchdog("joining the other ranks (ncclCommInitRank)",
                     [&] { ZOO_NCCL(ncclCommInitRank(&comms[0], world_, id, options.rank)); });
      if (options.rank == 0) std::remove(options.nccl_id_path.c_str());  // everyone has read it
    } else {
      std::vector<int> devices(needed);
      for (int g = 0; g < needed; ++g) gpus_[g].rank = gpus_[g].device = devices[g] = g;
      under_watchdog("setting up NCCL (ncclCommInitAll)",
                     [&] { ZOO_NCCL(ncclCommInitAll(comms.data(), needed, devices.data())); });
    }
    for (int g = 0; g < needed; ++g) {
      Gpu& gpu = gpus_[g];
      gpu.comm = comms[g];
      ZOO_CUDA(cudaSetDevice(gpu.device));
      ZOO_CUDA(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking));
      ZOO_CUDA(cudaEventCreateWithFlags(&gpu.done, cudaEventDisableTiming));
      ZOO_CUDA(cudaMalloc(&gpu.word, sizeof(long long)));
      ZOO_CUDA(cudaMallocHost(&gpu.host_word, sizeof(long long)));
      // Every GPU is taken to be of one kind: the flush is sized by the first one's L2.
      if (!options.check_only && !options.hot) gpu.flusher.prepare();
    }
  }
  bool prints_rows() const { return prints_rows_; }  // the process of rank 0
  int world() const { return world_; }                 // every process's GPUs together
  std::string label(const RowLabel& row) const { return row_label(row) + " gpus=" + std::to_string(world_); }
  std::vector<Gpu>& gpus() { return gpus_; }           // the ones this process drives

  // One combination: the problem's shards on this process's GPUs.
  template <class Variant, class T, class Op>
  class Launch {
   public:
    using Problem = ProblemOf<Variant, T, Op>;
    Launch(ShardedLauncher& launcher, Problem& problem, const RowLabel& row, const std::string& label)
        : launcher_(launcher), gpus_(launcher.gpus_), problem_(problem), row_(row), label_(label) {
      problem_.place(gpus_, launcher.world_);
    }

    // Every GPU checks its own memory, then all agree: a rank that gave up alone would leave the
    // others waiting in their next collective.
    bool allocate(Ending& ending) {
      bool fits = true;
      for (std::size_t g = 0; g < gpus_.size(); ++g) {
        ZOO_CUDA(cudaSetDevice(gpus_[g].device));
        const std::size_t workspace_bytes = Variant::template workspace_bytes<T, Op>(problem_.shards()[g].n);
        const std::size_t needed = add_bytes(problem_.device_bytes(g), workspace_bytes);
        std::size_t free_bytes = 0, total_bytes = 0;
        ZOO_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
        if (needed > free_bytes || !problem_.allocate(g)) {
          std::fprintf(stderr,
                       "%s: not enough device memory on GPU %d (rank %d): needs %zu bytes (%s: %s, workspace %zu); "
                       "%zu bytes (%s) free of %zu\n",
                       label_.c_str(), gpus_[g].device, gpus_[g].rank, needed, human_bytes(double(needed)).c_str(),
                       problem_.device_bytes_detail(g).c_str(), workspace_bytes, free_bytes,
                       human_bytes(double(free_bytes)).c_str(), total_bytes);
          fits = false;
        }
      }
      if (agree(gpus_, fits ? 1 : 0, ncclMin, "agreeing on the memory check") != 0) return true;
      if (fits) std::fprintf(stderr, "%s: another rank has not enough device memory\n", label_.c_str());
      ending = {"SKIPPED(device-memory)", kExitCudaOrMemory};
      return false;
    }

    // The verified rounds: fresh data on every GPU, the output poisoned, one run, every element
    // checked on its GPU. The run's wall time is not recorded for --budget-ms: it differs between
    // processes, which must skip the same sizes; the timed median, which they agree on, is.
    bool verify(RunTimes&, const std::string&, Ending& ending) {
      const Options& options = *launcher_.options_;
      for (int round = 0; round < options.repeat; ++round) {
        const std::uint64_t seed = combination_seed(options.seed, row_) ^ mix64(round);
        problem_.prepare(seed);
        if (options.inject_hang) hang_the_last_rank();
        run();
        wait_all_or_die(gpus_, "the verified run");
        long long wrong = 0;
        for (std::size_t g = 0; g < gpus_.size(); ++g) {
          ZOO_CUDA(cudaSetDevice(gpus_[g].device));
          const VerifyResult result = problem_.check(g, seed);
          if (!result.ok()) {
            std::fprintf(stderr,
                         "%s: GPU check: FAIL on rank %d (round %d of %d): %lld of its %lld elements wrong; first at "
                         "global index %lld: expected %s, got %s\n",
                         label_.c_str(), gpus_[g].rank, round + 1, options.repeat,
                         static_cast<long long>(result.mismatches), static_cast<long long>(problem_.shards()[g].n),
                         static_cast<long long>(result.first_bad), result.expected.c_str(), result.got.c_str());
            wrong += result.mismatches;
          }
        }
        if (agree(gpus_, wrong, ncclSum, "agreeing on the check") > 0) {
          ending = {"FAIL", kExitVerifyFailed};
          return false;
        }
      }
      std::fprintf(stderr, "%s: GPU check of every element: PASS%s\n", label_.c_str(),
                   options.repeat > 1 ? (" (" + std::to_string(options.repeat) + " rounds)").c_str() : "");
      return true;
    }
    void run() { problem_.template run<Variant>(); }
    ShardedTimer timer() { return ShardedTimer(gpus_, *launcher_.options_); }

   private:
    // --inject-hang (tests): the last rank never finishes (a kernel waits on its barrier word,
    // which nobody sets), and the others wait for it in the exchange.
    void hang_the_last_rank() {
      for (Gpu& gpu : gpus_) {
        if (gpu.rank != launcher_.world_ - 1) continue;
        std::fprintf(stderr, "%s: --inject-hang: rank %d never finishes; the others wait for it\n", label_.c_str(),
                     gpu.rank);
        ZOO_CUDA(cudaSetDevice(gpu.device));
        ZOO_CUDA(cudaMemsetAsync(gpu.word, 0, sizeof(long long), gpu.stream));
        never_finishing_kernel<<<1, 1, 0, gpu.stream>>>(reinterpret_cast<const int*>(gpu.word));
        ZOO_CHECK_LAUNCH();
      }
    }

    ShardedLauncher& launcher_;
    std::vector<Gpu>& gpus_;
    Problem& problem_;
    const RowLabel& row_;
    const std::string& label_;
  };

 private:
  const Options* options_ = nullptr;
  std::vector<Gpu> gpus_;
  int world_ = 1;
  bool prints_rows_ = true;
};

}  // namespace zoo
