// api_selftest -- the library API (include/scan_zoo/scan.cuh) checked the way a user calls it,
// against an independent CPU reference (every element, exactly: the data are chosen so that every
// prefix is exact) and, for sums, against CUB on the same input. Run by tests/test_api.py.
//
//   build/tests/api_selftest [--large] [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   sizes      0, 1, tile - 1, tile, tile + 1, 2 tiles + 1, three random sizes, 2^20 + 7, for
//              int32, uint32, int64, uint64, float, double, a 2x2 matrix product (a
//              non-commutative operator of a 16-byte type), a 3x3 one (36 bytes: the two-field
//              descriptors; every smaller type's are tagged words) and the rectangular band (a
//              non-commutative operator without an identity, through scan_zoo::AdjoinIdentity, of
//              a 12-byte type); inclusive, and exclusive with an initial value; out of place and
//              in place
//   config     every configuration of the shipped table forced (16, the fallback among them),
//              for int32, uint32, int64, uint64, float and double with sum, max and min, the
//              matrix product and the band: sizes 1, tile - 1, tile + 1, 3 tiles + 5 and 2^20 + 7
//              of that configuration's tile, inclusive and exclusive, out of place and in place;
//              a line per configuration, type and operator with its PASS count (20 of 20)
//   cub        int64 and double sums against CUB's at 2^20 + 7
//   streams    two scans at once in two streams with two workspaces
//   reuse      one workspace for 1000 scans, alternating sizes and element types
//   failures   a negative n, a null pointer, a workspace of the caller's that is too small: each
//              returns cudaErrorInvalidValue; then a good call on the same workspace passes
//   wrap       the epoch counter run up to its last value and past it: the scan after the wrap
//              zeroes the memory and is right
//   unzeroed   a caller's workspace filled with descriptors that read as published in the
//              first epochs: the first scan must zero it, and is right
//   large      (--large) 2^32 + 3 uint32 elements in place (17 GB of device memory)
#include <cuda_runtime.h>

#include <scan_zoo/scan.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "baselines/cub_reference.cuh"
#include "matrix_product.cuh"
#include "selftest.cuh"

namespace {


// The rectangular band: (a, b) op (c, d) = (a, d). Associative, not commutative, and without an
// identity (no e has e op x = x for every x), so it is scanned through scan_zoo::AdjoinIdentity.
// Every inclusive prefix of x0..xi is (x0.first, xi.second); operands swapped would give
// (xi.first, x0.second).
struct Pair {
  std::uint32_t first, second;
};
struct RectangularBand {
  __host__ __device__ Pair operator()(const Pair& x, const Pair& y) const { return {x.first, y.second}; }
};
using Band = scan_zoo::Adjoined<Pair>;
using BandOp = scan_zoo::AdjoinIdentity<RectangularBand>;
bool operator==(const Band& x, const Band& y) {
  return x.present == y.present && x.value.first == y.value.first && x.value.second == y.value.second;
}

using selftest::failures;
using selftest::report;

// Values whose every prefix is exact in T: small integers for the floating types.
template <class T>
T random_value(std::mt19937_64& rng) {
  if constexpr (std::is_same_v<T, Mat2>) {
    return {std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng())};
  } else if constexpr (std::is_same_v<T, Mat3>) {
    Mat3 x;
    for (auto& entry : x.m) entry = std::uint32_t(rng());
    return x;
  } else if constexpr (std::is_same_v<T, Band>) {
    if (rng() % 8 == 0) return Band{};  // an absent element (the identity) now and then
    return {{std::uint32_t(rng()), std::uint32_t(rng())}, true};
  } else if constexpr (std::is_floating_point_v<T>) {
    return T(static_cast<int>(rng() % 9) - 4);  // |prefix| <= 4 (2^20 + 7) < 2^24: exact in float
  } else {
    return static_cast<T>(rng());  // wraps mod 2^bits in both reference and GPU (unsigned), or
  }                                // stays far from overflow (signed: see below)
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, Mat2>) return "mat2x2";
  else if constexpr (std::is_same_v<T, Mat3>) return "mat3x3";
  else return "band+identity";
}

