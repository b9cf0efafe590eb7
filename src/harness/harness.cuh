// harness.cuh -- the one header every variant includes. It owns main(): the command line, the
// combinations and their order, the budget, the timing protocol's call and the output row; a
// *launcher* owns the hardware of a run, and a *problem* (problem.cuh) what is solved on it. A
// variant supplies only its kernels and a small struct:
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
// Optional members (defaults in VariantDefaults, variant.cuh): `using Types = zoo::TypeList<...>` to build
// for fewer element types; `unsupported_reason<T, Op>(kind)` to refuse a combination before it
// runs, `unsupported_size(n)` to refuse a size, and `refusal_after_run<T, Op>(n, workspace,
// stream)` to refuse a result the data made unrepresentable (all exit code 3); and
// `template <class T, class Op> using Problem = ...` for a variant that solves something other
// than a scan (problem.cuh: the memcpy row's copy; applications.cuh: segmented scan, stream
// compaction, sort). The problem owns the inputs, the output, the check and the signature of
// run(); the harness owns everything else.
//
// `using Launcher = ...` names the hardware a variant runs on; without it, OneGpuLauncher (here):
// one GPU, one stream, the problem's arrays on it, the check on the host. The scans across GPUs
// name zoo::ShardedLauncher (src/multi_gpu/multi_gpu_launcher.cuh) and its problems. A launcher:
//
//   static constexpr const char* kDescription;  // --help's "what the binary is"
//   static bool accepts(options, variant);      // its own usage errors, said (exit 2)
//   void start(options, variant, runs_any);     // its devices, once, before the combinations
//                                               // (runs_any: some combination will run)
//   bool prints_rows() const;                   // this process prints the rows (several
//                                               // processes: rank 0 alone)
//   int world() const;                          // the GPUs of the run: the rows' gpus column
//   std::string label(row) const;               // the combination's name in stderr's lines
//   template <class Variant, class T, class Op> class Launch {  // one combination:
//     Launch(launcher, problem, row, label);
//     bool allocate(Ending&);                   // the memory check and the buffers
//     bool verify(run_ms, key, Ending&);        // the verified rounds (--repeat), every element
//                                               // checked; may record the run's time for --budget-ms
//     void run();                               // enqueues one whole run of the variant
//     Timer timer();                            // how a rep is timed (timing.cuh)
//   };
// Launch's false is the combination's end: the Ending says its row's status and exit code.
// The binary's name, and the name in its rows, is the .cu file's stem.
#pragma once

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

#include "../core/cuda_check.cuh"
#include "../core/ops.cuh"
#include "../core/rows.hpp"
#include "../core/test_hooks.cuh"
#include "../core/variant.cuh"
#include "../core/workspace.cuh"
#include "cli.hpp"
#include "files.hpp"
#include "problem.cuh"
#include "reference.hpp"
#include "timing.cuh"
#include "watchdog.cuh"

