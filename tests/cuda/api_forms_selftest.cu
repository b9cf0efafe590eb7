// api_forms_selftest -- the library's scans in every form a user reaches for (include/scan_zoo/scan.cuh):
// mixed input, accumulator and output types, operators with state, lambdas, reverse scans, an
// initial value in an inclusive scan or in device memory, the grand total, caller memory sized by
// workspace_bytes, and forced configurations. Every element is checked against a CPU reference
// that computes in the same accumulator type, exactly (the data keep every prefix exact), with
// the output poisoned first. Run by tests/test_api.py.
//
//   build/tests/api_forms_selftest [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   types      uint8 flags -> int64 offsets (exclusive, a literal 0 as the initial value, the total
//              after the last offset: CSR), bf16 -> float, bf16 -> bf16 (accumulated in float,
//              rounded once per output), half -> float max, float -> float accumulated in double
//              (Acc named), int32 -> int64 with an initial value
//   operators  a sum modulo a modulus chosen at run time (state in the operator), an extended
//              __device__ lambda with captured state through with_identity, a semigroup with state
//              through AdjoinIdentity (a masked rectangular band: dropping the mask changes the
//              answer), and a 24-byte value with 11 bytes of holes (a double and an int32 stamp,
//              adjoined), whose padding is no one's to define
//   reverse    reverse inclusive, exclusive and inclusive-with-initial scans of the 2x2 matrix
//              product (not commutative: the operand order is checked) and of int32 sums, in
//              place and out of place
//   forms      inclusive with an initial value; an initial value in device memory written by a
//              kernel just before, in the same stream; the total for every form and for n = 0
//   configs    every configuration of the shipped table forced (Options::config) on int32 sums,
//              each in caller memory of workspace_bytes<int32_t>(n) bytes
//   deterministic  Determinism::RunToRun in every configuration (int32, float, int64, the 2x2
//              matrix product: each descriptor layout), exact; then 20 runs of a float sum of
//              real values at 2^24 + 5, every run's bits equal to the first's
//   refusals   a configuration out of range; in == out with In and Out of different sizes
// Sizes: 0, 1, tile boundaries of the largest tile, odd sizes (no whole vector), and 2^20 + 7.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <scan_zoo/scan.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "matrix_product.cuh"
#include "selftest.cuh"

namespace {

using namespace selftest;

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

// One scan checked element by element, and its total, against the reference of `form`: "" or
// what went wrong. `launch(d_in, d_out, stream, d_total)` makes the library call (and returns
// its error); the output and the total are poisoned first.
template <class Acc, class In, class Out, class Op, class Launch>
std::string check_scan(const std::vector<In>& input, const Form& form, bool in_place, Acc initial, const Op& op,
                       Launch&& launch) {
  const std::int64_t n = static_cast<std::int64_t>(input.size());
  std::vector<Out> want;
  Out want_total{};
  reference<Acc>(input, want, want_total, form, initial, op);

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceArray<In> d_in(n);
  DeviceArray<Out> d_separate_out(in_place ? 0 : n);
  DeviceArray<Out> d_total(1);
  Out* d_out = in_place ? reinterpret_cast<Out*>(d_in.data) : d_separate_out.data;
  // The input in the scan's stream, as the poison below: a cudaMemcpy from pageable memory may
  // return before its DMA is done, and the non-blocking stream would not wait for it.
  if (n > 0) CHECK_CUDA(cudaMemcpyAsync(d_in.data, input.data(), n * sizeof(In), cudaMemcpyHostToDevice, stream));
  // Poisoned, in the scan's stream: a non-blocking stream does not wait for the legacy default
  // stream's work, so a plain cudaMemset (asynchronous for device memory) could land after the
  // scan and poison its results.
  if (!in_place) CHECK_CUDA(cudaMemsetAsync(d_out, 0xA5, std::max<std::int64_t>(1, n) * sizeof(Out), stream));
  CHECK_CUDA(cudaMemsetAsync(d_total.data, 0xA5, sizeof(Out), stream));
  const cudaError_t error = launch(static_cast<const In*>(d_in.data), d_out, stream, d_total.data);
  std::string why;
  if (error != cudaSuccess) why = std::string("returned ") + cudaGetErrorString(error);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaStreamDestroy(stream));
  if (!why.empty()) return why;
  std::vector<Out> got(n);
  Out got_total;
  if (n > 0) CHECK_CUDA(cudaMemcpy(got.data(), d_out, n * sizeof(Out), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(&got_total, d_total.data, sizeof(Out), cudaMemcpyDeviceToHost));
  for (std::int64_t i = 0; i < n; ++i)
    if (!same(got[i], want[i])) return "first wrong element at index " + std::to_string(i) + " of " + std::to_string(n);
  if (!same(got_total, want_total)) return "wrong total: " + hex_bytes(got_total) + ", want " + hex_bytes(want_total);
  return "";
}

// check_scan of the library call that `form` names (call, above), with the initial value as a
// value or in device memory, written by a kernel just before the scan.
template <class AccChoice, class In, class Out, class Op>
std::string scan_and_check(const std::vector<In>& input, const Form& form, bool in_place,
                           scan_zoo::accumulator_t<AccChoice, Out> initial, const Op& op,
                           scan_zoo::Workspace& workspace, int config = scan_zoo::kAutomatic,
                           InitialLives lives = InitialLives::OnHost) {
  using Acc = scan_zoo::accumulator_t<AccChoice, Out>;
  const std::int64_t n = static_cast<std::int64_t>(input.size());
  DeviceArray<Acc> d_initial(1);
  return check_scan<Acc, In, Out>(input, form, in_place, initial, op,
                                  [&](const In* in, Out* out, cudaStream_t stream, Out* total) {
                                    scan_zoo::Options<Out> options;
                                    options.total = total;
                                    options.config = config;
                                    if (lives == InitialLives::OnHost)
                                      return call<AccChoice>(form, in, out, n, initial, op, workspace, stream, options);
                                    write_value<<<1, 1, 0, stream>>>(d_initial.data, initial);  // no synchronization
                                    return call<AccChoice>(form, in, out, n, scan_zoo::device_value(d_initial.data),
                                                           op, workspace, stream, options);
                                  });
}

constexpr std::int64_t kLargestTile = 256 * 32;
const std::vector<std::int64_t> kSizes = {0, 1, 7, kLargestTile - 1, kLargestTile, kLargestTile + 1,
                                          3 * kLargestTile + 5, (1 << 20) + 7};

// ---- The checks ----

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
  const unsigned long long seed = seed_from_command_line(argc, argv, 20261125, "api_forms_selftest");
  std::mt19937_64 rng(seed);
  check_types(rng);
  check_operators(rng);
  check_reverse_and_forms(rng);
  check_configs(rng);
  check_deterministic(rng);
  check_refusals();
  std::printf("api_forms_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