template <class T>
std::vector<T> random_input(std::int64_t n, std::mt19937_64& rng) {
  std::vector<T> data(n);
  for (auto& x : data) {
    x = random_value<T>(rng);
    if constexpr (std::is_signed_v<T> && std::is_integral_v<T>) x = static_cast<T>(x >> (sizeof(T) * 8 / 2));
  }
  return data;  // signed: half-width values, so no prefix of up to 2^31 elements overflows
}

template <class T, class Op>
std::vector<T> reference(const std::vector<T>& in, bool exclusive, T initial) {
  const Op op;
  std::vector<T> out(in.size());
  T running = exclusive ? initial : Op::template identity<T>();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (exclusive) {
      out[i] = running;
      running = op(running, in[i]);
    } else {
      running = op(running, in[i]);
      out[i] = running;
    }
  }
  return out;
}

template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& want) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!(got[i] == want[i])) return "first wrong element at index " + std::to_string(i) + " of " + std::to_string(want.size());
  return "";
}

template <class T>
T initial_value(std::mt19937_64& rng) {
  if constexpr (std::is_same_v<T, Mat2> || std::is_same_v<T, Mat3> || std::is_same_v<T, Band>) return random_value<T>(rng);
  else return T(7);
}

// One scan through the API, checked: returns "" or what went wrong.
template <class T, class Op>
std::string scan_and_check(std::int64_t n, bool exclusive, bool in_place, scan_zoo::Workspace& workspace,
                           std::mt19937_64& rng, cudaStream_t stream = 0, int config = scan_zoo::kAutomatic) {
  const std::vector<T> input = random_input<T>(n, rng);
  const T initial = initial_value<T>(rng);
  const std::vector<T> want = reference<T, Op>(input, exclusive, initial);
  T *d_in = nullptr, *d_out = nullptr;
  const std::size_t bytes = std::max<std::size_t>(1, n * sizeof(T));
  CHECK_CUDA(cudaMalloc(&d_in, bytes));
  CHECK_CUDA(in_place ? cudaSuccess : cudaMalloc(&d_out, bytes));
  if (in_place) d_out = d_in;
  if (n > 0) CHECK_CUDA(cudaMemcpy(d_in, input.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  if (!in_place) CHECK_CUDA(cudaMemset(d_out, 0xA5, bytes));  // poisoned
  scan_zoo::Options<T> options;
  options.config = config;
  const cudaError_t error = exclusive ? scan_zoo::exclusive_scan(d_in, d_out, n, initial, Op{}, workspace, stream, options)
                                      : scan_zoo::inclusive_scan(d_in, d_out, n, Op{}, workspace, stream, options);
  std::string why;
  if (error != cudaSuccess) why = std::string("returned ") + cudaGetErrorString(error);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<T> got(n);
  if (why.empty() && n > 0) {
    CHECK_CUDA(cudaMemcpy(got.data(), d_out, n * sizeof(T), cudaMemcpyDeviceToHost));
    why = first_difference(got, want);
  }
  CHECK_CUDA(cudaFree(d_in));
  if (!in_place) CHECK_CUDA(cudaFree(d_out));
  return why;
}

template <class T, class Op>
void check_sizes(std::mt19937_64& rng) {
  const std::int64_t tile = zoo::TunedDispatch::kTileItems;
  std::vector<std::int64_t> sizes = {0, 1, tile - 1, tile, tile + 1, 2 * tile + 1, (1 << 20) + 7};
  for (int i = 0; i < 3; ++i) sizes.push_back(1 + std::int64_t(rng() % (1 << 22)));
  scan_zoo::Workspace workspace;
  for (std::int64_t n : sizes)
    for (bool exclusive : {false, true})
      for (bool in_place : {false, true}) {
        const std::string why = scan_and_check<T, Op>(n, exclusive, in_place, workspace, rng);
        report(why.empty(), std::string("sizes ") + type_name<T>() + " n=" + std::to_string(n) +
                                (exclusive ? " exclusive" : " inclusive") + (in_place ? " in-place" : ""),
               why);
      }
}

// The tile of configuration `config` of the shipped table.
std::int64_t tile_of(int config) {
  std::int64_t items = 0;
  scan_zoo::detail::with_config(config, scan_zoo::detail::tuned::Configs{},
                                [&](auto c) { items = decltype(c)::kTileItems; });
  return items;
}

// Every configuration of the shipped table forced (Options::config), the fallback among them,
// whichever this GPU's table picks: sizes 1, tile - 1, tile + 1, 3 tiles + 5 and 2^20 + 7 of that
// configuration's tile, inclusive and exclusive, out of place and in place. One line per
// configuration, type and operator, with its PASS count.
template <class T, class Op>
void check_every_config(const char* op_name, std::mt19937_64& rng) {
  scan_zoo::Workspace workspace;
  for (int config = 0; config < scan_zoo::kConfigCount; ++config) {
    const std::int64_t tile = tile_of(config);
    int passed = 0, total = 0;
    std::string first_failure;
    for (std::int64_t n : {std::int64_t(1), tile - 1, tile + 1, 3 * tile + 5, std::int64_t(1 << 20) + 7})
      for (bool exclusive : {false, true})
        for (bool in_place : {false, true}) {
          const std::string why = scan_and_check<T, Op>(n, exclusive, in_place, workspace, rng, 0, config);
          ++total;
          if (why.empty()) ++passed;
          else if (first_failure.empty())
            first_failure = "n=" + std::to_string(n) + (exclusive ? " exclusive" : " inclusive") +
                            (in_place ? " in-place: " : ": ") + why;
        }
    report(passed == total,
           "config " + std::to_string(config) + " " + type_name<T>() + " " + op_name + ": " + std::to_string(passed) +
               "/" + std::to_string(total),
           first_failure);
  }
}

template <class T>
void check_every_config_and_operator(std::mt19937_64& rng) {
  check_every_config<T, scan_zoo::Plus>("sum", rng);
  check_every_config<T, scan_zoo::Max>("max", rng);
  check_every_config<T, scan_zoo::Min>("min", rng);
}

template <class T>
void check_against_cub(std::mt19937_64& rng) {
  const std::int64_t n = (1 << 20) + 7;
  const std::vector<T> input = random_input<T>(n, rng);
  T *d_in, *d_ours, *d_cub;
  CHECK_CUDA(cudaMalloc(&d_in, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&d_ours, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&d_cub, n * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(d_in, input.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  for (auto kind : {zoo::ScanKind::Inclusive, zoo::ScanKind::Exclusive}) {
    scan_zoo::Workspace workspace;
    const cudaError_t error = kind == zoo::ScanKind::Inclusive
                                  ? scan_zoo::inclusive_scan(d_in, d_ours, n, scan_zoo::Plus{}, workspace)
                                  : scan_zoo::exclusive_scan(d_in, d_ours, n, T(0), scan_zoo::Plus{}, workspace);
    std::size_t cub_bytes = CubScan::workspace_bytes<T, zoo::Sum>(n);
    void* cub_storage = nullptr;
    CHECK_CUDA(cudaMalloc(&cub_storage, cub_bytes));
    CubScan::run<T, zoo::Sum>(d_in, d_cub, n, kind, zoo::Workspace{cub_storage, cub_bytes}, 0);
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<T> ours(n), cub(n);
    CHECK_CUDA(cudaMemcpy(ours.data(), d_ours, n * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(cub.data(), d_cub, n * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaFree(cub_storage));
    const std::string why = error != cudaSuccess ? cudaGetErrorString(error) : first_difference(ours, cub);
    report(why.empty(), std::string("cub ") + type_name<T>() +
                            (kind == zoo::ScanKind::Inclusive ? " inclusive" : " exclusive"), why);
  }
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_ours));
  CHECK_CUDA(cudaFree(d_cub));
}

void check_two_streams(std::mt19937_64& rng) {
  cudaStream_t first, second;
  CHECK_CUDA(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking));
  scan_zoo::Workspace a, b;
  const std::int64_t n = std::int64_t(1) << 24;
  const std::vector<std::int32_t> in_a = random_input<std::int32_t>(n, rng), in_b = random_input<std::int32_t>(n, rng);
  std::int32_t *d_a, *d_b;
  CHECK_CUDA(cudaMalloc(&d_a, n * 4));
  CHECK_CUDA(cudaMalloc(&d_b, n * 4));
  std::string why;
  for (int round = 0; round < 20 && why.empty(); ++round) {  // both queued before either is waited on
    // Each input in its scan's stream (a non-blocking stream does not wait for a cudaMemcpy's DMA).
    CHECK_CUDA(cudaMemcpyAsync(d_a, in_a.data(), n * 4, cudaMemcpyHostToDevice, first));
    CHECK_CUDA(cudaMemcpyAsync(d_b, in_b.data(), n * 4, cudaMemcpyHostToDevice, second));
    const cudaError_t ea = scan_zoo::inclusive_scan(d_a, d_a, n, scan_zoo::Plus{}, a, first);
    const cudaError_t eb = scan_zoo::exclusive_scan(d_b, d_b, n, std::int32_t(3), scan_zoo::Max{}, b, second);
    CHECK_CUDA(cudaDeviceSynchronize());
    if (ea != cudaSuccess || eb != cudaSuccess) why = "a call failed";
    std::vector<std::int32_t> got_a(n), got_b(n);
    CHECK_CUDA(cudaMemcpy(got_a.data(), d_a, n * 4, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(got_b.data(), d_b, n * 4, cudaMemcpyDeviceToHost));
    if (why.empty()) why = first_difference(got_a, reference<std::int32_t, scan_zoo::Plus>(in_a, false, 0));
    if (why.empty()) why = first_difference(got_b, reference<std::int32_t, scan_zoo::Max>(in_b, true, 3));
  }
  report(why.empty(), "streams: two workspaces in two streams at once, 20 rounds", why);
  CHECK_CUDA(cudaFree(d_a));
  CHECK_CUDA(cudaFree(d_b));
  CHECK_CUDA(cudaStreamDestroy(first));
  CHECK_CUDA(cudaStreamDestroy(second));
}

void check_reuse(std::mt19937_64& rng) {
  scan_zoo::Workspace workspace;
  std::string why;
  int scans = 0;
  for (; scans < 1000 && why.empty(); ++scans) {
    const std::int64_t n = 1 + std::int64_t(rng() % 300000);
    why = scans % 3 == 2 ? scan_and_check<double, scan_zoo::Plus>(n, scans % 2, false, workspace, rng)
                         : scan_and_check<std::int32_t, scan_zoo::Plus>(n, scans % 2, scans % 5 == 0, workspace, rng);
  }
  report(why.empty(), "reuse: one workspace, " + std::to_string(scans) + " scans of int32 and float64", why);
}

void check_failures(std::mt19937_64& rng) {
  scan_zoo::Workspace workspace;
  std::int32_t* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, 1 << 20));
  const bool negative = scan_zoo::inclusive_scan(d, d, -1, scan_zoo::Plus{}, workspace) == cudaErrorInvalidValue;
  const bool null_in =
      scan_zoo::inclusive_scan(static_cast<const std::int32_t*>(nullptr), d, 10, scan_zoo::Plus{}, workspace) ==
      cudaErrorInvalidValue;
  std::string why = scan_and_check<std::int32_t, scan_zoo::Plus>(100000, false, false, workspace, rng);
  report(negative && null_in && why.empty(), "failures: negative n and null pointer refused, then a good call",
         !negative ? "n = -1 not refused" : !null_in ? "a null input not refused" : why);
  void* small = nullptr;
  CHECK_CUDA(cudaMalloc(&small, 64));
  scan_zoo::Workspace tiny(small, 64);
  const bool too_small = scan_zoo::inclusive_scan(d, d, 1 << 18, scan_zoo::Plus{}, tiny) == cudaErrorInvalidValue;
  why = scan_and_check<std::int32_t, scan_zoo::Plus>(100, true, false, tiny, rng);  // one tile: no descriptor
  report(too_small && why.empty(), "failures: a caller's workspace too small refused, then a scan that fits",
         too_small ? why : "not refused");
  CHECK_CUDA(cudaFree(small));
  CHECK_CUDA(cudaFree(d));
}

void check_wrap(std::mt19937_64& rng) {
  using Access = scan_zoo::detail::WorkspaceAccess;
  scan_zoo::Workspace workspace;
  std::string why = scan_and_check<std::int32_t, scan_zoo::Plus>(1 << 22, false, false, workspace, rng);
  Access::set_last_epoch(workspace, zoo::kEpochMask - 1);
  std::vector<std::uint32_t> epochs;
  for (int i = 0; i < 3 && why.empty(); ++i) {
    why = scan_and_check<std::int32_t, scan_zoo::Plus>(1 << 22, i == 1, false, workspace, rng);
    epochs.push_back(Access::last_epoch(workspace));
  }
  const bool wrapped = epochs.size() == 3 && epochs[0] == zoo::kEpochMask && epochs[1] == 1 && epochs[2] == 2;
  report(why.empty() && wrapped, "wrap: epochs 2^30 - 1, then 1 and 2 after a zeroing, every scan right",
         why.empty() ? "epochs not as expected" : why);
}

void check_unzeroed(std::mt19937_64& rng) {
  const std::int64_t n = 1 << 22;
  std::string why;
  for (std::uint32_t status : {1u, 2u}) {  // AGGREGATE, INCLUSIVE: garbage that reads as published
    const std::size_t bytes = 64 << 20;
    std::vector<unsigned long long> garbage(bytes / 8);
    for (std::size_t i = 0; i < garbage.size(); ++i)
      garbage[i] = (static_cast<unsigned long long>(zoo::tagged_status(status, 1 + i % 4)) << 32) | 12345u;
    void* memory = nullptr;
    CHECK_CUDA(cudaMalloc(&memory, bytes));
    CHECK_CUDA(cudaMemcpy(memory, garbage.data(), bytes, cudaMemcpyHostToDevice));
    scan_zoo::Workspace workspace(memory, bytes);
    for (int i = 0; i < 3 && why.empty(); ++i) why = scan_and_check<std::int32_t, scan_zoo::Plus>(n, false, false, workspace, rng);
    CHECK_CUDA(cudaFree(memory));
  }
  report(why.empty(), "unzeroed: a caller's workspace of descriptors that read as published", why);
}

void check_large(std::mt19937_64& rng) {
  const std::int64_t n = (std::int64_t(1) << 32) + 3;
  std::vector<std::uint32_t> input(n);
  for (auto& x : input) x = std::uint32_t(rng());
  std::uint32_t* d = nullptr;
  if (cudaMalloc(&d, n * 4) != cudaSuccess) {
    report(false, "large: 2^32 + 3 uint32 in place", "not enough device memory");
    return;
  }
  CHECK_CUDA(cudaMemcpy(d, input.data(), n * 4, cudaMemcpyHostToDevice));
  scan_zoo::Workspace workspace;
  const cudaError_t error = scan_zoo::inclusive_scan(d, d, n, scan_zoo::Plus{}, workspace);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<std::uint32_t> got(n);
  CHECK_CUDA(cudaMemcpy(got.data(), d, n * 4, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(d));
  std::string why = error != cudaSuccess ? cudaGetErrorString(error) : "";
  std::uint32_t running = 0;
  for (std::int64_t i = 0; i < n && why.empty(); ++i)
    if (got[i] != (running += input[i])) why = "first wrong element at index " + std::to_string(i);
  report(why.empty(), "large: 2^32 + 3 uint32 in place", why);
}

}  // namespace

int main(int argc, char** argv) {
  bool large = false;
  std::uint64_t seed = std::random_device{}();
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--large")) large = true;
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: api_selftest [--large] [--seed S]\n");
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "api_selftest: no usable CUDA device\n");
    return 2;
  }
  std::printf("api_selftest: scan_zoo %s, seed %llu\n", SCAN_ZOO_VERSION, static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  check_sizes<std::int32_t, scan_zoo::Plus>(rng);
  check_sizes<std::uint32_t, scan_zoo::Plus>(rng);
  check_sizes<std::int64_t, scan_zoo::Plus>(rng);
  check_sizes<std::uint64_t, scan_zoo::Max>(rng);
  check_sizes<float, scan_zoo::Plus>(rng);
  check_sizes<double, scan_zoo::Plus>(rng);
  check_sizes<Mat2, Mat2Product>(rng);
  check_sizes<Mat3, Mat3Product>(rng);
  check_sizes<Band, BandOp>(rng);
  check_every_config_and_operator<std::int32_t>(rng);
  check_every_config_and_operator<std::uint32_t>(rng);
  check_every_config_and_operator<std::int64_t>(rng);
  check_every_config_and_operator<std::uint64_t>(rng);
  check_every_config_and_operator<float>(rng);
  check_every_config_and_operator<double>(rng);
  check_every_config<Mat2, Mat2Product>("product", rng);
  check_every_config<Band, BandOp>("band", rng);
  check_against_cub<std::int64_t>(rng);
  check_against_cub<double>(rng);
  check_two_streams(rng);
  check_reuse(rng);
  check_failures(rng);
  check_wrap(rng);
  check_unzeroed(rng);
  if (large) check_large(rng);
  std::printf("api_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
