// api_forms_reverse_selftest -- the 1-D scans (include/scan_zoo/scan.cuh) in reverse, with initial
// values in an inclusive scan and in device memory, with their totals, and in every configuration
// of the shipped table forced into caller memory.
// Every element is checked against a CPU reference that computes in the same accumulator type,
// exactly (the data keep every prefix exact), with the output poisoned first. Run by
// tests/test_api.py; the shared checking in api_forms.cuh.
//
//   build/tests/api_forms_reverse_selftest [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   reverse    reverse inclusive, exclusive and inclusive-with-initial scans of the 2x2 matrix
//              product (not commutative: the operand order is checked) and of int32 sums, in
//              place and out of place
//   forms      inclusive with an initial value; an initial value in device memory written by a
//              kernel just before, in the same stream; the total for every form and for n = 0
//   configs    every configuration of the shipped table forced (Options::config) on int32 sums,
//              each in caller memory of workspace_bytes<int32_t>(n) bytes
// Sizes: 0, 1, tile boundaries of the largest tile, odd sizes (no whole vector), and 2^20 + 7.

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

void check_reverse_and_forms(std::mt19937_64& rng) {
  scan_zoo::Workspace workspace;
  const Form forms[] = {{false, false, true}, {false, true, false}, {true, true, false}, {false, true, true}};
  for (std::int64_t n : kSizes) {
    const std::string at = " n=" + std::to_string(n);
    const auto matrices = generate<Mat2>(
        n, [&] { return Mat2{std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng())}; });
    const Mat2 initial{std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng())};
    const auto ints = generate<std::int32_t>(n, [&] { return std::int32_t(rng()); });
    for (const Form& form : forms)
      for (bool in_place : {false, true}) {
        const std::string name = form_name(form) + (in_place ? " in-place" : "") + at;
        std::string why = scan_and_check<scan_zoo::UseDefault, Mat2, Mat2>(matrices, form, in_place, initial,
                                                                            Mat2Product{}, workspace);
        report(why.empty(), "reverse mat2x2 " + name, why);
        why = scan_and_check<scan_zoo::UseDefault, std::int32_t, std::int32_t>(ints, form, in_place, 11,
                                                                               scan_zoo::Plus{}, workspace);
        report(why.empty(), "reverse int32 sum " + name, why);
      }
    for (const Form& form : {Form{true, false, false}, Form{false, false, true}, Form{true, true, false}}) {
      const std::string why = scan_and_check<scan_zoo::UseDefault, std::int32_t, std::int32_t>(
          ints, form, false, 123456, scan_zoo::Plus{}, workspace, scan_zoo::kAutomatic, InitialLives::InDeviceMemory);
      report(why.empty(), "forms initial in device memory " + form_name(form) + at, why);
    }
  }
}

void check_configs(std::mt19937_64& rng) {
  const std::int64_t sizes[] = {1, 5000, (1 << 20) + 7, (1 << 22) + 3};
  for (int config = 0; config < scan_zoo::kConfigCount; ++config)
    for (std::int64_t n : sizes) {
      const std::size_t bytes = scan_zoo::workspace_bytes<std::int32_t>(n);
      DeviceArray<char> memory(static_cast<std::int64_t>(bytes));
      scan_zoo::Workspace workspace(memory.data, bytes);
      const auto ints = generate<std::int32_t>(n, [&] { return std::int32_t(rng()); });
      const std::string why = scan_and_check<scan_zoo::UseDefault, std::int32_t, std::int32_t>(
          ints, Form{true, false, false}, false, 3, scan_zoo::Plus{}, workspace, config);
      report(why.empty(), "configs " + std::to_string(config) + " n=" + std::to_string(n) + " in workspace_bytes", why);
    }
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned long long seed = seed_from_command_line(argc, argv, 20261125, "api_forms_reverse_selftest");
  std::mt19937_64 rng(seed);
  check_reverse_and_forms(rng);
  check_configs(rng);
  std::printf("api_forms_reverse_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
