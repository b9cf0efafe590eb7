// api_forms_deterministic_selftest -- the deterministic 1-D scans (include/scan_zoo/scan.cuh,
// Options<Out, Determinism::RunToRun>): exact in every configuration, and the same bits every run.
// Every element is checked against a CPU reference that computes in the same accumulator type,
// exactly (the data keep every prefix exact), with the output poisoned first. Run by
// tests/test_api.py; the shared checking in api_forms.cuh.
//
//   build/tests/api_forms_deterministic_selftest [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   deterministic  Determinism::RunToRun in every configuration (int32, float, int64, the 2x2
//              matrix product: each descriptor layout), exact; then 20 runs of a float sum of
//              real values at 2^24 + 5, every run's bits equal to the first's

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <cuda_runtime.h>

#include <scan_zoo/scan.cuh>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "api_forms.cuh"
#include "matrix_product.cuh"

namespace {

using namespace selftest;
using namespace api_forms;

// The deterministic scans (Options<Out, Determinism::RunToRun>, the fixed-order look-back): exact on data whose
// every prefix is exact, in every configuration, for each descriptor layout (32-bit, 64-bit, a
// struct) and a non-commutative operator, forward and reverse; then, on real-valued floats whose
// sums round, the same bits in every run.
void check_deterministic(std::mt19937_64& rng) {
  using RunToRun = scan_zoo::Options<std::int32_t, scan_zoo::Determinism::RunToRun>;
  // Options of any output type, with the total and a forced configuration.
  const auto options_for = [](auto* total, int config) {
    scan_zoo::Options<std::remove_pointer_t<decltype(total)>, scan_zoo::Determinism::RunToRun> options;
    options.total = total;
    options.config = config;
    return options;
  };
  static_assert(RunToRun::kDeterminism == scan_zoo::Determinism::RunToRun, "Options carries its determinism");
  // Many look-back windows (32 or 64 tiles each) at every tile size of the table.
  const std::int64_t sizes[] = {5000, (1 << 20) + 7, (1 << 22) + 3};
  for (int config = 0; config < scan_zoo::kConfigCount; ++config)
    for (std::int64_t n : sizes) {
      const std::string at = " config " + std::to_string(config) + " n=" + std::to_string(n);
      scan_zoo::Workspace workspace;
      const auto ints = generate<std::int32_t>(n, [&] { return std::int32_t(rng()); });
      std::string why = check_scan<std::int32_t, std::int32_t, std::int32_t>(
          ints, Form{true, false, false}, false, 3, scan_zoo::Plus{}, [&](auto in, auto out, auto stream, auto total) {
            return scan_zoo::exclusive_scan(in, out, n, 3, scan_zoo::Plus{}, workspace, stream, options_for(total, config));
          });
      report(why.empty(), "deterministic int32 sum exclusive" + at, why);
      const auto small = generate<float>(n, [&] { return float(int(rng() % 9) - 4); });
      why = check_scan<float, float, float>(
          small, Form{false, true, false}, true, 0.0f, scan_zoo::Plus{}, [&](auto in, auto out, auto stream, auto total) {
            return scan_zoo::reverse_inclusive_scan(in, out, n, scan_zoo::Plus{}, workspace, stream,
                                                    options_for(total, config));
          });
      report(why.empty(), "deterministic float sum (exact data) reverse inclusive in-place" + at, why);
      const auto wide = generate<std::int64_t>(n, [&] { return std::int64_t(rng()); });
      why = check_scan<std::int64_t, std::int64_t, std::int64_t>(
          wide, Form{}, false, scan_zoo::Max::identity<std::int64_t>(), scan_zoo::Max{},
          [&](auto in, auto out, auto stream, auto total) {
            return scan_zoo::inclusive_scan(in, out, n, scan_zoo::Max{}, workspace, stream, options_for(total, config));
          });
      report(why.empty(), "deterministic int64 max inclusive" + at, why);
      const auto matrices = generate<Mat2>(
          n, [&] { return Mat2{std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng())}; });
      const Mat2 initial{std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng())};
      why = check_scan<Mat2, Mat2, Mat2>(
          matrices, Form{false, false, true}, false, initial, Mat2Product{}, [&](auto in, auto out, auto stream, auto total) {
            return scan_zoo::inclusive_scan_init(in, out, n, initial, Mat2Product{}, workspace, stream,
                                                 options_for(total, config));
          });
      report(why.empty(), "deterministic mat2x2 product inclusive+init" + at, why);
    }

  // Real-valued floats: every run of the deterministic scan gives the first run's bits, and
  // stays near a double reference (an exact comparison is impossible here: the grouping is the
  // kernel's). 2^24 + 5 elements: thousands of tiles, so the look-backs overlap as in a large scan.
  const std::int64_t n = (1 << 24) + 5;
  const auto reals = generate<float>(n, [&] { return float(std::int64_t(rng() % 2000001) - 1000000) * 1e-6f; });
  DeviceArray<float> d_in(n), d_out(n);
  CHECK_CUDA(cudaMemcpy(d_in.data, reals.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  scan_zoo::Workspace workspace;
  const scan_zoo::Options<float, scan_zoo::Determinism::RunToRun> options;
  std::vector<float> first(n), again(n);
  std::string why;
  constexpr int kRuns = 20;
  for (int run = 0; run < kRuns && why.empty(); ++run) {
    CHECK_CUDA(cudaMemset(d_out.data, 0xA5, n * sizeof(float)));
    if (const cudaError_t e = scan_zoo::inclusive_scan(d_in.data, d_out.data, n, scan_zoo::Plus{}, workspace, 0, options);
        e != cudaSuccess)
      why = std::string("returned ") + cudaGetErrorString(e);
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<float>& got = run == 0 ? first : again;
    CHECK_CUDA(cudaMemcpy(got.data(), d_out.data, n * sizeof(float), cudaMemcpyDeviceToHost));
    if (run > 0 && why.empty() && std::memcmp(first.data(), again.data(), n * sizeof(float)) != 0) {
      const auto where = std::mismatch(first.begin(), first.end(), again.begin()).first - first.begin();
      why = "run " + std::to_string(run) + " differs from run 0 first at index " + std::to_string(where);
    }
  }
  double running = 0.0;
  for (std::int64_t i = 0; i < n && why.empty(); ++i) {
    running += reals[i];
    // float's rounding over 2^24 partial sums of magnitude up to a few thousand: far below 0.5.
    if (std::abs(double(first[i]) - running) > 0.5)
      why = "index " + std::to_string(i) + " is " + std::to_string(first[i]) + ", the double sum " + std::to_string(running);
  }
  report(why.empty(), "deterministic float sum of real values: " + std::to_string(kRuns) + " runs, same bits", why);
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned long long seed = seed_from_command_line(argc, argv, 20261125, "api_forms_deterministic_selftest");
  std::mt19937_64 rng(seed);
  check_deterministic(rng);
  std::printf("api_forms_deterministic_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
