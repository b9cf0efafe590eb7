// determinism -- does a float scan give the same bits every run, and what does the library's
// deterministic mode (Options::deterministic, the fixed-order look-back of
// include/scan_zoo/detail/grid/lookback.cuh) cost? Issue 32; docs/library.md, "Determinism".
//
//   build/probes/determinism [N,...] [--reps R] [--seed S] [--hot] [--repeats K]   (default N: 2^24,2^28)
//
// For each N, float32 inclusive sums through the library's API (the configuration this GPU's
// table picks for N):
//   repeats   K runs (default 50) of each mode on one input of real values in [-1, 1], whose
//             sums round: how many runs differ from the first anywhere, and in how many
//             elements at most (compared on the GPU, bit for bit). "# repeats" lines.
//   timings   cold L2 unless --hot, each row checked first on small integers (every prefix
//             exact in float, so both modes must give the reference exactly):
//               memcpy_baseline           a copy of the same bytes (n * 4 read and written)
//               float_sum                 the default look-back
//               float_sum_deterministic   the fixed-order look-back
//               int32_sum, int32_sum_deterministic   the same for int32 (exact either way)
// stdout: the GPU's description, the "# repeats" lines and timing.txt rows.
#include <scan_zoo/scan.cuh>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "harness/harness.cuh"
#include "probe.cuh"

namespace zoo::probe {
namespace {

// Counts the elements whose bits differ between a and b.
__global__ void count_differences(const std::uint32_t* a, const std::uint32_t* b, std::int64_t n,
                                  unsigned long long* count) {
  unsigned long long mine = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    mine += a[i] != b[i];
  if (mine) atomicAdd(count, mine);
}

// Strips "--repeats K" from the command line (the zoo's parser does not know it); false on a bad K.
bool take_repeats(int& argc, char** argv, int& repeats) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeats") != 0) continue;
    if (i + 1 >= argc || (repeats = std::atoi(argv[i + 1])) < 2) {
      std::fprintf(stderr, "determinism: error: --repeats takes a whole number of at least 2\n");
      return false;
    }
    for (int j = i; j + 2 <= argc; ++j) argv[j] = argv[j + 2];
    argc -= 2;
    return true;
  }
  return true;
}

