// api_forms_operators_selftest -- the 1-D scans (include/scan_zoo/scan.cuh) under the operators a
// user writes: state in the operator, a lambda, a semigroup without an identity (the value with
// holes has its own program, api_forms_holes_selftest).
// Every element is checked against a CPU reference that computes in the same accumulator type,
// exactly (the data keep every prefix exact), with the output poisoned first. Run by
// tests/test_api.py; the shared checking in api_forms.cuh.
//
//   build/tests/api_forms_operators_selftest [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   operators  a sum modulo a modulus chosen at run time (state in the operator), an extended
//              __device__ lambda with captured state through with_identity, a semigroup with state
//              through AdjoinIdentity (a masked rectangular band: dropping the mask changes the
//              answer)
// Sizes: 0, 1, tile boundaries of the largest tile, odd sizes (no whole vector), and 2^20 + 7.

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

// ---- Element types and operators ----

// A sum modulo a modulus known only at run time: the operator's state.
struct ModularSum {
  std::uint32_t modulus;
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
    return static_cast<std::uint32_t>((std::uint64_t(a) + b) % modulus);
  }
  template <class U>
  __host__ __device__ static U identity() {
    return U(0);
  }
};

// A masked rectangular band: (a, b) op (c, d) = (a & mask, d). Associative ((a & mask) & mask =
// a & mask), not commutative, without an identity, and with state: a kernel that default-built it
// (mask 0) would zero every first field.
struct Pair {
  std::uint32_t first, second;
};
struct MaskedBand {
  std::uint32_t mask;
  __host__ __device__ Pair operator()(const Pair& x, const Pair& y) const { return {x.first & mask, y.second}; }
};
using Band = scan_zoo::Adjoined<Pair>;
bool operator==(const Band& x, const Band& y) {
  return x.present == y.present && (!x.present || (x.value.first == y.value.first && x.value.second == y.value.second));
}

void check_operators(std::mt19937_64& rng) {
  scan_zoo::Workspace workspace;
  const std::uint32_t modulus = 1000003 + std::uint32_t(rng() % 1000);  // known at run time only
  const std::uint32_t mask = std::uint32_t(rng()) | 1u;
  const auto modular_lambda = scan_zoo::with_identity(
      [modulus] __device__(std::uint32_t a, std::uint32_t b) {
        return static_cast<std::uint32_t>((std::uint64_t(a) + b) % modulus);
      },
      0u);
  const scan_zoo::AdjoinIdentity band{MaskedBand{mask}};
  for (std::int64_t n : kSizes) {
    const std::string at = " n=" + std::to_string(n);
    const auto residues = generate<std::uint32_t>(n, [&] { return std::uint32_t(rng() % modulus); });
    for (const Form& form : {Form{}, Form{true, false, false}}) {
      std::string why = scan_and_check<scan_zoo::UseDefault, std::uint32_t, std::uint32_t>(
          residues, form, false, 17u, ModularSum{modulus}, workspace);
      report(why.empty(), "operators stateful modular sum " + form_name(form) + at, why);
    }
    // The lambda's reference runs its twin on the host: the same arithmetic.
    std::vector<std::uint32_t> want(n);
    std::uint32_t running = 0;
    for (std::int64_t i = 0; i < n; ++i) want[i] = running = ModularSum{modulus}(running, residues[i]);
    DeviceArray<std::uint32_t> d(n);
    if (n > 0) CHECK_CUDA(cudaMemcpy(d.data, residues.data(), n * 4, cudaMemcpyHostToDevice));
    std::string why;
    if (const cudaError_t e = scan_zoo::inclusive_scan(d.data, d.data, n, modular_lambda, workspace); e != cudaSuccess)
      why = cudaGetErrorString(e);
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<std::uint32_t> got(n);
    if (n > 0) CHECK_CUDA(cudaMemcpy(got.data(), d.data, n * 4, cudaMemcpyDeviceToHost));
    if (why.empty() && got != want) why = "wrong values";
    report(why.empty(), "operators extended lambda with state, in place" + at, why);
    const auto bands = generate<Band>(n, [&]() -> Band {
      if (rng() % 8 == 0) return Band{};  // absent now and then
      return {{std::uint32_t(rng()), std::uint32_t(rng())}, true};
    });
    for (const Form& form : {Form{}, Form{false, true, false}}) {
      why = scan_and_check<scan_zoo::UseDefault, Band, Band>(bands, form, false, Band{}, band, workspace);
      report(why.empty(), "operators stateful semigroup through AdjoinIdentity " + form_name(form) + at, why);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned long long seed = seed_from_command_line(argc, argv, 20261125, "api_forms_operators_selftest");
  std::mt19937_64 rng(seed);
  check_operators(rng);
  std::printf("api_forms_operators_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
