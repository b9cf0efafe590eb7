// scan_tuner -- measures every configuration of the tuned scan's space
// (include/scan_zoo/detail/tuned_space.cuh) at every N given, int32 inclusive sum, with CUB and memcpy in
// the same sweep: the data behind bench/<gpu>/tuning.txt and the per-N table of
// single_pass_scan_tuned (tune/tune_select.py).
//
//   build/tune/scan_tuner 2^10,2^11,...,2^30 [--reps R] [--seed S] [--timeout SEC] [--hot]
//                         [--configs SUBSTRING] [--resume-after NAME@N] [--describe]
//
// Same command line as every zoo binary for N and the timing options (the harness parses them);
// --configs keeps the configurations whose name contains SUBSTRING; --resume-after skips every
// (configuration, N) up to and including the one named (tune/tune.sh restarts a sweep that
// died there); --describe prints, per configuration, its kernel's registers per thread, local
// memory per thread (non-zero means it spills: such a configuration cannot go into bin/, which is
// built spill-free) and resident blocks per SM, as a table (needs a GPU; no N). The names and
// parameters of the space's configurations, without a GPU: tune/list_space.cu.
// stdout: one timing.txt row per (configuration, N), the configuration's name in the variant
// column, flushed as it goes, so a sweep that dies keeps what it measured (tune/tune.sh).
// stderr: "tuning NAME n=N" before each measurement, so that a driver knows where it died.
//
// Per N the input is generated and its scan computed on the CPU once; the expected output lives
// on the GPU, and every configuration's output (poisoned first) is compared with it there, every
// element, exactly. A configuration that fails is a FAIL row and is not timed. Timing is the
// harness's own (time_reps: warm-up, events around each whole run, L2 flushed between reps).
// Each configuration's workspace is zeroed before its first run at each N, as the harness does
// for a fresh allocation: configurations share one buffer and lay it out differently.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <scan_zoo/detail/tuned_space.cuh>

#include "baselines/cub_reference.cuh"
#include "harness/harness.cuh"
#include "registry.cuh"
#include "single_pass/tuned_scan.cuh"

namespace zoo::tune {
namespace {

// Counts the elements where got != expected and finds the first (its index, atomically minimal).
__global__ void compare_kernel(const std::int32_t* got, const std::int32_t* expected, std::int64_t n,
                               unsigned long long* mismatches, unsigned long long* first_bad) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    if (got[i] != expected[i]) {
      atomicAdd(mismatches, 1ull);
      atomicMin(first_bad, static_cast<unsigned long long>(i));
    }
  }
}

struct Measured {
  std::string name;
  std::size_t (*workspace_bytes)(std::int64_t n);
  std::function<void(const std::int32_t*, std::int32_t*, std::int64_t, Workspace, cudaStream_t)> run;
  bool is_copy = false;
};

std::vector<Measured> measured_list(const std::string& filter) {
  std::vector<Entry> entries = registry();
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.index < b.index; });
  std::vector<Measured> list;
  list.push_back({"memcpy_baseline", [](std::int64_t) { return std::size_t(0); },
                  [](const std::int32_t* in, std::int32_t* out, std::int64_t n, Workspace, cudaStream_t stream) {
                    ZOO_CUDA(cudaMemcpyAsync(out, in, n * sizeof(std::int32_t), cudaMemcpyDeviceToDevice, stream));
                  },
                  true});
  list.push_back({"cub_scan", &CubScan::workspace_bytes<std::int32_t, Sum>,
                  [](const std::int32_t* in, std::int32_t* out, std::int64_t n, Workspace w, cudaStream_t stream) {
                    CubScan::run<std::int32_t, Sum>(in, out, n, ScanKind::Inclusive, w, stream);
                  }});
  for (const Entry& entry : entries) {
    if (!filter.empty() && entry.name.find(filter) == std::string::npos) continue;
    list.push_back({entry.name, entry.workspace_bytes,
                    [run = entry.run](const std::int32_t* in, std::int32_t* out, std::int64_t n, Workspace w,
                                      cudaStream_t stream) { run(in, out, n, ScanKind::Inclusive, w, stream); }});
  }
  return list;
}

