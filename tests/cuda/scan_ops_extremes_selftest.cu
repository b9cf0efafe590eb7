// scan_ops_extremes_selftest -- cummax and cummin with indices (include/scan_zoo/extremes.cuh) of
// the narrow pairs: float, bf16, int32, int8 and bool with 32-bit positions, along rows, columns
// and a middle axis, checked against a CPU loop that follows torch's CPU kernel, every element,
// the outputs poisoned first. The 16-byte pairs: scan_ops_wide_extremes_selftest.cu. Run by
// tests/test_api.py; the shared checking in scan_ops.cuh.
//
//   build/tests/scan_ops_extremes_selftest [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   extremes   cummax and cummin: values bit for bit and indices exactly, for float (small
//              integers, so that ties are common, with NaNs and infinities among them; forward
//              and reverse), bf16 (compared in float), int32, int8 and bool (0 and 1), forward.
//              Each also with null indices (the values alone), its values bit for bit, NaNs
//              included. Torch's rules: a tie goes to the later element, a NaN wins, and a later
//              NaN over an earlier one.
//   refusals   a line longer than 32-bit positions hold, a null values array.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <scan_zoo/extremes.cuh>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>

#include "scan_ops.cuh"

namespace {

using namespace scan_ops;

void check_refusals() {
  scan_zoo::Workspace workspace;
  DeviceArray<float> d(64);
  DeviceArray<std::int64_t> indices(64);
  const auto expect = [&](cudaError_t got, const std::string& name) {
    report(got == cudaErrorInvalidValue, "refusals " + name, std::string("returned ") + cudaGetErrorString(got));
  };
  expect(scan_zoo::cummax<std::int32_t>(d.data, d.data, indices.data, scan_zoo::Shape{1, std::int64_t(1) << 31, 1},
                                        workspace),
         "a line of 2^31 elements with 32-bit positions");
  expect(scan_zoo::cummin(d.data, static_cast<float*>(nullptr), indices.data, scan_zoo::Shape{2, 8}, workspace),
         "a null values array");
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned long long seed = seed_from_command_line(argc, argv, 20261201, "scan_ops_extremes_selftest");
  std::mt19937_64 rng(seed);
  scan_zoo::Workspace workspace;
  for (const scan_zoo::Shape& s : kShapes) {
    const std::int64_t n = elements(s);
    check_extremes<std::int32_t>("float", extreme_input<float>(n, rng), s, true, workspace);
    check_extremes<std::int32_t>("bf16", extreme_input<__nv_bfloat16>(n, rng), s, false, workspace);
    check_extremes<std::int32_t>("int32", extreme_input<std::int32_t>(n, rng), s, false, workspace);
    check_extremes<std::int32_t>("int8", extreme_input<std::int8_t>(n, rng), s, false, workspace);
    check_extremes<std::int32_t>("bool", extreme_input<bool>(n, rng), s, false, workspace);
  }
  check_refusals();
  std::printf("scan_ops_extremes_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
