// api_forms_holes_selftest -- the 1-D scans (include/scan_zoo/scan.cuh) of a value with holes: a
// 24-byte struct whose padding is no one's to define, adjoined an identity. The costliest element
// type of the forms' checks to compile, so a program of its own (api_forms.cuh says why).
// Every element is checked against a CPU reference that computes in the same accumulator type,
// exactly (the data keep every prefix exact), with the output poisoned first. Run by
// tests/test_api.py; the shared checking in api_forms.cuh.
//
//   build/tests/api_forms_holes_selftest [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   operators  a 24-byte value with 11 bytes of holes (a double and an int32 stamp, adjoined),
//              inclusive and reverse inclusive
// Sizes: 0, 1, tile boundaries of the largest tile, odd sizes (no whole vector), and 2^20 + 7.

#include <cuda_runtime.h>

#include <scan_zoo/scan.cuh>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api_forms.cuh"

namespace {

using namespace selftest;
using namespace api_forms;

// A value with holes: a double, an int32, then four bytes of padding, a whole 32-bit piece of its
// descriptor (grid/protocol.cuh's tagged_word says why that once hung a look-back), and seven more
// once adjoined (after `present`). (a, s) op (b, t) = (max(a, b), t): associative, not
// commutative, exact, without an identity.
struct Stamped {
  double value;
  std::int32_t stamp;
};
struct MaxKeepingLaterStamp {
  __host__ __device__ Stamped operator()(const Stamped& x, const Stamped& y) const {
    return {x.value > y.value ? x.value : y.value, y.stamp};
  }
};
using StampedOrNone = scan_zoo::Adjoined<Stamped>;
bool operator==(const StampedOrNone& x, const StampedOrNone& y) {
  return x.present == y.present &&
         (!x.present || (std::memcmp(&x.value.value, &y.value.value, sizeof(double)) == 0 && x.value.stamp == y.value.stamp));
}

void check_value_with_holes(std::mt19937_64& rng) {
  scan_zoo::Workspace workspace;
  for (std::int64_t n : kSizes) {
    const std::string at = " n=" + std::to_string(n);
    std::string why;
    const auto stamped = generate<StampedOrNone>(n, [&]() -> StampedOrNone {
      if (rng() % 8 == 0) return StampedOrNone{};
      return {{double(std::int64_t(rng() % 2001) - 1000) / 8, std::int32_t(rng())}, true};
    });
    for (const Form& form : {Form{}, Form{false, true, false}}) {
      why = scan_and_check<scan_zoo::UseDefault, StampedOrNone, StampedOrNone>(
          stamped, form, false, StampedOrNone{}, scan_zoo::AdjoinIdentity{MaxKeepingLaterStamp{}}, workspace);
      report(why.empty(), "operators a value with padding (24 bytes, 11 of them holes) " + form_name(form) + at, why);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned long long seed = seed_from_command_line(argc, argv, 20261125, "api_forms_holes_selftest");
  std::mt19937_64 rng(seed);
  check_value_with_holes(rng);
  std::printf("api_forms_holes_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