// Splits off the tuner's own options; the rest goes to the harness's parser.
struct TunerOptions {
  std::string filter;
  std::string resume_name;  // --resume-after NAME@N
  std::int64_t resume_n = -1;
  bool describe = false;
};

std::vector<char*> take_tuner_options(int argc, char** argv, TunerOptions& tuner) {
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--configs" && i + 1 < argc) tuner.filter = argv[++i];
    else if (arg == "--resume-after" && i + 1 < argc) {
      const std::string marker = argv[++i];
      const std::size_t at = marker.rfind('@');
      if (at == std::string::npos) throw UsageError("--resume-after expects NAME@N, got '" + marker + "'");
      tuner.resume_name = marker.substr(0, at);
      tuner.resume_n = parse_size(marker.substr(at + 1));
    }
    else if (arg == "--describe") tuner.describe = true;
    else rest.push_back(argv[i]);
  }
  return rest;
}

int tune_main(int argc, char** argv) {
  TunerOptions tuner;
  std::vector<char*> rest;
  try {
    rest = take_tuner_options(argc, argv, tuner);
  } catch (const UsageError& error) {
    std::fprintf(stderr, "scan_tuner: error: %s\n", error.what());
    return kExitUsage;
  }
  if (tuner.describe) {
    ensure_cuda_device();
    std::printf("config registers local_bytes blocks_per_sm\n");
    std::vector<Entry> entries = registry();
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.index < b.index; });
    for (const Entry& entry : entries) {
      cudaFuncAttributes attributes{};
      int blocks_per_sm = 0;
      entry.describe(attributes, blocks_per_sm);
      std::printf("%s %d %zu %d\n", entry.name.c_str(), attributes.numRegs, attributes.localSizeBytes, blocks_per_sm);
    }
    return kExitPass;
  }
  Session session;
  try {
    session.options = parse_command_line(static_cast<int>(rest.size()), rest.data());
  } catch (const UsageError& error) {
    std::fprintf(stderr, "scan_tuner: error: %s\n", error.what());
    return kExitUsage;
  }
  const Options& options = session.options;
  g_timeout_s = options.timeout_s;
  const std::vector<Measured> list = measured_list(tuner.filter);
  std::fprintf(stderr, "scan_tuner: %zu configurations of %d, plus CUB and memcpy, at %zu sizes\n", list.size() - 2,
               tuned::kSpaceSize, options.sizes.size());
  ensure_cuda_device();
  ZOO_CUDA(cudaStreamCreateWithFlags(&session.stream, cudaStreamNonBlocking));
  cudaStream_t stream = session.stream;
  if (!options.hot) session.flusher.prepare();
  // An idle GPU runs at low clocks and takes a moment to raise them: a sweep without this
  // warm-up measured its first rows (memcpy and CUB at 2^10) 6 and 9 times too slow. Keep the GPU busy
  // for half a second before the first measurement.
  for (const auto start = std::chrono::steady_clock::now();
       std::chrono::steady_clock::now() - start < std::chrono::milliseconds(500);) {
    session.flusher.flush(stream);
    wait_or_die(stream, "the clock warm-up");
  }
  unsigned long long* counters = nullptr;  // mismatches, first bad index
  ZOO_CUDA(cudaMalloc(&counters, 2 * sizeof(unsigned long long)));

  bool resuming = tuner.resume_n >= 0;
  for (std::int64_t n : options.sizes) {
    if (n <= 0 || (resuming && n < tuner.resume_n)) continue;
    const std::size_t bytes = std::size_t(n) * sizeof(std::int32_t);
    std::size_t workspace_bytes = 0;
    for (const Measured& m : list) workspace_bytes = std::max(workspace_bytes, m.workspace_bytes(n));
    DeviceBuffer d_in, d_out, d_expected, d_workspace;
    if (!d_in.allocate(bytes) || !d_out.allocate(bytes) || !d_expected.allocate(bytes) ||
        !d_workspace.allocate(workspace_bytes)) {
      std::fprintf(stderr, "scan_tuner: n=%lld does not fit in device memory (%zu bytes needed)\n",
                   static_cast<long long>(n), 3 * bytes + workspace_bytes);
      return kExitCudaOrMemory;
    }
    // The input and its scan, once per N: the harness's generator and wide CPU reference, the
    // latter cross-checked against the harness's verify_scan.
    RowLabel& row = current_row();
    row = {"scan_tuner", "int32", "sum", "inclusive", n};
    std::vector<std::int32_t> input(n), expected(n);
    generate_input(input.data(), n, combination_seed(options.seed, row));
    std::int64_t running = 0;
    for (std::int64_t i = 0; i < n; ++i) expected[i] = narrow<std::int32_t>(running += input[i]);
    if (!verify_scan<std::int32_t, Sum>(input.data(), expected.data(), n, ScanKind::Inclusive, true).ok()) {
      std::fprintf(stderr, "scan_tuner: internal error: the CPU reference disagrees with verify_scan\n");
      return kExitVerifyFailed;
    }
    ZOO_CUDA(cudaMemcpy(d_in.pointer, input.data(), bytes, cudaMemcpyHostToDevice));
    ZOO_CUDA(cudaMemcpy(d_expected.pointer, expected.data(), bytes, cudaMemcpyHostToDevice));
    const auto* in = static_cast<const std::int32_t*>(d_in.pointer);
    auto* out = static_cast<std::int32_t*>(d_out.pointer);

    for (const Measured& m : list) {
      if (resuming) {
        resuming = !(m.name == tuner.resume_name && n == tuner.resume_n);
        continue;
      }
      std::fprintf(stderr, "tuning %s n=%lld\n", m.name.c_str(), static_cast<long long>(n));
      row = {m.name, "int32", "sum", "inclusive", n};
      const Workspace workspace{d_workspace.pointer, m.workspace_bytes(n)};
      if (workspace.bytes) ZOO_CUDA(cudaMemsetAsync(workspace.data, 0, workspace.bytes, stream));
      ZOO_CUDA(cudaMemsetAsync(out, 0xA5, bytes, stream));
      const unsigned long long no_mismatch[2] = {0ull, ~0ull};
      ZOO_CUDA(cudaMemcpyAsync(counters, no_mismatch, sizeof no_mismatch, cudaMemcpyHostToDevice, stream));
      m.run(in, out, n, workspace, stream);
      ZOO_CHECK_LAUNCH();
      wait_or_die(stream, "the verified scan");
      compare_kernel<<<1024, 256, 0, stream>>>(out, m.is_copy ? in : static_cast<const std::int32_t*>(d_expected.pointer),
                                               n, counters, counters + 1);
      ZOO_CHECK_LAUNCH();
      unsigned long long found[2];
      ZOO_CUDA(cudaMemcpyAsync(found, counters, sizeof found, cudaMemcpyDeviceToHost, stream));
      wait_or_die(stream, "the comparison");
      if (found[0] != 0) {
        std::int32_t got = 0;
        ZOO_CUDA(cudaMemcpy(&got, out + found[1], sizeof got, cudaMemcpyDeviceToHost));
        std::fprintf(stderr, "%s n=%lld: GPU vs CPU check: FAIL: %llu elements wrong; first at index %llu: expected %d, got %d\n",
                     m.name.c_str(), static_cast<long long>(n), found[0], found[1],
                     m.is_copy ? input[found[1]] : expected[found[1]], got);
        print_untimed_row(row, "FAIL");
        session.exit_code = worse_exit(session.exit_code, kExitVerifyFailed);
        std::fflush(stdout);
        continue;
      }
      const Stats stats = time_reps(session.options, session.stream, session.flusher, [&] { m.run(in, out, n, workspace, stream); });
      const double gbps = 2.0 * double(bytes) / (stats.median_ms * 1e-3) / 1e9;
      print_row(row, stats, gbps, "PASS");
      std::fflush(stdout);
    }
    std::fprintf(stderr, "scan_tuner: n=%lld done\n", static_cast<long long>(n));
  }
  ZOO_CUDA(cudaFree(counters));
  return session.exit_code;
}

}  // namespace
}  // namespace zoo::tune

int main(int argc, char** argv) { return zoo::tune::tune_main(argc, argv); }
