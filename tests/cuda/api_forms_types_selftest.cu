// api_forms_types_selftest -- the 1-D scans (include/scan_zoo/scan.cuh) with mixed input,
// accumulator and output types, and the calls the library must refuse.
// Every element is checked against a CPU reference that computes in the same accumulator type,
// exactly (the data keep every prefix exact), with the output poisoned first. Run by
// tests/test_api.py; the shared checking in api_forms.cuh.
//
//   build/tests/api_forms_types_selftest [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   types      uint8 flags -> int64 offsets (exclusive, a literal 0 as the initial value, the total
//              after the last offset: CSR), bf16 -> float, bf16 -> bf16 (accumulated in float,
//              rounded once per output), half -> float max, float -> float accumulated in double
//              (Acc named), int32 -> int64 with an initial value
//   refusals   a configuration out of range; in == out with In and Out of different sizes
// Sizes: 0, 1, tile boundaries of the largest tile, odd sizes (no whole vector), and 2^20 + 7.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <scan_zoo/scan.cuh>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "api_forms.cuh"

namespace {

using namespace selftest;
using namespace api_forms;

void check_types(std::mt19937_64& rng) {
  scan_zoo::Workspace workspace;
  const Form exclusive{true, false, false}, inclusive{};
  for (std::int64_t n : kSizes) {
    const std::string at = " n=" + std::to_string(n);
    // CSR offsets as a user writes them: uint8 counts -> n + 1 int64 offsets, a literal 0 (an int)
    // in front, the total into the last one.
    const auto flags = generate<std::uint8_t>(n, [&] { return std::uint8_t(rng()); });
    std::vector<std::int64_t> want;
    std::int64_t want_total = 0;
    reference<std::int64_t>(flags, want, want_total, exclusive, 0, scan_zoo::Plus{});
    want.push_back(want_total);
    DeviceArray<std::uint8_t> d_flags(n);
    DeviceArray<std::int64_t> d_offsets(n + 1);
    if (n > 0) CHECK_CUDA(cudaMemcpy(d_flags.data, flags.data(), n, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_offsets.data, 0xA5, (n + 1) * sizeof(std::int64_t)));
    std::string why;
    if (const cudaError_t e =
            scan_zoo::exclusive_scan(d_flags.data, d_offsets.data, n, 0, scan_zoo::Plus{}, workspace, 0, {d_offsets.data + n});
        e != cudaSuccess)
      why = cudaGetErrorString(e);
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<std::int64_t> offsets(n + 1);
    CHECK_CUDA(cudaMemcpy(offsets.data(), d_offsets.data, (n + 1) * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
    if (why.empty() && offsets != want) why = "wrong offsets or total";
    report(why.empty(), "types uint8->int64 exclusive, literal 0, total at out + n (CSR)" + at, why);
    // Small integers: every prefix up to 2^20 + 7 elements is exact in float and in bf16's inputs.
    const auto small = [&] { return float(int(rng() % 9) - 4); };
    const auto bf16 = generate<__nv_bfloat16>(n, [&] { return __float2bfloat16(small()); });
    why = scan_and_check<scan_zoo::UseDefault, __nv_bfloat16, float>(bf16, inclusive, false, 0.0f,
                                                                                 scan_zoo::Plus{}, workspace);
    report(why.empty(), "types bf16->float inclusive" + at, why);
    why = scan_and_check<scan_zoo::UseDefault, __nv_bfloat16, __nv_bfloat16>(bf16, inclusive, true, 0.0f,
                                                                             scan_zoo::Plus{}, workspace);
    report(why.empty(), "types bf16->bf16 (float accumulator) inclusive in-place" + at, why);
    const auto halves = generate<__half>(n, [&] { return __float2half(float(int(rng() % 2001) - 1000)); });
    why = scan_and_check<scan_zoo::UseDefault, __half, float>(halves, inclusive, false, 0.0f, scan_zoo::Max{},
                                                              workspace);
    report(why.empty(), "types half->float max" + at, why);
    // Floats whose sums are exact in double but not in float: the accumulator named decides.
    const auto floats = generate<float>(n, [&] { return float(rng() % (1 << 24)) + 0.5f; });
    why = scan_and_check<double, float, float>(floats, inclusive, false, 0.0, scan_zoo::Plus{}, workspace);
    report(why.empty(), "types float->float (double accumulator) inclusive" + at, why);
    const auto ints = generate<std::int32_t>(n, [&] { return std::int32_t(rng()); });
    why = scan_and_check<scan_zoo::UseDefault, std::int32_t, std::int64_t>(ints, exclusive, false, -5,
                                                                           scan_zoo::Plus{}, workspace);
    report(why.empty(), "types int32->int64 exclusive initial=-5" + at, why);
  }
}

void check_refusals() {
  scan_zoo::Workspace workspace;
  DeviceArray<std::int32_t> d(16);
  scan_zoo::Options<std::int32_t> options;
  options.config = scan_zoo::kConfigCount;
  report(scan_zoo::inclusive_scan(d.data, d.data, 16, scan_zoo::Plus{}, workspace, 0, options) == cudaErrorInvalidValue,
         "refusals configuration out of range");
  const auto* narrower = reinterpret_cast<const std::int16_t*>(d.data);  // the same memory, 2-byte elements
  report(scan_zoo::inclusive_scan(narrower, d.data, 8, scan_zoo::Plus{}, workspace) == cudaErrorInvalidValue,
         "refusals in == out with 2-byte input and 4-byte output");
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned long long seed = seed_from_command_line(argc, argv, 20261125, "api_forms_types_selftest");
  std::mt19937_64 rng(seed);
  check_types(rng);
  check_refusals();
  std::printf("api_forms_types_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
