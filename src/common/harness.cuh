// harness.cuh -- the one header every variant includes. It owns main(): the command line,
// device query, allocation, input generation, the CPU reference and verification, the watchdog,
// timing and the output row. A variant supplies only its kernels and a small struct:
//
//   struct MyScan : zoo::VariantDefaults {
//     static constexpr std::int64_t kTileItems = 1024;      // items per tile (tests use it)
//     template <class T, class Op>
//     static std::size_t workspace_bytes(std::int64_t n);   // scratch it needs (default 0)
//     template <class T, class Op>
//     static void run(const T* in, T* out, std::int64_t n, zoo::ScanKind kind,
//                     zoo::Workspace workspace, cudaStream_t stream);
//                                                          // every launch, state reset included
//                                                          // (the workspace arrives zeroed once)
//   };
//   ZOO_MAIN(MyScan)
//
// Optional members (defaults in VariantDefaults): `using Types = zoo::TypeList<...>` to build
// for fewer element types; `unsupported_reason<T, Op>(kind)` to refuse a combination before it
// runs, `unsupported_size(n)` to refuse a size, and `refusal_after_run<T, Op>(n, workspace,
// stream)` to refuse a result the data made unrepresentable (all exit code 3); and
// `template <class T, class Op> using Problem = ...` for a variant that solves something other
// than a scan (problem.cuh: the memcpy row's copy; applications.cuh: segmented scan, stream
// compaction, sort). The problem owns the inputs, the output, the CPU check and the signature
// of run(); the harness owns everything else.
// The binary's name, and the name in its rows, is the .cu file's stem.
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "cli.hpp"
#include "cuda_check.cuh"
#include "ops.cuh"
#include "problem.cuh"
#include "reference.hpp"

namespace zoo {

struct VariantDefaults {
  using Types = DefaultTypes;
  template <class T, class Op>
  using Problem = ScanProblem<T, Op>;
  static constexpr std::int64_t kTileItems = 0;  // 0: the variant has no tile (e.g. sequential)
  // True where the kernel honours detail::g_silent_tile (--inject-hang): the single-pass scans.
  static constexpr bool kHasSilentTile = false;
  template <class T, class Op>
  static const char* unsupported_reason(ScanKind) { return nullptr; }
  // A size the variant cannot handle (exit code 3, WAIVED row), e.g. one beyond 32-bit offsets.
  static const char* unsupported_size(std::int64_t) { return nullptr; }
  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t) { return 0; }
  // Called after the verified run has finished: a variant that found the data beyond what it
  // can represent (e.g. a value too wide for its tile descriptor) refuses the result (exit 3).
  template <class T, class Op>
  static const char* refusal_after_run(std::int64_t, Workspace, cudaStream_t) { return nullptr; }
};

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