namespace zoo {

// --help: what the binary is; on its first line the problem, the tile, the element types, whether
// it scans in place (--in-place) and whether its tiles hand over to each other: the tests and
// scripts read them there, rather than keep lists of names. Then the usage.
template <class Variant>
int print_help(const std::string& variant, const char* what, const char* problem, bool runs_in_place,
               const char* takes = "") {
  std::printf("%s: %s (problem: %s; tile: %lld items; element types: %s%s%s%s)\n\n%s", variant.c_str(), what,
              problem, static_cast<long long>(Variant::kTileItems), names_of(typename Variant::Types{}).c_str(),
              runs_in_place ? "; runs in place" : "", Variant::kHandsOverAcrossTiles ? "; hands over across tiles" : "",
              takes, usage_text().c_str());
  return kExitPass;
}

// A timed combination's line on stderr and, where this process prints rows, its PASS row.
inline void report_timed(const std::string& label, const RowLabel& row, const Stats& stats, double gbps, bool hot,
                         bool prints_rows) {
  std::fprintf(stderr,
               "%s: Time taken: %.4f ms (median of %d reps, min %.4f, p10 %.4f, p90 %.4f, max %.4f, %s L2): "
               "%.1f GB/s\n",
               label.c_str(), stats.median_ms, stats.reps, stats.min_ms, stats.p10_ms, stats.p90_ms, stats.max_ms,
               hot ? "hot" : "cold", gbps);
  if (prints_rows) print_row(row, stats, gbps, "PASS");
}

// The problem a variant solves: its own Problem, or the scan (problem.cuh).
template <class Variant, class T, class Op, class = void>
struct ProblemFor {
  using type = ScanProblem<T, Op>;
};
template <class Variant, class T, class Op>
struct ProblemFor<Variant, T, Op, std::void_t<typename Variant::template Problem<T, Op>>> {
  using type = typename Variant::template Problem<T, Op>;
};
template <class Variant, class T, class Op>
using ProblemOf = typename ProblemFor<Variant, T, Op>::type;

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

// How a combination ended before its timed row: the row's status and the exit code.
struct Ending {
  const char* status;
  int code;
};

// The start of a program that times on one GPU outside ZOO_MAIN (probes/, tune/): its options,
// a stream and the L2 flusher, which it sets up itself.
struct Session {
  Options options;
  cudaStream_t stream = nullptr;
  L2Flusher flusher;
  int exit_code = kExitPass;
};

// The problem type of a variant at its first element type: for the traits that do not depend on
// the type or operator (which inputs and options it takes).
template <class T, class... Ts>
T first_type(TypeList<T, Ts...>);
template <class Variant>
using SampleProblem = ProblemOf<Variant, decltype(first_type(typename Variant::Types{})), Sum>;

inline std::string variant_name_from_file(const char* file) {
  std::string name(file);
  std::size_t slash = name.find_last_of('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  std::size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
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

namespace detail {

// What a device-memory shortfall says the size needs: the bytes, or that no 64-bit count holds them.
inline std::string bytes_needed_text(std::size_t bytes) {
  return bytes == kTooManyBytes ? "2^64 bytes or more (more than a 64-bit byte count holds)"
                                : std::to_string(bytes) + " bytes (" + human_bytes(double(bytes)) + ")";
}

// A problem whose bytes do not fit in 64 bits fits in no memory: said before the GPU is needed
// (on a machine without one too), the row as for any size the device cannot hold.
template <class Problem>
bool countable_or_say_why(const Problem& problem, const std::string& label, Ending& ending) {
  if (problem.device_bytes() != kTooManyBytes) return true;
  std::fprintf(stderr, "%s: not enough device memory: needs %s: %s\n", label.c_str(),
               bytes_needed_text(kTooManyBytes).c_str(), problem.device_bytes_detail().c_str());
  ending = {"SKIPPED(device-memory)", kExitCudaOrMemory};
  return false;
}

// Memory: the problem's device arrays and the variant's workspace, then its host arrays, each
// checked against what is free first, so that a size that cannot fit gets a clear answer.
template <class Problem>
bool allocate_or_say_why(Problem& problem, DeviceBuffer& workspace, std::size_t workspace_bytes,
                         const std::string& label, Ending& ending) {
  const std::size_t needed = add_bytes(problem.device_bytes(), workspace_bytes);
  std::size_t free_bytes = 0, total_bytes = 0;
  ZOO_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (needed > free_bytes || !problem.allocate_device() || !workspace.allocate(workspace_bytes)) {
    std::fprintf(stderr, "%s: not enough device memory: needs %s: %s, workspace %zu; %zu bytes (%s) free of %zu\n",
                 label.c_str(), bytes_needed_text(needed).c_str(), problem.device_bytes_detail().c_str(),
                 workspace_bytes, free_bytes, human_bytes(double(free_bytes)).c_str(), total_bytes);
    ending = {"SKIPPED(device-memory)", kExitCudaOrMemory};
    return false;
  }
  // Linux lends memory it may not have and kills the process that touches too much of it: ask
  // first what is available, so that a size the host cannot hold is a row, not a killed sweep.
  const std::size_t host_available = available_host_bytes();
  if (problem.host_bytes() > host_available || !problem.allocate_host()) {
    std::fprintf(stderr, "%s: not enough host memory: needs %s bytes for inputs and output; %zu available\n",
                 label.c_str(), bytes_text(problem.host_bytes()).c_str(), host_available);
    ending = {"SKIPPED(host-memory)", kExitCudaOrMemory};
    return false;
  }
  return true;
}

// --inject-hang (tests): the verified run never finishes, and the watchdog must end it. In the
// single-pass scans tile 0 stays silent and every later tile waits for it; elsewhere a stand-in
// kernel waits for a flag nobody sets.
template <class Variant, class Problem>
void run_never_finishing(Problem& problem, std::int64_t n, Workspace workspace, cudaStream_t stream,
                         const std::string& label) {
  if (Variant::kHasSilentTile && n > Variant::kTileItems) {
    std::fprintf(stderr, "%s: --inject-hang: tile 0 never publishes; every later tile waits for it\n", label.c_str());
    const std::int64_t silent_tile = 0;
    ZOO_CUDA(cudaMemcpyToSymbolAsync(g_silent_tile, &silent_tile, sizeof silent_tile, 0, cudaMemcpyHostToDevice,
                                     stream));
    g_silent_tile_argument = silent_tile;
    problem.template run<Variant>(workspace, stream);
    ZOO_CHECK_LAUNCH();
    wait_or_die(stream, "the verified run (--inject-hang: tile 0 never publishes)");
    return;
  }
  std::fprintf(stderr, "%s: --inject-hang: a kernel that never finishes\n", label.c_str());
  DeviceBuffer flag;
  ZOO_CUDA(flag.allocate(sizeof(int)) ? cudaSuccess : cudaErrorMemoryAllocation);
  ZOO_CUDA(cudaMemsetAsync(flag.pointer, 0, sizeof(int), stream));
  never_finishing_kernel<<<1, 1, 0, stream>>>(static_cast<const int*>(flag.pointer));
  ZOO_CHECK_LAUNCH();
  wait_or_die(stream, "the verified run (--inject-hang)");
}

// The verified runs (--repeat K of them): fresh input each round, poisoned output, one full run,
// every element checked. Round 0's data depends only on (seed, type, op, mode, n). Records the
// run's wall time for --budget-ms; false (and the ending) on a refusal or a wrong element.
template <class Variant, class T, class Op, class Problem>
bool verified_rounds(const Options& options, cudaStream_t stream, RunTimes& run_ms, const RowLabel& row,
                     Problem& problem, Workspace workspace, const std::string& key, const std::string& label,
                     Ending& ending) {
  const std::int64_t n = row.n;
  for (int round = 0; round < options.repeat; ++round) {
    problem.prepare(combination_seed(options.seed, row) ^ mix64(round), stream);
    if (options.inject_hang) run_never_finishing<Variant>(problem, n, workspace, stream, label);
    const auto began = std::chrono::steady_clock::now();
    problem.template run<Variant>(workspace, stream);
    ZOO_CHECK_LAUNCH();
    wait_or_die(stream, "the verified run");
    const double verified_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    if (const char* refusal = Variant::template refusal_after_run<T, Op>(n, workspace, stream)) {
      std::fprintf(stderr, "%s: not supported for this data: %s\n", label.c_str(), refusal);
      ending = {"WAIVED", kExitUnsupported};
      return false;
    }
    const auto previous = run_ms.find(key);
    if (previous == run_ms.end() || previous->second.first < n) run_ms[key] = {n, verified_ms};
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
      ending = {"FAIL", kExitVerifyFailed};
      return false;
    }
  }
  if (options.repeat > 1)
    std::fprintf(stderr, "%s: GPU vs CPU check: PASS (%d rounds, fresh data each)\n", label.c_str(), options.repeat);
  else
    std::fprintf(stderr, "%s: GPU vs CPU check: PASS\n", label.c_str());
  return true;
}

}  // namespace detail

// The launcher of every variant that names no other: one GPU, one stream, the problem's arrays
// on it, the workspace beside them, the check on the host against the CPU reference
// (problem.cuh), each rep timed by its event pair (OneGpuTimer).
class OneGpuLauncher {
 public:
  static constexpr const char* kDescription = "one scan variant of scan-zoo";

  static bool accepts(const Options& options, const std::string& variant) {
    if (options.gpus == 0 && options.rank < 0) return true;
    std::fprintf(stderr, "%s: error: --gpus, --nccl-id and --rank are for the multi-GPU binaries (multi_gpu_*)\n",
                 variant.c_str());
    return false;
  }
  // The GPU is set up when the first combination needs it (open_device): what is decided without
  // one (an empty input, a size the variant refuses, one whose bytes no memory holds) is answered
  // the same on any machine, and a machine without a GPU says so (exit code 4) only when a run
  // needs one.
  void start(const Options& options, const std::string&, bool) { options_ = &options; }
  bool prints_rows() const { return true; }
  int world() const { return 1; }
  std::string label(const RowLabel& row) const { return row_label(row); }

  template <class Variant, class T, class Op>
  class Launch {
   public:
    using Problem = ProblemOf<Variant, T, Op>;
    Launch(OneGpuLauncher& launcher, Problem& problem, const RowLabel& row, const std::string& label)
        : launcher_(launcher), problem_(problem), row_(row), label_(label) {}

    // A size whose bytes no 64-bit count holds is answered before the GPU is needed; then the
    // problem's arrays and the variant's workspace, checked against what is free.
    bool allocate(Ending& ending) {
      if (!detail::countable_or_say_why(problem_, label_, ending)) return false;
      launcher_.open_device();
      bytes_ = problem_.carries_values() ? Variant::template pairs_workspace_bytes<T>(row_.n)
                                         : Variant::template workspace_bytes<T, Op>(row_.n);
      if (!detail::allocate_or_say_why(problem_, buffer_, bytes_, label_, ending)) return false;
      // The workspace starts zeroed, once, outside timing (like its allocation). Variants that
      // reset their state per run do so inside run() anyway; the one-launch tuned scan relies on
      // this starting state and leaves the workspace ready for its next run itself
      // (include/scan_zoo/detail/tuned_kernel.cuh).
      if (bytes_) ZOO_CUDA(cudaMemsetAsync(buffer_.pointer, 0, bytes_, launcher_.stream_));
      return true;
    }
    // The verified rounds, then the verified output to --output.
    bool verify(RunTimes& run_ms, const std::string& key, Ending& ending) {
      if (!detail::verified_rounds<Variant, T, Op>(*launcher_.options_, launcher_.stream_, run_ms, row_, problem_,
                                                   workspace(), key, label_, ending))
        return false;
      write_output_file(launcher_.options_->output_path, problem_.output(), problem_.output_count());
      return true;
    }
    void run() { problem_.template run<Variant>(workspace(), launcher_.stream_); }
    OneGpuTimer timer() { return OneGpuTimer(*launcher_.options_, launcher_.stream_, launcher_.flusher_); }

   private:
    Workspace workspace() const { return {buffer_.pointer, bytes_}; }

    OneGpuLauncher& launcher_;
    Problem& problem_;
    const RowLabel& row_;
    const std::string& label_;
    DeviceBuffer buffer_;  // the workspace
    std::size_t bytes_ = 0;
  };

 private:
  void open_device() {
    if (stream_) return;
    ensure_cuda_device();
    ZOO_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    if (!options_->check_only && !options_->hot) flusher_.prepare();
  }

  const Options* options_ = nullptr;
  cudaStream_t stream_ = nullptr;
  L2Flusher flusher_;
};

// The launcher a variant names, or the one-GPU launcher.
template <class Variant, class = void>
struct LauncherFor {
  using type = OneGpuLauncher;
};
template <class Variant>
struct LauncherFor<Variant, std::void_t<typename Variant::Launcher>> {
  using type = typename Variant::Launcher;
};
template <class Variant>
using LauncherOf = typename LauncherFor<Variant>::type;

// What a binary keeps across its combinations: the options, its launcher, the worst exit code
// so far, and for --budget-ms the largest N run so far per (type, op, mode) and its run time
// (the timed median; where nothing is timed, --check-only, the verified run's wall time, where
// the launcher records it).
template <class Launcher>
struct Harness {
  Options options;
  std::string variant;
  Launcher launcher;
  int exit_code = kExitPass;
  RunTimes run_ms;
};

namespace detail {

// One (type, op, mode, n) combination of the variant's problem, top to bottom: sizes it refuses,
// the budget, memory, the verified rounds, the timed reps, the row (where this process prints
// rows). Returns its exit code.
template <class Variant, class T, class Op, class Launcher>
int run_combination(Harness<Launcher>& harness, const RowLabel& row, ScanKind kind, const T* file_input) {
  using Problem = ProblemOf<Variant, T, Op>;
  const Options& options = harness.options;
  Launcher& launcher = harness.launcher;
  const std::int64_t n = row.n;
  const std::string label = launcher.label(row);
  const std::string key = row.type + " " + row.op + " " + row.mode;  // --budget-ms's
  const auto finish = [&](Ending ending) {
    if (launcher.prints_rows()) print_untimed_row(row, ending.status);
    return ending.code;
  };
  if (n == 0) {  // the empty problem: nothing to launch, nothing to check
    std::fprintf(stderr, "%s: empty input, nothing to do: PASS\n", label.c_str());
    write_output_file(options.output_path, static_cast<const T*>(nullptr), 0);
    return finish({"PASS", kExitPass});
  }
  if (const char* reason = Variant::unsupported_size(n)) {
    std::fprintf(stderr, "%s: not supported: %s\n", label.c_str(), reason);
    return finish({"WAIVED", kExitUnsupported});
  }
  if (over_budget(options, harness.run_ms, key, n, label)) return finish({"SKIPPED(over-budget)", kExitPass});

  Problem problem(n, kind, options, file_input);
  typename Launcher::template Launch<Variant, T, Op> launch(launcher, problem, row, label);
  Ending ending{"PASS", kExitPass};
  if (!launch.allocate(ending) || !launch.verify(harness.run_ms, key, ending) || options.check_only)
    return finish(ending);

  auto timer = launch.timer();
  const Stats stats = time_reps(options, timer, label, [&] { launch.run(); });
  // The budget's prediction from the timed median: the verified run's wall time carries one-time
  // costs (the first launch of a kernel loads its module; a library call allocates its workspace)
  // and once predicted a second for a scan of microseconds, skipping every larger N.
  harness.run_ms[key] = {n, stats.median_ms};
  const double gbps = problem.bytes_moved() / (stats.median_ms * 1e-3) / 1e9;
  report_timed(label, row, stats, gbps, options.hot, launcher.prints_rows());
  return kExitPass;
}

template <class Variant>
int harness_main(int argc, char** argv, const char* variant_file) {
  using Launcher = LauncherOf<Variant>;
  Harness<Launcher> harness;
  harness.variant = variant_name_from_file(variant_file);
  if (!parse_options(argc, argv, harness.variant, harness.options)) return kExitUsage;
  Options& options = harness.options;
  Launcher& launcher = harness.launcher;
  const std::string& variant = harness.variant;
  using Sample = SampleProblem<Variant>;
  // The first line of --help says which problem-specific options the binary takes, so that the
  // scripts can ask the binary (bench.sh passes --row-length, --columns and --segment-length to
  // those that take them).
  if (options.help)
    return print_help<Variant>(variant, Launcher::kDescription, Sample::kName, Sample::kRunsInPlace,
                               Sample::kUsesRowLength       ? "; takes --row-length"
                               : Sample::kUsesColumns       ? "; takes --columns"
                               : Sample::kUsesSegmentLength ? "; takes --segment-length"
                                                            : "");
  if (!Launcher::accepts(options, variant)) return kExitUsage;
  g_timeout_s = options.timeout_s;
  if (!options.input_path.empty() && !Sample::kTakesInputFile) {
    std::fprintf(stderr, "%s: error: --input is not supported: this variant generates its own input (%s)\n",
                 variant.c_str(), Sample::kInputDescription);
    return kExitUsage;
  }
  if (options.segment_length > 0 && !Sample::kUsesSegmentLength) {
    std::fprintf(stderr, "%s: error: --segment-length is for the segmented scans only\n", variant.c_str());
    return kExitUsage;
  }
  if (options.row_length > 0 && !Sample::kUsesRowLength) {
    std::fprintf(stderr, "%s: error: --row-length is for the scans along rows only (src/axis/)\n", variant.c_str());
    return kExitUsage;
  }
  if (options.columns > 0 && !Sample::kUsesColumns) {
    std::fprintf(stderr, "%s: error: --columns is for the scans down columns only (src/axis/)\n", variant.c_str());
    return kExitUsage;
  }
  if (options.values && !Sample::kTakesValues) {
    std::fprintf(stderr, "%s: error: --values is for the sorts only (key-value pairs)\n", variant.c_str());
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
      std::fprintf(stderr, "%s: error: %s\n", variant.c_str(), error.c_str());
      return kExitUsage;
    }
    options.sizes = {static_cast<std::int64_t>(file_bytes.size() / element_bytes)};
    if (!finite_input(options.types[0], file_bytes, error)) {
      std::fprintf(stderr, "%s: error: --input file '%s': %s\n", variant.c_str(), options.input_path.c_str(),
                   error.c_str());
      return kExitUsage;
    }
  }

  // Unsupported combinations are known without a GPU: WAIVED rows, exit code 3.
  std::vector<Combination> combinations =
      list_combinations(options, variant, [&](const std::string& type, const std::string& op, ScanKind kind) {
        const char* reason = nullptr;
        with_type(type, AllTypes{}, [&](auto t) {
          using T = decltype(t);
          if constexpr (!contains<T>(typename Variant::Types{})) {
            reason = "this variant is not built for this element type";
          } else {
            with_op(op, AllOps{}, [&](auto o) {
              using Problem = ProblemOf<Variant, T, decltype(o)>;
              reason = Problem::unsupported_reason(kind);
              if (!reason) reason = Variant::template unsupported_reason<T, decltype(o)>(kind);
              if (!reason && options.in_place && !Problem::kRunsInPlace)
                reason = "this problem does not run in place (--in-place)";
              if (!reason && options.values && !Variant::kSortsPairs)
                reason = "this sort does not carry values yet (--values: keys only)";
            });
          }
        });
        return reason;
      });

  if (options.device_info) {
    ensure_cuda_device();
    return print_device_info();
  }
  launcher.start(options, variant, std::any_of(combinations.begin(), combinations.end(),
                                               [](const Combination& c) { return c.unsupported == nullptr; }));

  for (Combination& combination : combinations) {
    combination.row.gpus = launcher.world();
    if (combination.unsupported) {
      harness.exit_code = worse_exit(harness.exit_code, waive(combination, launcher.prints_rows()));
      continue;
    }
    RowLabel row = combination.row;
    with_type(row.type, AllTypes{}, [&](auto t) {
      using T = decltype(t);
      if constexpr (contains<T>(typename Variant::Types{})) {
        const T* file_input = file_bytes.empty() ? nullptr : reinterpret_cast<const T*>(file_bytes.data());
        with_op(row.op, AllOps{}, [&](auto o) {
          // The row names what the problem does (a sort's rows say "sort", not "sum").
          using Problem = ProblemOf<Variant, T, decltype(o)>;
          row.op = Problem::op_label();
          row.mode = Problem::mode_label(combination.kind, options) + (options.values ? "-pairs" : "");
          if (launcher.prints_rows()) current_row() = row;  // a fatal error's row: printed once
          const int code = run_combination<Variant, T, decltype(o)>(harness, row, combination.kind, file_input);
          harness.exit_code = worse_exit(harness.exit_code, code);
        });
      }
    });
    current_row().n = -1;
  }
  return harness.exit_code;
}

}  // namespace detail

}  // namespace zoo

// The variant file's entry point; the file name gives the variant its name.
// Variadic, so that a variant type with commas in its template arguments needs no alias.
#define ZOO_MAIN(...) \
  int main(int argc, char** argv) { return ::zoo::detail::harness_main<__VA_ARGS__>(argc, argv, __FILE__); }
