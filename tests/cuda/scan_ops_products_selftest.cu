// scan_ops_products_selftest -- cumprod as the library offers it: inclusive scans under
// scan_zoo::Multiplies (operators.cuh) through axis.cuh, along rows, columns and a middle axis,
// checked against a CPU loop, every element exactly, the output poisoned first. Run by
// tests/test_api.py; the shared checking in scan_ops.cuh.
//
//   build/tests/scan_ops_products_selftest [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   product    int64 products of {-2 .. 2} wrapped as torch's integers wrap, exactly; float
//              products of +-1 with rare +-2 and +-0.5 (every partial product a power of two in
//              range, so exact in any grouping).
#include <cuda_runtime.h>

#include <scan_zoo/axis.cuh>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "scan_ops.cuh"

namespace {

using namespace scan_ops;

void check_products(const scan_zoo::Shape& s, std::mt19937_64& rng, scan_zoo::Workspace& workspace) {
  const std::int64_t n = elements(s);
  {
    const auto x = generate<std::int64_t>(n, [&] { return std::int64_t(rng() % 5) - 2; });
    std::vector<std::int64_t> got, want(n);
    const cudaError_t error = run_scan(x, s, scan_zoo::Multiplies{}, got, workspace);
    std::uint64_t running = 1;
    for_each_line(s, false, [&](std::int64_t step, std::int64_t, std::int64_t at) {
      running = (step == 0 ? 1u : running) * static_cast<std::uint64_t>(x[at]);
      want[at] = static_cast<std::int64_t>(running);
    });
    std::string why = error == cudaSuccess ? "" : std::string("returned ") + cudaGetErrorString(error);
    for (std::int64_t i = 0; i < n && why.empty(); ++i)
      if (got[i] != want[i])
        why = "element " + where(i, s) + ": " + std::to_string(got[i]) + ", want " + std::to_string(want[i]);
    report(why.empty(), "product int64" + shape_name(s), why);
  }
  {
    const auto x = generate<float>(n, [&] {
      const unsigned r = unsigned(rng() % 2000);
      const float magnitude = r == 0 ? 2.0f : r == 1 ? 0.5f : 1.0f;
      return rng() % 2 ? magnitude : -magnitude;
    });
    std::vector<float> got, want(n);
    const cudaError_t error = run_scan(x, s, scan_zoo::Multiplies{}, got, workspace);
    float running = 1;
    for_each_line(s, false, [&](std::int64_t step, std::int64_t, std::int64_t at) {
      running = (step == 0 ? 1.0f : running) * x[at];
      want[at] = running;
    });
    std::string why = error == cudaSuccess ? "" : std::string("returned ") + cudaGetErrorString(error);
    for (std::int64_t i = 0; i < n && why.empty(); ++i)
      if (!same(got[i], want[i]))
        why = "element " + where(i, s) + ": " + std::to_string(got[i]) + ", want " + std::to_string(want[i]);
    report(why.empty(), "product float" + shape_name(s), why);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned long long seed = seed_from_command_line(argc, argv, 20261201, "scan_ops_products_selftest");
  std::mt19937_64 rng(seed);
  scan_zoo::Workspace workspace;
  for (const scan_zoo::Shape& s : kShapes) check_products(s, rng, workspace);
  std::printf("scan_ops_products_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