namespace detail {

template <class T, class... Ts>
constexpr bool contains(TypeList<Ts...>) { return (std::is_same_v<T, Ts> || ...); }

// Calls fn(T{}) for the T of AllTypes whose name matches.
template <class Fn, class... Ts>
void with_type(const std::string& name, TypeList<Ts...>, Fn&& fn) {
  ((name == TypeInfo<Ts>::name ? (fn(Ts{}), 0) : 0), ...);
}
template <class Fn, class... Os>
void with_op(const std::string& name, OpList<Os...>, Fn&& fn) {
  ((name == Os::name ? (fn(Os{}), 0) : 0), ...);
}

// The problem type of a variant at its first element type: for the traits that do not depend on
// the type or operator (which inputs and options it takes).
template <class T, class... Ts>
T first_type(TypeList<T, Ts...>);
template <class Variant>
using SampleProblem = typename Variant::template Problem<decltype(first_type(typename Variant::Types{})), Sum>;

inline std::string variant_name_from_file(const char* file) {
  std::string name(file);
  std::size_t slash = name.find_last_of('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  std::size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

// ------------------------------------------------------------------------------------------
// Watchdog. Every wait for the GPU goes through wait_or_die(): it polls an event and, if the
// step has not finished within --timeout seconds, prints a HANG row and ends the process with
// exit code 5. _Exit skips the CUDA runtime's teardown (which could wait on the stuck kernel);
// the driver destroys the context, and with it the kernel, when the process goes.
// ------------------------------------------------------------------------------------------
inline double g_timeout_s = 60.0;

[[noreturn]] inline void watchdog_fire(const char* what) {
  std::fprintf(stderr,
               "watchdog: %s did not finish within %.3g s (--timeout); the scan is presumed hung.\n"
               "  The process exits without waiting for it; the driver tears the context down.\n",
               what, g_timeout_s);
  if (current_row().n >= 0) print_untimed_row(current_row(), "HANG");
  std::fflush(stderr);
  std::_Exit(kExitWatchdog);
}

inline void wait_or_die(cudaStream_t stream, const char* what) {
  static cudaEvent_t done = [] {
    cudaEvent_t event;
    ZOO_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    return event;
  }();
  ZOO_CUDA(cudaEventRecord(done, stream));
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    cudaError_t status = cudaEventQuery(done);
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) ZOO_CUDA(status);
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > g_timeout_s) watchdog_fire(what);
    if (waited < 1e-3) std::this_thread::yield();  // short steps: stay responsive
    else std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

// Test-only (--inject-hang). In the single-pass scans (kHasSilentTile), the tile numbered
// g_silent_tile returns without scanning or publishing anything, so every later tile waits for
// it forever: the deadlock a broken inter-block protocol would cause. -1 (no such tile) in every
// other run; the check costs one constant-cache load per block.
__constant__ std::int64_t g_silent_tile = -1;

// Test-only (--inject-hang), for variants without an inter-block protocol to break: a kernel
// that waits for a flag nobody sets, standing in for a scan that never finishes.
__global__ void never_finishing_kernel(const int* flag) {
  cuda::atomic_ref<const int, cuda::thread_scope_device> never_set(*flag);
  while (never_set.load(cuda::memory_order_acquire) == 0) __nanosleep(1000);
}

// ------------------------------------------------------------------------------------------
// Cold-L2 timing: before each timed rep, read a buffer twice the L2 size so the scan finds none
// of its data in cache. Reading (not memset) leaves clean lines, so no write-back of the flush
// traffic leaks into the timed region.
// ------------------------------------------------------------------------------------------
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
  // Allocated before the first combination, so the sizes' memory checks see it as taken.
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

struct Stats {
  int reps = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
};

inline Stats summarize(std::vector<float> times_ms) {
  std::sort(times_ms.begin(), times_ms.end());
  Stats stats;
  stats.reps = static_cast<int>(times_ms.size());
  const std::size_t mid = times_ms.size() / 2;
  stats.median_ms = times_ms.size() % 2 ? times_ms[mid] : 0.5 * (times_ms[mid - 1] + times_ms[mid]);
  stats.min_ms = times_ms.front();
  stats.max_ms = times_ms.back();
  return stats;
}

// Adaptive repetitions: at least kMinReps, then until kAutoBudgetS of wall time or kMaxReps.
constexpr int kMinReps = 10;
constexpr int kMaxReps = 300;
constexpr double kAutoBudgetS = 0.25;
constexpr int kHotBatch = 10;  // hot reps enqueued per host synchronization

// The command line into `options`; a usage error is printed with the usage text (exit code 2).
inline bool parse_options(int argc, char** argv, const std::string& variant, Options& options) {
  try {
    options = parse_command_line(argc, argv);
    return true;
  } catch (const UsageError& error) {
    std::fprintf(stderr, "%s: error: %s\n\n%s", variant.c_str(), error.what(), usage_text().c_str());
    return false;
  }
}

// --budget-ms: the largest N run so far per (type, op, mode) and its time (RunTimes), and whether
// n, extrapolated linearly from it, would take longer than the budget (said on stderr).
using RunTimes = std::map<std::string, std::pair<std::int64_t, double>>;
inline bool over_budget(const Options& options, const RunTimes& run_ms, const std::string& key, std::int64_t n,
                        const std::string& label) {
  const auto previous = run_ms.find(key);
  if (options.budget_ms <= 0 || previous == run_ms.end() || previous->second.first >= n) return false;
  const double predicted_ms = previous->second.second * double(n) / double(previous->second.first);
  if (predicted_ms <= options.budget_ms) return false;
  std::fprintf(stderr, "%s: skipped: one run would take ~%.0f ms (n=%lld took %.1f ms), over --budget-ms %.0f\n",
               label.c_str(), predicted_ms, static_cast<long long>(previous->second.first), previous->second.second,
               options.budget_ms);
  return true;
}

// One (type, op, mode, N) of the command line, with its row and, when the variant cannot run
// it, why (known before any GPU is touched).
struct Combination {
  RowLabel row;
  ScanKind kind;
  const char* unsupported;
};

// Every combination of the command line, in the order of the rows; reason(type, op, kind) says
// why the variant cannot run one, or nullptr.
template <class Reason>
std::vector<Combination> list_combinations(const Options& options, const std::string& variant, Reason&& reason) {
  std::vector<Combination> combinations;
  for (const std::string& type : options.types)
    for (const std::string& op : options.ops)
      for (ScanKind kind : options.kinds) {
        const char* unsupported = reason(type, op, kind);
        for (std::int64_t n : options.sizes)
          combinations.push_back({{variant, type, op, scan_kind_name(kind), n}, kind, unsupported});
      }
  return combinations;
}

// An unsupported combination's message, and its WAIVED row where this process prints rows.
inline int waive(const Combination& combination, bool prints_rows) {
  const RowLabel& row = combination.row;
  std::fprintf(stderr, "%s %s %s %s: not supported: %s\n", row.variant.c_str(), row.type.c_str(), row.op.c_str(),
               row.mode.c_str(), combination.unsupported);
  if (prints_rows) print_untimed_row(row, "WAIVED");
  return kExitUnsupported;
}

struct Session {
  Options options;
  std::string variant;
  cudaStream_t stream = nullptr;
  L2Flusher flusher;
  int exit_code = kExitPass;
  // For --budget-ms: the largest N verified so far per (type, op, mode), and its run time (the
  // timed median; the verified run's wall time where nothing is timed, --check-only).
  RunTimes run_ms;
};

// Times run_once() (which enqueues one whole scan on session.stream) by the protocol of
// README, "How it measures": warm-up, then reps each bracketed by its own event pair, adaptive count.
// Cold reps are timed one at a time, each behind its L2 flush (which also keeps the GPU busy
// while the rep is enqueued, so launch latency is not timed). Hot reps have nothing in front
// of them: they are enqueued in batches behind one untimed rep, each with its own event pair,
// so every timed rep waits in the queue behind the previous one and starts on a busy GPU
// with the previous rep's data in L2.
template <class RunOnce>
Stats time_reps(Session& session, RunOnce&& run_once) {
  const Options& options = session.options;
  cudaStream_t stream = session.stream;
  for (int i = 0; i < options.warmup; ++i) {
    run_once();
    ZOO_CHECK_LAUNCH();
    wait_or_die(stream, "a warm-up scan");
  }
  const int batch = options.hot ? kHotBatch : 1;
  std::vector<cudaEvent_t> starts(batch), stops(batch);
  for (int b = 0; b < batch; ++b) {
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
    const int count = std::min(batch, (options.reps > 0 ? options.reps : kMaxReps) - done);
    if (options.hot) {
      run_once();  // the untimed lead
      ZOO_CHECK_LAUNCH();
    }
    for (int b = 0; b < count; ++b) {
      if (!options.hot) session.flusher.flush(stream);
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
  for (int b = 0; b < batch; ++b) {
    ZOO_CUDA(cudaEventDestroy(starts[b]));
    ZOO_CUDA(cudaEventDestroy(stops[b]));
  }
  return summarize(times_ms);
}

inline bool read_input_file(const std::string& path, std::size_t element_bytes,
                            std::int64_t expected_n, std::vector<char>& bytes, std::string& error) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = "cannot open --input file '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::fseek(file, 0, SEEK_END);
  long long size = std::ftell(file);
  std::fseek(file, 0, SEEK_SET);
  if (size < 0 || size % static_cast<long long>(element_bytes) != 0) {
    std::fclose(file);
    error = "--input file '" + path + "' has " + std::to_string(size) + " bytes, not a whole number of " +
            std::to_string(element_bytes) + "-byte elements";
    return false;
  }
  if (expected_n >= 0 && size / static_cast<long long>(element_bytes) != expected_n) {
    std::fclose(file);
    error = "--input file '" + path + "' holds " + std::to_string(size / element_bytes) +
            " elements but N = " + std::to_string(expected_n) + " was given";
    return false;
  }
  bytes.resize(static_cast<std::size_t>(size));
  std::size_t got = size ? std::fread(bytes.data(), 1, bytes.size(), file) : 0;
  std::fclose(file);
  if (got != bytes.size()) {
    error = "short read from --input file '" + path + "'";
    return false;
  }
  return true;
}

// A floating-point --input must be finite: one NaN or infinity turns every later prefix into
// NaN or infinity, which no check can tell from a wrong scan (a corrupted file, most likely).
inline bool finite_input(const std::string& type, const std::vector<char>& bytes, std::string& error) {
  with_type(type, AllTypes{}, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_floating_point_v<T>) {
      const T* values = reinterpret_cast<const T*>(bytes.data());
      const std::size_t count = bytes.size() / sizeof(T);
      for (std::size_t i = 0; i < count && error.empty(); ++i)
        if (!std::isfinite(values[i]))
          error = "element " + std::to_string(i) + " is " +
                  (std::isnan(values[i]) ? "nan" : values[i] < 0 ? "-inf" : "inf") + ": a " + type +
                  " input must be finite (corrupted file?)";
    }
  });
  return error.empty();
}

// --output: the scanned array as raw little-endian elements. An unwritable path is a usage error.
template <class T>
void write_output_file(const std::string& path, const T* data, std::int64_t n) {
  if (path.empty()) return;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  bool written = file && (n == 0 || std::fwrite(data, sizeof(T), n, file) == static_cast<std::size_t>(n));
  if (file && std::fclose(file) != 0) written = false;
  if (!written) {
    std::fprintf(stderr, "cannot write --output file '%s': %s\n", path.c_str(), std::strerror(errno));
    std::exit(kExitUsage);
  }
}

// The host memory a new allocation can get without swapping or the out-of-memory killer
// (/proc/meminfo's MemAvailable); unlimited where the system does not say.
inline std::size_t available_host_bytes() {
  std::FILE* file = std::fopen("/proc/meminfo", "r");
  if (!file) return SIZE_MAX;
  char line[256];
  unsigned long long kib = 0;
  bool found = false;
  while (!found && std::fgets(line, sizeof line, file)) found = std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
  std::fclose(file);
  return found ? static_cast<std::size_t>(kib) * 1024 : SIZE_MAX;
}

// Names the input stream of one combination: fresh data for every (type, op, mode, n), the same
// data for every variant, so a failure can be replayed and compared across variants.
inline std::uint64_t combination_seed(std::uint64_t seed, const RowLabel& row) {
  std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a over the combination's words
  for (const std::string& word : {row.type, row.op, row.mode, std::to_string(row.n)})
    for (char c : word + " ") hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return mix64(seed ^ mix64(hash));
}

inline std::string human_bytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / double(1ull << 30));
  return text;
}

