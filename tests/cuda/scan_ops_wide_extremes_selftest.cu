// scan_ops_wide_extremes_selftest -- cummax and cummin with indices (include/scan_zoo/extremes.cuh)
// of the 16-byte pairs: float with 64-bit positions, and int64 and double with 32-bit ones (the
// Python package's pairs for them), along rows, columns and a middle axis, checked against a CPU
// loop that follows torch's CPU kernel, every element, the outputs poisoned first. The narrow
// pairs: scan_ops_extremes_selftest.cu. A program of their own also because a double cummax of
// many tiles once hung on the H200 (bench/NOTES.md, "torch's scan ops: determinism"): a hang here
// stops no other check. Run by tests/test_api.py; the shared checking in scan_ops.cuh.
//
//   build/tests/scan_ops_wide_extremes_selftest [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   extremes   cummax and cummin, forward: values bit for bit and indices exactly, for float
//              with 64-bit positions (small integers, so that ties are common, with NaNs and
//              infinities among them), int64 and double with 32-bit positions. Each also with
//              null indices (the values alone). Torch's rules: a tie goes to the later element,
//              a NaN wins, and a later NaN over an earlier one.
#include <cuda_runtime.h>

#include <scan_zoo/extremes.cuh>

#include <cstdint>
#include <cstdio>
#include <random>

#include "scan_ops.cuh"

int main(int argc, char** argv) {
  using namespace scan_ops;
  const unsigned long long seed = seed_from_command_line(argc, argv, 20261201, "scan_ops_wide_extremes_selftest");
  std::mt19937_64 rng(seed);
  scan_zoo::Workspace workspace;
  for (const scan_zoo::Shape& s : kShapes) {
    const std::int64_t n = elements(s);
    check_extremes<std::int64_t>("float", extreme_input<float>(n, rng), s, false, workspace);
    check_extremes<std::int32_t>("int64", extreme_input<std::int64_t>(n, rng), s, false, workspace);
    check_extremes<std::int32_t>("double", extreme_input<double>(n, rng), s, false, workspace);
  }
  std::printf("scan_ops_wide_extremes_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