int probe_main(int argc, char** argv) {
  int repeats = 50;
  if (!take_repeats(argc, argv, repeats)) return kExitUsage;
  Session session;
  if (!start_probe("determinism", "scan-zoo determinism probe (probes/determinism.cu)", argc, argv, "2^24,2^28",
                   session))
    return kExitUsage;
  cudaStream_t stream = session.stream;
  scan_zoo::Workspace workspace;
  const scan_zoo::Options<float> fast_float;
  const scan_zoo::Options<float, scan_zoo::Determinism::RunToRun> fixed_float;
  const scan_zoo::Options<std::int32_t> fast_int;
  const scan_zoo::Options<std::int32_t, scan_zoo::Determinism::RunToRun> fixed_int;

  for (std::int64_t n : session.options.sizes) {
    DeviceBuffer b_in, b_first, b_out, b_copy_in, b_copy_out, b_count;
    auto* d_in = device_array<float>(b_in, n, "determinism");
    auto* d_first = device_array<float>(b_first, n, "determinism");
    auto* d_out = device_array<float>(b_out, n, "determinism");
    auto* d_copy_in = device_array<float>(b_copy_in, n, "determinism");
    auto* d_copy_out = device_array<float>(b_copy_out, n, "determinism");
    auto* d_count = device_array<unsigned long long>(b_count, 1, "determinism");

    // Repeats, on real values.
    std::vector<float> reals(n);
    std::mt19937_64 rng(session.options.seed ^ std::uint64_t(n));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& x : reals) x = uniform(rng);
    ZOO_CUDA(cudaMemcpy(d_in, reals.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    const auto count_repeats = [&](const char* variant, const auto& options) {
      int differing_runs = 0;
      unsigned long long most_elements = 0;
      ZOO_CUDA(scan_zoo::inclusive_scan(d_in, d_first, n, scan_zoo::Plus{}, workspace, stream, options));
      for (int run = 1; run < repeats; ++run) {
        ZOO_CUDA(cudaMemsetAsync(d_out, 0xFF, n * sizeof(float), stream));
        ZOO_CUDA(scan_zoo::inclusive_scan(d_in, d_out, n, scan_zoo::Plus{}, workspace, stream, options));
        ZOO_CUDA(cudaMemsetAsync(d_count, 0, sizeof(unsigned long long), stream));
        count_differences<<<1024, 256, 0, stream>>>(reinterpret_cast<const std::uint32_t*>(d_first),
                                                    reinterpret_cast<const std::uint32_t*>(d_out), n, d_count);
        ZOO_CUDA(cudaGetLastError());
        unsigned long long count = 0;
        ZOO_CUDA(cudaMemcpyAsync(&count, d_count, sizeof count, cudaMemcpyDeviceToHost, stream));
        wait_or_die(stream, "a repeated scan");
        differing_runs += count > 0;
        most_elements = count > most_elements ? count : most_elements;
      }
      std::printf("# repeats %s n=%lld: %d of %d runs differ from run 0 (at most %llu elements)\n", variant,
                  static_cast<long long>(n), differing_runs, repeats - 1, most_elements);
      std::fflush(stdout);
    };
    count_repeats("float_sum", fast_float);
    count_repeats("float_sum_deterministic", fixed_float);

    // Timings, each mode checked first on small integers.
    std::vector<std::int32_t> ints(n);
    generate_input(ints.data(), n, session.options.seed ^ std::uint64_t(n));
    std::vector<float> small(ints.begin(), ints.end()), got(n);
    auto* d_ints = reinterpret_cast<std::int32_t*>(d_first);
    auto* d_int_out = reinterpret_cast<std::int32_t*>(d_out);
    ZOO_CUDA(cudaMemcpy(d_in, small.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    const auto check_exact = [&](const char* mode, const auto& options) {
      ZOO_CUDA(cudaMemsetAsync(d_out, 0xFF, n * sizeof(float), stream));
      ZOO_CUDA(scan_zoo::inclusive_scan(d_in, d_out, n, scan_zoo::Plus{}, workspace, stream, options));
      wait_or_die(stream, "the checked scan");
      ZOO_CUDA(cudaMemcpy(got.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
      float sum = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        sum += small[i];
        if (got[i] != sum) {
          std::fprintf(stderr, "determinism: the %s float scan is wrong at index %lld of %lld\n", mode,
                       static_cast<long long>(i), static_cast<long long>(n));
          std::exit(kExitVerifyFailed);
        }
      }
    };
    check_exact("default", fast_float);
    check_exact("deterministic", fixed_float);
    ZOO_CUDA(cudaMemcpy(d_ints, ints.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice));

    RowLabel& row = current_row();
    const auto measure = [&](const std::string& variant, const char* type, auto&& run_once) {
      row = {variant, type, "sum", "inclusive", n};
      const Stats stats = time_reps(session.options, stream, session.flusher, run_once);
      print_row(row, stats, 8.0 * double(n) / (stats.median_ms * 1e-3) / 1e9, "PASS");
      std::fflush(stdout);
    };
    measure("memcpy_baseline", "float32", [&] {
      ZOO_CUDA(cudaMemcpyAsync(d_copy_out, d_copy_in, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    });
    measure("float_sum", "float32", [&] {
      ZOO_CUDA(scan_zoo::inclusive_scan(d_in, d_out, n, scan_zoo::Plus{}, workspace, stream, fast_float));
    });
    measure("float_sum_deterministic", "float32", [&] {
      ZOO_CUDA(scan_zoo::inclusive_scan(d_in, d_out, n, scan_zoo::Plus{}, workspace, stream, fixed_float));
    });
    measure("int32_sum", "int32", [&] {
      ZOO_CUDA(scan_zoo::inclusive_scan(d_ints, d_int_out, n, scan_zoo::Plus{}, workspace, stream, fast_int));
    });
    measure("int32_sum_deterministic", "int32", [&] {
      ZOO_CUDA(scan_zoo::inclusive_scan(d_ints, d_int_out, n, scan_zoo::Plus{}, workspace, stream, fixed_int));
    });
  }
  return kExitPass;
}

}  // namespace
}  // namespace zoo::probe

int main(int argc, char** argv) { return zoo::probe::probe_main(argc, argv); }