// Verifies, then times, one (type, op, mode, n) combination of the variant's problem
// (problem.cuh). Returns its exit code.
template <class Variant, class T, class Op>
int run_combination(Session& session, ScanKind kind, std::int64_t n, const T* file_input) {
  using Problem = typename Variant::template Problem<T, Op>;
  const Options& options = session.options;
  const RowLabel& row = current_row();
  const std::string label = row.variant + " " + row.type + " " + row.op + " " + row.mode +
                            " n=" + std::to_string(n);
  if (n == 0) {  // the empty problem: nothing to launch, nothing to check
    std::fprintf(stderr, "%s: empty input, nothing to do: PASS\n", label.c_str());
    write_output_file(options.output_path, static_cast<const T*>(nullptr), 0);
    print_untimed_row(row, "PASS");
    return kExitPass;
  }

  if (const char* reason = Variant::unsupported_size(n)) {
    std::fprintf(stderr, "%s: not supported: %s\n", label.c_str(), reason);
    print_untimed_row(row, "WAIVED");
    return kExitUnsupported;
  }

  // ---- budget: a slow variant stops growing N once one run would take too long ----
  const std::string combination_key = row.type + " " + row.op + " " + row.mode;
  auto previous = session.run_ms.find(combination_key);
  if (over_budget(options, session.run_ms, combination_key, n, label)) {
    print_untimed_row(row, "SKIPPED(over-budget)");
    return kExitPass;
  }

  // ---- memory: check first, so a size that cannot fit gets a clear answer ----
  Problem problem(n, kind, options, file_input);
  const std::size_t workspace_bytes = Variant::template workspace_bytes<T, Op>(n);
  const std::size_t needed = problem.device_bytes() + workspace_bytes;
  std::size_t free_bytes = 0, total_bytes = 0;
  ZOO_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  DeviceBuffer d_workspace;
  if (needed > free_bytes || !problem.allocate_device() || !d_workspace.allocate(workspace_bytes)) {
    std::fprintf(stderr,
                 "%s: not enough device memory: needs %zu bytes (%s: %s, workspace %zu); "
                 "%zu bytes (%s) free of %zu\n",
                 label.c_str(), needed, human_bytes(double(needed)).c_str(), problem.device_bytes_detail().c_str(),
                 workspace_bytes, free_bytes, human_bytes(double(free_bytes)).c_str(), total_bytes);
    print_untimed_row(row, "SKIPPED(device-memory)");
    return kExitCudaOrMemory;
  }
  // Linux lends memory it may not have and kills the process that touches too much of it: ask
  // first what is available, so that a size the host cannot hold is a row, not a killed sweep.
  const std::size_t host_available = available_host_bytes();
  if (problem.host_bytes() > host_available || !problem.allocate_host()) {
    std::fprintf(stderr, "%s: not enough host memory: needs %zu bytes for inputs and output; %zu available\n",
                 label.c_str(), problem.host_bytes(), host_available);
    print_untimed_row(row, "SKIPPED(host-memory)");
    return kExitCudaOrMemory;
  }
  const Workspace workspace{d_workspace.pointer, workspace_bytes};
  cudaStream_t stream = session.stream;
  // The workspace starts zeroed, once, outside timing (like its allocation). Variants that reset
  // their state per run do so inside run() anyway; the one-launch tuned scan relies on this
  // starting state and leaves the workspace ready for its next run itself (tuned_scan.cuh).
  if (workspace_bytes) ZOO_CUDA(cudaMemsetAsync(workspace.data, 0, workspace_bytes, stream));

  // ---- verified runs (--repeat K of them): fresh input each round, poisoned output, one full
  // run, every element checked. Round 0's data depends only on (seed, type, op, mode, n).
  for (int round = 0; round < options.repeat; ++round) {
    problem.prepare(combination_seed(options.seed, row) ^ mix64(round), stream);
    if (options.inject_hang && Variant::kHasSilentTile && n > Variant::kTileItems) {
      std::fprintf(stderr, "%s: --inject-hang: tile 0 never publishes; every later tile waits for it\n",
                   label.c_str());
      const std::int64_t silent_tile = 0;
      ZOO_CUDA(cudaMemcpyToSymbolAsync(detail::g_silent_tile, &silent_tile, sizeof silent_tile, 0,
                                       cudaMemcpyHostToDevice, stream));
      problem.template run<Variant>(workspace, stream);
      ZOO_CHECK_LAUNCH();
      wait_or_die(stream, "the verified run (--inject-hang: tile 0 never publishes)");
    } else if (options.inject_hang) {
      std::fprintf(stderr, "%s: --inject-hang: a kernel that never finishes\n", label.c_str());
      DeviceBuffer flag;
      ZOO_CUDA(flag.allocate(sizeof(int)) ? cudaSuccess : cudaErrorMemoryAllocation);
      ZOO_CUDA(cudaMemsetAsync(flag.pointer, 0, sizeof(int), stream));
      never_finishing_kernel<<<1, 1, 0, stream>>>(static_cast<const int*>(flag.pointer));
      ZOO_CHECK_LAUNCH();
      wait_or_die(stream, "the verified run (--inject-hang)");
    }
    const auto verified_began = std::chrono::steady_clock::now();
    problem.template run<Variant>(workspace, stream);
    ZOO_CHECK_LAUNCH();
    wait_or_die(stream, "the verified run");
    const double verified_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - verified_began).count();
    if (const char* refusal = Variant::template refusal_after_run<T, Op>(n, workspace, stream)) {
      std::fprintf(stderr, "%s: not supported for this data: %s\n", label.c_str(), refusal);
      print_untimed_row(row, "WAIVED");
      return kExitUnsupported;
    }
    if (previous == session.run_ms.end() || previous->second.first < n)
      session.run_ms[combination_key] = {n, verified_ms};
    problem.download(stream);
    wait_or_die(stream, "the copy of the result to the host");

    const VerifyResult check = problem.verify();
    if (!check.ok()) {
      std::string where = "index " + std::to_string(check.first_bad);
      if (!check.note.empty()) where = check.first_bad < 0 ? check.note : where + " (" + check.note + ")";
      std::fprintf(stderr,
                   "%s: GPU vs CPU check: FAIL (round %d of %d): %lld of %lld elements wrong; first at %s: "
                   "expected %s, got %s\n",
                   label.c_str(), round + 1, options.repeat, static_cast<long long>(check.mismatches),
                   static_cast<long long>(n), where.c_str(), check.expected.c_str(), check.got.c_str());
      print_untimed_row(row, "FAIL");
      return kExitVerifyFailed;
    }
  }
  if (options.repeat > 1)
    std::fprintf(stderr, "%s: GPU vs CPU check: PASS (%d rounds, fresh data each)\n", label.c_str(), options.repeat);
  else
    std::fprintf(stderr, "%s: GPU vs CPU check: PASS\n", label.c_str());

  write_output_file(options.output_path, problem.output(), problem.output_count());
  if (options.check_only) {
    print_untimed_row(row, "PASS");
    return kExitPass;
  }

  const Stats stats = time_reps(session, [&] { problem.template run<Variant>(workspace, stream); });
  // The budget's prediction from the timed median: the verified run's wall time carries one-time
  // costs (the first launch of a kernel loads its module; a library call allocates its workspace)
  // and once predicted a second for a scan of 7 us, skipping every larger N.
  session.run_ms[combination_key] = {n, stats.median_ms};
  const double gbps = problem.bytes_moved() / (stats.median_ms * 1e-3) / 1e9;
  std::fprintf(stderr, "%s: Time taken: %.4f ms (median of %d reps, min %.4f, max %.4f, %s L2): %.1f GB/s\n",
               label.c_str(), stats.median_ms, stats.reps, stats.min_ms, stats.max_ms,
               options.hot ? "hot" : "cold", gbps);
  print_row(row, stats.reps, stats.median_ms, stats.min_ms, stats.max_ms, gbps, "PASS");
  return kExitPass;
}

inline int print_device_info() {
  const cudaDeviceProp& props = device_props();
  int device = 0, memory_clock_khz = 0, driver = 0, runtime = 0;
  ZOO_CUDA(cudaGetDevice(&device));
  ZOO_CUDA(cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, device));
  ZOO_CUDA(cudaDriverGetVersion(&driver));
  ZOO_CUDA(cudaRuntimeGetVersion(&runtime));
  std::printf("# gpu: %s\n", props.name);
  std::printf("# compute_capability: %d.%d\n", props.major, props.minor);
  std::printf("# sm_count: %d\n", props.multiProcessorCount);
  std::printf("# l2_bytes: %d\n", props.l2CacheSize);
  std::printf("# memory_bytes: %zu\n", props.totalGlobalMem);
  std::printf("# memory_clock_khz: %d\n", memory_clock_khz);
  std::printf("# memory_bus_bits: %d\n", props.memoryBusWidth);
  std::printf("# peak_memory_gbps: %.0f\n", 2.0 * memory_clock_khz * 1e3 * props.memoryBusWidth / 8 / 1e9);
  std::printf("# cuda_driver: %d.%d\n", driver / 1000, (driver % 1000) / 10);
  std::printf("# cuda_runtime: %d.%d\n", runtime / 1000, (runtime % 1000) / 10);
  return kExitPass;
}

inline void ensure_cuda_device() {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    std::fprintf(stderr, "no usable CUDA device: %s\n",
                 status != cudaSuccess ? cudaGetErrorString(status) : "the device count is 0");
    std::exit(kExitCudaOrMemory);
  }
}

template <class Variant>
int harness_main(int argc, char** argv, const char* variant_file) {
  Session session;
  session.variant = variant_name_from_file(variant_file);
  if (!parse_options(argc, argv, session.variant, session.options)) return kExitUsage;
  Options& options = session.options;
  if (options.gpus > 0 || options.rank >= 0) {
    std::fprintf(stderr, "%s: error: --gpus, --nccl-id and --rank are for the multi-GPU binaries (multi_gpu_*)\n",
                 session.variant.c_str());
    return kExitUsage;
  }
  if (options.help) {
    std::printf("%s: one scan variant of scan-zoo (tile: %lld items; element types: %s)\n\n%s",
                session.variant.c_str(), static_cast<long long>(Variant::kTileItems),
                names_of(typename Variant::Types{}).c_str(), usage_text().c_str());
    return kExitPass;
  }
  g_timeout_s = options.timeout_s;
  using Sample = SampleProblem<Variant>;
  if (!options.input_path.empty() && !Sample::kTakesInputFile) {
    std::fprintf(stderr, "%s: error: --input is not supported: this variant generates its own input (%s)\n",
                 session.variant.c_str(), Sample::kInputDescription);
    return kExitUsage;
  }
  if (options.segment_length > 0 && !Sample::kUsesSegmentLength) {
    std::fprintf(stderr, "%s: error: --segment-length is for the segmented scans only\n", session.variant.c_str());
    return kExitUsage;
  }

  // The file input is read before the GPU is touched: a bad file is a usage error (exit 2).
  std::vector<char> file_bytes;
  if (!options.input_path.empty()) {
    std::size_t element_bytes = 0;
    with_type(options.types[0], AllTypes{}, [&](auto t) { element_bytes = sizeof(t); });
    std::string error;
    if (!read_input_file(options.input_path, element_bytes, options.sizes.empty() ? -1 : options.sizes[0],
                         file_bytes, error)) {
      std::fprintf(stderr, "%s: error: %s\n", session.variant.c_str(), error.c_str());
      return kExitUsage;
    }
    options.sizes = {static_cast<std::int64_t>(file_bytes.size() / element_bytes)};
    if (!finite_input(options.types[0], file_bytes, error)) {
      std::fprintf(stderr, "%s: error: --input file '%s': %s\n", session.variant.c_str(), options.input_path.c_str(),
                   error.c_str());
      return kExitUsage;
    }
  }

  // Unsupported combinations are known without a GPU: WAIVED rows, exit code 3.
  std::vector<Combination> combinations =
      list_combinations(options, session.variant, [&](const std::string& type, const std::string& op, ScanKind kind) {
        const char* reason = nullptr;
        with_type(type, AllTypes{}, [&](auto t) {
          using T = decltype(t);
          if constexpr (!contains<T>(typename Variant::Types{})) {
            reason = "this variant is not built for this element type";
          } else {
            with_op(op, AllOps{}, [&](auto o) {
              using Problem = typename Variant::template Problem<T, decltype(o)>;
              reason = Problem::unsupported_reason(kind);
              if (!reason) reason = Variant::template unsupported_reason<T, decltype(o)>(kind);
              if (!reason && options.in_place && !Problem::kRunsInPlace)
                reason = "this problem does not run in place (--in-place)";
            });
          }
        });
        return reason;
      });
  const bool any_supported = std::any_of(combinations.begin(), combinations.end(),
                                         [](const Combination& c) { return c.unsupported == nullptr; });

  if (options.device_info || any_supported) ensure_cuda_device();
  if (options.device_info) return print_device_info();
  if (any_supported) ZOO_CUDA(cudaStreamCreateWithFlags(&session.stream, cudaStreamNonBlocking));
  if (any_supported && !options.check_only && !options.hot) session.flusher.prepare();

  for (const Combination& combination : combinations) {
    RowLabel& row = current_row();
    row = combination.row;
    if (combination.unsupported) {
      session.exit_code = worse_exit(session.exit_code, waive(combination, true));
      continue;
    }
    with_type(row.type, AllTypes{}, [&](auto t) {
      using T = decltype(t);
      if constexpr (contains<T>(typename Variant::Types{})) {
        const T* file_input = file_bytes.empty() ? nullptr : reinterpret_cast<const T*>(file_bytes.data());
        with_op(row.op, AllOps{}, [&](auto o) {
          // The row names what the problem does (a sort's rows say "sort", not "sum").
          using Problem = typename Variant::template Problem<T, decltype(o)>;
          row.op = Problem::op_label();
          row.mode = Problem::mode_label(combination.kind);
          int code = run_combination<Variant, T, decltype(o)>(session, combination.kind, row.n, file_input);
          session.exit_code = worse_exit(session.exit_code, code);
        });
      }
    });
    row.n = -1;
  }
  return session.exit_code;
}

}  // namespace detail

}  // namespace zoo

// The variant file's entry point; the file name gives the variant its name.
// Variadic, so that a variant type with commas in its template arguments needs no alias.
#define ZOO_MAIN(...) \
  int main(int argc, char** argv) { return ::zoo::detail::harness_main<__VA_ARGS__>(argc, argv, __FILE__); }
