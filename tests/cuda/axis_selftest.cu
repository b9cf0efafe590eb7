// axis_selftest -- the library's scans along an axis (include/scan_zoo/axis.cuh) checked the way
// a user calls them: every line of an [outer, length, inner] array (the rows when inner = 1, the
// columns when inner > 1) against a CPU reference per line, every element and every line total,
// exactly (the data keep every prefix exact), with the output and the totals poisoned first.
// Run by tests/test_api.py.
//
//   build/tests/axis_selftest [--large | --large-case TEXT] [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   shapes     rows (inner = 1), rows x length from 1 x 1 to 1 x 2^20 + 7 and 2^16 x 3: rows
//              shorter than a vector (1, 2, 3), than a warp's round, than a tile (3072, 4096 or
//              8192 by the accumulator), a tile exactly, tiles and a bit, rows of many tiles;
//              columns (inner > 1) from 2 to 1000 wide, odd (scalar loads) and multiples of 4
//              (vectors), narrower than a warp's columns (lane groups), one block of them and
//              several, one band of rows and many, one slab and several; two columns (pairs: one
//              slab through the 1-D kernel, several through the row kernel) and one slab of three
//              and four (rows through the 1-D kernel) shorter and longer than their tile; random
//              shapes of each; empty lines and no lines
//   types      int32 sum (all six forms, in place and out of place), float sum, int64 max,
//              uint32 min, bf16 -> float sum, uint8 -> int64 exclusive sum with the row totals
//              (per-row CSR offsets), and the 2x2 matrix product (not commutative: the operand
//              order; a 16-byte type: descriptors of four tagged words), 16-bit affine maps in a
//              uint32 composed (not commutative, 4 bytes: through the narrow columns' rows too),
//              uint32 sums modulo a prime (an operator with state)
//   forms      an initial value in device memory, written by a kernel just before the scan;
//              two and four columns one element off a row's alignment (the column kernel, not
//              rows as items)
//   workspace  a column scan in caller memory of workspace_bytes<Acc>(shape) (and <Acc, In>(shape)
//              for an input wider than the accumulator)
//   deterministic  Determinism::RunToRun and ChosenAtRunTime (both ways) through every kernel,
//              exact on exact data in every form; on real-valued floats the same bits in every
//              run; ChosenAtRunTime refuses line totals
//   refusals   a negative extent, an element count past 2^63 - 1, a forced configuration, in ==
//              out with In and Out of different sizes (cudaErrorInvalidValue)
//   large      (--large, instead of the above) uint32 sums in place past 32-bit indices: rows of
//              3 x 715827883 (2^31 + 1 elements) and 641 x 6700417 (2^32 + 1), one row of 2^32 + 1,
//              3 and 641 columns of the same totals, and 2 columns of 2^31 + 1 (16 GB of device
//              memory, 32 GB of host, a minute or more each); --large-case TEXT runs those whose
//              name holds TEXT (e.g. "2 columns"), as tests/test_api.py runs them, one case a test
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <scan_zoo/axis.cuh>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "matrix_product.cuh"
#include "selftest.cuh"

namespace {

using namespace selftest;

// One scan along the lines of `shape`, checked element by element and line total by line total
// against the reference of every line: "" or what went wrong. D: the Determinism of its Options
// (ChosenAtRunTime with `run_to_run`, and without the line totals, which it does not write).
template <class AccChoice, class In, class Out, scan_zoo::Determinism D = scan_zoo::Determinism::NotGuaranteed,
          class Op>
std::string scan_and_check(const std::vector<In>& input, const scan_zoo::Shape& shape, const Form& form,
                           bool in_place, scan_zoo::accumulator_t<AccChoice, Out> initial, const Op& op,
                           scan_zoo::Workspace& workspace, InitialLives lives = InitialLives::OnHost,
                           bool run_to_run = false) {
  constexpr bool kTotals = D != scan_zoo::Determinism::ChosenAtRunTime;
  using Acc = scan_zoo::accumulator_t<AccChoice, Out>;
  const std::int64_t n = shape.outer * shape.length * shape.inner, lines = shape.outer * shape.inner;
  std::vector<Out> want(n), want_totals(lines);
  for (std::int64_t o = 0; o < shape.outer; ++o)
    for (std::int64_t i = 0; i < shape.inner; ++i) {
      const std::int64_t first = o * shape.length * shape.inner + i;
      want_totals[o * shape.inner + i] = reference_line<Acc>(input.data() + first, want.data() + first, shape.length,
                                                             shape.inner, form, initial, op);
    }

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceArray<In> d_in(n);
  DeviceArray<Out> d_separate_out(in_place ? 0 : n);
  DeviceArray<Out> d_totals(lines);
  DeviceArray<Acc> d_initial(1);
  Out* d_out = in_place ? reinterpret_cast<Out*>(d_in.data) : d_separate_out.data;
  // The input, too, goes in the scan's stream: a cudaMemcpy from pageable memory may return before
  // its DMA is done, and the non-blocking stream would not wait for it (an in-place scan then
  // read part of the buffer before the copy reached it).
  if (n > 0) CHECK_CUDA(cudaMemcpyAsync(d_in.data, input.data(), n * sizeof(In), cudaMemcpyHostToDevice, stream));
  // Poisoned in the scan's stream (a non-blocking stream does not wait for the default stream).
  if (!in_place) CHECK_CUDA(cudaMemsetAsync(d_out, 0xA5, std::max<std::int64_t>(1, n) * sizeof(Out), stream));
  CHECK_CUDA(cudaMemsetAsync(d_totals.data, 0xA5, std::max<std::int64_t>(1, lines) * sizeof(Out), stream));
  scan_zoo::Options<Out, D> options;
  if (kTotals) options.total = d_totals.data;
  options.run_to_run = run_to_run;
  cudaError_t error;
  if (lives == InitialLives::InDeviceMemory) {
    write_value<<<1, 1, 0, stream>>>(d_initial.data, initial);  // no synchronization before the scan
    error = call<AccChoice>(form, static_cast<const In*>(d_in.data), d_out, shape,
                            scan_zoo::device_value(d_initial.data), op, workspace, stream, options);
  } else {
    error = call<AccChoice>(form, static_cast<const In*>(d_in.data), d_out, shape, initial, op, workspace, stream,
                            options);
  }
  std::string why;
  if (error != cudaSuccess) why = std::string("returned ") + cudaGetErrorString(error);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaStreamDestroy(stream));
  if (!why.empty()) return why;
  std::vector<Out> got(n), got_totals(lines);
  if (n > 0) CHECK_CUDA(cudaMemcpy(got.data(), d_out, n * sizeof(Out), cudaMemcpyDeviceToHost));
  if (lines > 0) CHECK_CUDA(cudaMemcpy(got_totals.data(), d_totals.data, lines * sizeof(Out), cudaMemcpyDeviceToHost));
  const std::int64_t slab = shape.length * shape.inner;
  for (std::int64_t i = 0; i < n; ++i)
    if (!same(got[i], want[i]))
      return "first wrong element at [" + std::to_string(i / slab) + ", " + std::to_string(i % slab / shape.inner) +
             ", " + std::to_string(i % shape.inner) + "]: " + hex_bytes(got[i]) + ", want " + hex_bytes(want[i]);
  for (std::int64_t l = 0; l < lines && kTotals; ++l)
    if (!same(got_totals[l], want_totals[l]))
      return "wrong total of line " + std::to_string(l) + ": " + hex_bytes(got_totals[l]) + ", want " +
             hex_bytes(want_totals[l]);
  return "";
}

// A 4-byte operator that is not commutative: affine maps h -> a h + b of 16-bit residues, a in the
// high half and b in the low, composed earlier first (x then y: a = a_x a_y, b = a_y b_x + b_y,
// mod 2^16): the narrow columns' rows of such maps (narrow_columns.cuh) must keep each column's
// earlier operand on the left, as the matrices do where they go.
struct ComposeMaps16 {
  __host__ __device__ std::uint32_t operator()(std::uint32_t x, std::uint32_t y) const {
    const std::uint32_t a = ((x >> 16) * (y >> 16)) & 0xFFFFu;
    const std::uint32_t b = ((y >> 16) * (x & 0xFFFFu) + (y & 0xFFFFu)) & 0xFFFFu;
    return a << 16 | b;
  }
  template <class U>
  __host__ __device__ static U identity() { return U(1) << 16; }
};

// An operator with state: sums modulo a number that the scan carries into the kernel, of residues
// (every operand below the modulus).
struct AddModulo {
  std::uint32_t modulus;
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
    const std::uint32_t sum = a + b;  // both below the modulus, itself below 2^31
    return sum >= modulus ? sum - modulus : sum;
  }
  template <class U>
  __host__ __device__ static U identity() { return U(0); }
};

std::vector<scan_zoo::Shape> shapes(std::mt19937_64& rng) {
  // The row kernel's tiles (detail::RowsTile): of 32-bit accumulators, of 64-bit ones, and of
  // wider ones (the 2x2 matrices).
  constexpr std::int64_t kTile = 8192, k64BitTile = 3072, kWideTile = 4096;
  std::vector<scan_zoo::Shape> list = {
      // Rows.
      {1, 1}, {3, 1}, {5, 2}, {7, 3}, {4, 5}, {100, 7}, {33, 31}, {9, 127}, {10, 128}, {11, 129}, {6, 1000},
      {3, k64BitTile - 1}, {3, k64BitTile}, {3, k64BitTile + 1}, {3, kWideTile - 1}, {3, kWideTile},
      {3, kWideTile + 1}, {3, kTile - 1}, {3, kTile}, {3, kTile + 1},
      {2, 2 * kTile + 3}, {64, 1024}, {1000, 100}, {1, (1 << 20) + 7},
      {(1 << 16), 3}, {8, 131072}, {0, 5}, {5, 0},
      // Columns: [outer, length, inner]; 16384 x 64 (64 bands of 256 rows, windows of 32) and
      // 300000 x 3 (118 bands of 2560 rows, windows of 80) span more bands than a window, so a
      // look-back there may cross windows that hold no INCLUSIVE band.
      {1, 5, 2}, {1, 1, 3}, {2, 100, 3}, {1, 1000, 4}, {3, 65, 5}, {1, 4097, 7}, {1, 64, 16}, {2, 130, 31},
      // Two columns of elements of at most 4 bytes go as pairs (narrow_columns.cuh), one slab
      // through the 1-D kernel and several through the row kernel, both in tiles of 128 x 16
      // 8-byte pairs: slabs shorter than a tile and just longer, many to a tile, and of many tiles.
      {1, 2047, 2}, {2, 2049, 2}, {2000, 3, 2}, {1, 100000, 2}, {4, 0, 2},
      // One slab of three or four columns of 4-byte elements goes as rows through the 1-D kernel
      // (tiles of 128 x 8 rows): shorter than a tile, just longer, many tiles; several slabs of
      // four stay in the column kernel.
      {1, 1023, 3}, {1, 300001, 3}, {1, 1025, 4}, {1, 200003, 4}, {3, 5000, 4},
      {1, 16384, 64}, {2, 300000, 3}, {1, 1000, 100}, {1, 513, 128}, {2, 200, 129}, {1, 70, 257}, {1, 2049, 1000}, {3, 0, 8},
      {0, 7, 8}};
  for (int i = 0; i < 3; ++i) {
    const std::int64_t length = 1 + std::int64_t(rng() % 20000);
    list.push_back({1 + std::int64_t(rng() % (300000 / length + 1)), length, 1});
  }
  for (int i = 0; i < 3; ++i) {
    const std::int64_t inner = 2 + std::int64_t(rng() % 300), length = 1 + std::int64_t(rng() % 3000);
    list.push_back({1 + std::int64_t(rng() % 3), length, inner});
  }
  return list;
}

// ---- The checks ----

void check_shapes_and_forms(std::mt19937_64& rng) {
  scan_zoo::Workspace workspace;
  const Form forms[] = {{}, {false, false, true}, {true, false, false},
                        {false, true, false}, {false, true, true}, {true, true, false}};
  for (const scan_zoo::Shape& s : shapes(rng)) {
    const std::string at = " [" + std::to_string(s.outer) + ", " + std::to_string(s.length) + ", " +
                           std::to_string(s.inner) + "]";
    const std::int64_t n = s.outer * s.length * s.inner;
    const auto ints = generate<std::int32_t>(n, [&] { return std::int32_t(rng()); });
    for (const Form& form : forms)
      for (bool in_place : {false, true}) {
        const std::string why = scan_and_check<scan_zoo::UseDefault, std::int32_t, std::int32_t>(
            ints, s, form, in_place, -7, scan_zoo::Plus{}, workspace);
        report(why.empty(), "shapes int32 sum " + form_name(form) + (in_place ? " in-place" : "") + at, why);
      }
    const auto small = [&] { return float(int(rng() % 9) - 4); };
    const auto floats = generate<float>(n, small);
    std::string why = scan_and_check<scan_zoo::UseDefault, float, float>(floats, s, Form{}, false,
                                                                         0.0f, scan_zoo::Plus{}, workspace);
    report(why.empty(), "types float sum inclusive" + at, why);
    const auto wide = generate<std::int64_t>(n, [&] { return std::int64_t(rng()); });
    why = scan_and_check<scan_zoo::UseDefault, std::int64_t, std::int64_t>(
        wide, s, Form{false, true, false}, false, 0, scan_zoo::Max{}, workspace);
    report(why.empty(), "types int64 max reverse inclusive" + at, why);
    const auto unsigned_ints = generate<std::uint32_t>(n, [&] { return std::uint32_t(rng()); });
    why = scan_and_check<scan_zoo::UseDefault, std::uint32_t, std::uint32_t>(
        unsigned_ints, s, Form{true, false, false}, true, 4000000000u, scan_zoo::Min{}, workspace);
    report(why.empty(), "types uint32 min exclusive in-place" + at, why);
    const auto bf16 = generate<__nv_bfloat16>(n, [&] { return __float2bfloat16(small()); });
    why = scan_and_check<scan_zoo::UseDefault, __nv_bfloat16, float>(bf16, s, Form{}, false, 0.0f,
                                                                     scan_zoo::Plus{}, workspace);
    report(why.empty(), "types bf16->float sum inclusive" + at, why);
    const auto counts = generate<std::uint8_t>(n, [&] { return std::uint8_t(rng()); });
    why = scan_and_check<scan_zoo::UseDefault, std::uint8_t, std::int64_t>(
        counts, s, Form{true, false, false}, false, 0, scan_zoo::Plus{}, workspace);
    report(why.empty(), "types uint8->int64 exclusive sum, line totals (CSR per row)" + at, why);
    const auto matrices = generate<Mat2>(
        n, [&] { return Mat2{std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng())}; });
    const Mat2 initial{std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng())};
    for (const Form& form : {Form{false, false, true}, Form{true, true, false}}) {
      why = scan_and_check<scan_zoo::UseDefault, Mat2, Mat2>(matrices, s, form, false, initial,
                                                             Mat2Product{}, workspace);
      report(why.empty(), "types mat2x2 product " + form_name(form) + at, why);
    }
    const auto residues = generate<std::uint32_t>(n, [&] { return std::uint32_t(rng() % 1000003); });
    why = scan_and_check<scan_zoo::UseDefault, std::uint32_t, std::uint32_t>(
        residues, s, Form{false, true, true}, false, 999999u, AddModulo{1000003}, workspace);
    report(why.empty(), "types uint32 sum modulo 1000003 (an operator with state) reverse inclusive init" + at, why);
    const auto maps = generate<std::uint32_t>(n, [&] { return std::uint32_t(rng()); });
    why = scan_and_check<scan_zoo::UseDefault, std::uint32_t, std::uint32_t>(maps, s, Form{}, false, 0u,
                                                                             ComposeMaps16{}, workspace);
    report(why.empty(), "types uint32 affine maps mod 2^16 composed (not commutative) inclusive" + at, why);
    why = scan_and_check<scan_zoo::UseDefault, std::int32_t, std::int32_t>(
        ints, s, Form{true, false, false}, false, 123456, scan_zoo::Plus{}, workspace,
        InitialLives::InDeviceMemory);
    report(why.empty(), "forms initial in device memory exclusive" + at, why);
  }
}

void check_refusals() {
  scan_zoo::Workspace workspace;
  DeviceArray<std::int32_t> d(16);
  const auto expect = [&](cudaError_t got, cudaError_t want, const std::string& name) {
    report(got == want, "refusals " + name, std::string("returned ") + cudaGetErrorString(got));
  };
  expect(scan_zoo::inclusive_scan(d.data, d.data, scan_zoo::Shape{-1, 4}, scan_zoo::Plus{}, workspace),
         cudaErrorInvalidValue, "a negative extent");
  expect(scan_zoo::inclusive_scan(d.data, d.data, scan_zoo::Shape{std::int64_t(1) << 40, std::int64_t(1) << 30},
                                  scan_zoo::Plus{}, workspace),
         cudaErrorInvalidValue, "2^70 elements");
  scan_zoo::Options<std::int32_t> forced;
  forced.config = 0;
  expect(scan_zoo::inclusive_scan(d.data, d.data, scan_zoo::Shape{4, 4}, scan_zoo::Plus{}, workspace, 0, forced),
         cudaErrorInvalidValue, "a forced configuration");
  const auto* narrower = reinterpret_cast<const std::int16_t*>(d.data);  // the same memory, 2-byte elements
  expect(scan_zoo::inclusive_scan(narrower, d.data, scan_zoo::Shape{2, 4}, scan_zoo::Plus{}, workspace),
         cudaErrorInvalidValue, "in == out with 2-byte input and 4-byte output");
}

// Two or four columns whose pointers are one element off a row's alignment cannot go as rows
// (narrow_columns.cuh): the column kernel takes them, with the same results.
void check_unaligned_rows(std::mt19937_64& rng, const scan_zoo::Shape& shape) {
  const std::int64_t n = shape.outer * shape.length * shape.inner;
  const auto ints = generate<std::int32_t>(n, [&] { return std::int32_t(rng()); });
  std::vector<std::int32_t> want(n), got(n);
  for (std::int64_t o = 0; o < shape.outer; ++o)
    for (std::int64_t i = 0; i < shape.inner; ++i) {
      const std::int64_t first = o * shape.length * shape.inner + i;
      reference_line<std::int32_t>(ints.data() + first, want.data() + first, shape.length, shape.inner, Form{}, 0,
                                   scan_zoo::Plus{});
    }
  DeviceArray<std::int32_t> d_in(n + 1), d_out(n + 1);
  CHECK_CUDA(cudaMemcpy(d_in.data + 1, ints.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(d_out.data, 0xA5, (n + 1) * sizeof(std::int32_t)));
  scan_zoo::Workspace workspace;
  const cudaError_t error = scan_zoo::inclusive_scan(d_in.data + 1, d_out.data + 1, shape, scan_zoo::Plus{}, workspace);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(got.data(), d_out.data + 1, n * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  std::string why = error != cudaSuccess ? std::string("returned ") + cudaGetErrorString(error) : "";
  for (std::int64_t e = 0; e < n && why.empty(); ++e)
    if (got[e] != want[e]) why = "first wrong element at index " + std::to_string(e);
  report(why.empty(),
         "shapes int32 sum inclusive, " + std::to_string(shape.inner) + " columns one element off a row's alignment [" +
             std::to_string(shape.outer) + ", " + std::to_string(shape.length) + ", " + std::to_string(shape.inner) + "]",
         why);
}

// A column scan in caller memory of exactly workspace_bytes<Acc>(shape), twice (the second reuses
// the memory's epochs), each checked.
void check_caller_workspace(std::mt19937_64& rng) {
  for (const scan_zoo::Shape shape : {scan_zoo::Shape{1, 3000, 64}, scan_zoo::Shape{2, 999, 7}}) {
    const std::size_t bytes = scan_zoo::workspace_bytes<std::int32_t>(shape);
    DeviceArray<char> memory(static_cast<std::int64_t>(bytes));
    scan_zoo::Workspace workspace(memory.data, bytes);
    const std::string at = " [" + std::to_string(shape.outer) + ", " + std::to_string(shape.length) + ", " +
                           std::to_string(shape.inner) + "]";
    for (int round = 0; round < 2; ++round) {
      const auto ints = generate<std::int32_t>(shape.outer * shape.length * shape.inner,
                                               [&] { return std::int32_t(rng()); });
      const std::string why = scan_and_check<scan_zoo::UseDefault, std::int32_t, std::int32_t>(
          ints, shape, Form{}, false, 0, scan_zoo::Plus{}, workspace);
      report(why.empty(), "workspace columns in workspace_bytes(shape), round " + std::to_string(round) + at, why);
    }
    // An input wider than the accumulator (int64 in, int32 sums) takes shorter chunks, so more
    // tiles: workspace_bytes<Acc, In>(shape) counts them.
    const std::size_t wide_bytes = scan_zoo::workspace_bytes<std::int32_t, std::int64_t>(shape);
    DeviceArray<char> wide_memory(static_cast<std::int64_t>(wide_bytes));
    scan_zoo::Workspace wide_workspace(wide_memory.data, wide_bytes);
    const auto wide = generate<std::int64_t>(shape.outer * shape.length * shape.inner,
                                             [&] { return std::int64_t(rng() % 2001) - 1000; });
    const std::string why = scan_and_check<std::int32_t, std::int64_t, std::int32_t>(
        wide, shape, Form{}, false, 0, scan_zoo::Plus{}, wide_workspace);
    report(why.empty() && wide_bytes > bytes, "workspace columns of int64 into int32 sums in workspace_bytes<int32, int64>(shape)" + at,
           why.empty() ? "its workspace is no larger than int32's" : why);
  }
}

// The deterministic scans along an axis (Determinism::RunToRun, and ChosenAtRunTime both ways:
// the fixed-order look-backs of the row and column kernels and of the 1-D kernel's rows as
// items), through every kernel: rows of several look-back windows (32 tiles each) and rows
// shorter than a tile, two columns as pairs through the 1-D kernel and the row kernel, three
// through the 1-D kernel, columns and a middle axis of more bands than a window. First exact, on
// data whose every prefix is exact, in every form, with the line totals, for 4-, 8- and 16-byte
// accumulators (the last a non-commutative product); then, on real-valued floats whose sums
// round, the same bits in every run, ChosenAtRunTime's with run_to_run the same as RunToRun's,
// and near a double reference.
void check_deterministic(std::mt19937_64& rng) {
  using scan_zoo::Determinism;
  scan_zoo::Workspace workspace;
  const Form forms[] = {{}, {false, false, true}, {true, false, false},
                        {false, true, false}, {false, true, true}, {true, true, false}};
  const scan_zoo::Shape exact_shapes[] = {
      // Rows: 2.3 windows of 32-bit tiles (6.1 of 64-bit), 2 of 64-bit, short rows, just past a tile.
      {2, 600001}, {3, 200003}, {1000, 100}, {5, 8193},
      // Pairs through the 1-D and the row kernel, three columns through the 1-D kernel.
      {1, 100000, 2}, {3, 70001, 2}, {1, 300001, 3},
      // Columns of 64 bands (windows of 32) and 118 (windows of 80), a middle axis.
      {1, 16384, 64}, {2, 300000, 3}, {3, 20000, 40}};
  for (const scan_zoo::Shape& s : exact_shapes) {
    const std::string at = " [" + std::to_string(s.outer) + ", " + std::to_string(s.length) + ", " +
                           std::to_string(s.inner) + "]";
    const std::int64_t n = s.outer * s.length * s.inner;
    const auto small = generate<float>(n, [&] { return float(int(rng() % 9) - 4); });
    for (const Form& form : forms) {
      const std::string why = scan_and_check<scan_zoo::UseDefault, float, float, Determinism::RunToRun>(
          small, s, form, false, 3.0f, scan_zoo::Plus{}, workspace);
      report(why.empty(), "deterministic float sum (exact data) " + form_name(form) + ", line totals" + at, why);
    }
    for (bool run_to_run : {true, false})
      for (const Form& form : {Form{}, Form{true, true, false}}) {
        const std::string why = scan_and_check<scan_zoo::UseDefault, float, float, Determinism::ChosenAtRunTime>(
            small, s, form, false, -5.0f, scan_zoo::Plus{}, workspace, InitialLives::OnHost, run_to_run);
        report(why.empty(),
               std::string("deterministic chosen at run time (run_to_run ") + (run_to_run ? "on" : "off") +
                   ") float sum (exact data) " + form_name(form) + at,
               why);
      }
    const auto doubles = generate<double>(n, [&] { return double(std::int64_t(rng() % 2001) - 1000); });
    std::string why = scan_and_check<scan_zoo::UseDefault, double, double, Determinism::RunToRun>(
        doubles, s, Form{false, true, false}, true, 0.0, scan_zoo::Plus{}, workspace);
    report(why.empty(), "deterministic double sum (exact data) reverse inclusive in-place" + at, why);
    const auto matrices = generate<Mat2>(
        n, [&] { return Mat2{std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng())}; });
    const Mat2 initial{std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng())};
    why = scan_and_check<scan_zoo::UseDefault, Mat2, Mat2, Determinism::RunToRun>(
        matrices, s, Form{false, false, true}, false, initial, Mat2Product{}, workspace);
    report(why.empty(), "deterministic mat2x2 product inclusive+init (not commutative), line totals" + at, why);
  }

  // Real-valued floats, uniform in [-1, 1]: rows of 16 windows, pairs through the row and the 1-D
  // kernel, columns of 16 and a middle axis of 32, each of thousands of tiles.
  const scan_zoo::Shape real_shapes[] = {
      {4, 1 << 22}, {8, 1 << 20, 2}, {1, 1 << 22, 2}, {1, 1 << 20, 16}, {4, 65536, 32}};
  constexpr int kRuns = 10;
  for (const scan_zoo::Shape& s : real_shapes) {
    const std::string at = " [" + std::to_string(s.outer) + ", " + std::to_string(s.length) + ", " +
                           std::to_string(s.inner) + "]";
    const std::int64_t n = s.outer * s.length * s.inner;
    const auto reals = generate<float>(n, [&] { return float(std::int64_t(rng() % 2000001) - 1000000) * 1e-6f; });
    DeviceArray<float> d_in(n), d_out(n);
    CHECK_CUDA(cudaMemcpy(d_in.data, reals.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    std::vector<float> first(n), again(n);
    std::string why;
    for (int run = 0; run <= kRuns && why.empty(); ++run) {  // the last run: ChosenAtRunTime with run_to_run
      CHECK_CUDA(cudaMemset(d_out.data, 0xA5, n * sizeof(float)));
      scan_zoo::Options<float, Determinism::RunToRun> fixed;
      scan_zoo::Options<float, Determinism::ChosenAtRunTime> chosen;
      chosen.run_to_run = true;
      const cudaError_t e =
          run < kRuns ? scan_zoo::inclusive_scan(d_in.data, d_out.data, s, scan_zoo::Plus{}, workspace, 0, fixed)
                      : scan_zoo::inclusive_scan(d_in.data, d_out.data, s, scan_zoo::Plus{}, workspace, 0, chosen);
      if (e != cudaSuccess) why = std::string("returned ") + cudaGetErrorString(e);
      CHECK_CUDA(cudaDeviceSynchronize());
      std::vector<float>& got = run == 0 ? first : again;
      CHECK_CUDA(cudaMemcpy(got.data(), d_out.data, n * sizeof(float), cudaMemcpyDeviceToHost));
      if (run > 0 && why.empty() && std::memcmp(first.data(), again.data(), n * sizeof(float)) != 0) {
        const auto where = std::mismatch(first.begin(), first.end(), again.begin()).first - first.begin();
        why = (run < kRuns ? "run " + std::to_string(run) : std::string("ChosenAtRunTime")) +
              " differs from run 0 first at element " + std::to_string(where);
      }
    }
    // float's rounding over partial sums of magnitude up to a few thousand: far below 0.5.
    for (std::int64_t o = 0; o < s.outer && why.empty(); ++o)
      for (std::int64_t i = 0; i < s.inner && why.empty(); ++i) {
        double running = 0.0;
        for (std::int64_t k = 0; k < s.length && why.empty(); ++k) {
          const std::int64_t e = (o * s.length + k) * s.inner + i;
          running += reals[e];
          if (std::abs(double(first[e]) - running) > 0.5)
            why = "element " + std::to_string(e) + " is " + std::to_string(first[e]) + ", the double sum " +
                  std::to_string(running);
        }
      }
    report(why.empty(), "deterministic float sum of real values: " + std::to_string(kRuns) +
                            " runs and one chosen at run time, same bits" + at, why);
  }

  // Line totals cannot be asked of ChosenAtRunTime (the row kernel is compiled without them).
  DeviceArray<float> d(16), totals(4);
  scan_zoo::Options<float, Determinism::ChosenAtRunTime> chosen;
  chosen.total = totals.data;
  report(scan_zoo::inclusive_scan(d.data, d.data, scan_zoo::Shape{4, 4}, scan_zoo::Plus{}, workspace, 0, chosen) ==
             cudaErrorInvalidValue,
         "refusals line totals of Determinism::ChosenAtRunTime");
}

// Fills data[0, n) with 32-bit values from `seed`, on every core: chunk c from its own
// generator seeded by (seed, c), so the values depend on the seed alone, not on the core count.
void fill_random(std::uint32_t* data, std::int64_t n, std::uint64_t seed) {
  constexpr std::int64_t kChunk = std::int64_t(1) << 24;
  const std::int64_t chunks = (n + kChunk - 1) / kChunk;
  std::atomic<std::int64_t> next{0};
  const auto work = [&] {
    for (std::int64_t c; (c = next++) < chunks;) {
      std::mt19937_64 rng(seed ^ (0x9e3779b97f4a7c15ull * std::uint64_t(c + 1)));
      for (std::int64_t e = c * kChunk; e < std::min(n, (c + 1) * kChunk); ++e) data[e] = std::uint32_t(rng());
    }
  };
  std::vector<std::thread> threads(std::max(1u, std::thread::hardware_concurrency()));
  for (auto& thread : threads) thread = std::thread(work);
  for (auto& thread : threads) thread.join();
}

// Lines past 32-bit indices: uint32 sums in place (exact: they wrap), every element checked
// against a running sum per line in one pass over memory. Each case holds 2 x 17 GB of host
// memory (left uninitialized: the fill and the copy back write all of it) and prints the
// seconds of its steps on stderr.
void check_large(std::mt19937_64& rng, const std::string& only) {
  const std::int64_t two_32 = std::int64_t(1) << 32;
  static_assert(3 * std::int64_t(715827883) == (std::int64_t(1) << 31) + 1, "2^31 + 1 = 3 x 715827883");
  static_assert(641 * std::int64_t(6700417) == (std::int64_t(1) << 32) + 1, "2^32 + 1 = 641 x 6700417");
  const std::pair<const char*, scan_zoo::Shape> cases[] = {
      {"rows 3 x 715827883 (2^31 + 1)", {3, 715827883}},
      {"rows 641 x 6700417 (2^32 + 1)", {641, 6700417}},
      {"one row of 2^32 + 1", {1, two_32 + 1}},
      {"3 columns of 715827883 (2^31 + 1)", {1, 715827883, 3}},
      {"2 columns of 2^31 + 1 (pairs past 32-bit indices)", {1, (std::int64_t(1) << 31) + 1, 2}},
      {"641 columns of 6700417 (2^32 + 1)", {1, 6700417, 641}},
  };
  scan_zoo::Workspace workspace;
  for (const auto& [name, shape] : cases) {
    const std::uint64_t case_seed = rng();  // drawn for every case, so a case's data is the same alone
    if (std::string(name).find(only) == std::string::npos) continue;
    const std::int64_t n = shape.outer * shape.length * shape.inner;
    auto began = std::chrono::steady_clock::now();
    std::string steps;
    const auto step = [&](const char* what) {
      const auto now = std::chrono::steady_clock::now();
      char text[64];
      std::snprintf(text, sizeof text, "%s%s %.1f s", steps.empty() ? "" : ", ", what,
                    std::chrono::duration<double>(now - began).count());
      steps += text;
      began = now;
    };
    const std::unique_ptr<std::uint32_t[]> input(new std::uint32_t[n]), got(new std::uint32_t[n]);
    fill_random(input.get(), n, case_seed);
    step("fill");
    std::uint32_t* d = nullptr;
    if (cudaMalloc(&d, n * sizeof(std::uint32_t)) != cudaSuccess) {
      report(false, std::string("large: ") + name, "not enough device memory");
      continue;
    }
    CHECK_CUDA(cudaMemcpy(d, input.get(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    step("copy in");
    const cudaError_t error = scan_zoo::inclusive_scan(d, d, shape, scan_zoo::Plus{}, workspace);
    CHECK_CUDA(cudaDeviceSynchronize());
    step("scan");
    CHECK_CUDA(cudaMemcpy(got.get(), d, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaFree(d));
    step("copy out");
    std::string why = error != cudaSuccess ? std::string("returned ") + cudaGetErrorString(error) : "";
    // Memory order, slab by slab: step k of a slab holds element k of each of its `inner` lines.
    // (Nested loops, not one loop over e with e % inner and e % slab: two 64-bit divisions an
    // element.)
    std::vector<std::uint32_t> running(shape.inner);
    const std::uint32_t* in_at = input.get();
    const std::uint32_t* got_at = got.get();
    for (std::int64_t o = 0; o < shape.outer && why.empty(); ++o) {
      std::fill(running.begin(), running.end(), 0u);
      for (std::int64_t k = 0; k < shape.length && why.empty(); ++k, in_at += shape.inner, got_at += shape.inner)
        for (std::int64_t i = 0; i < shape.inner; ++i)
          if (got_at[i] != (running[i] += in_at[i]) && why.empty())
            why = "first wrong element at index " + std::to_string(got_at + i - got.get());
    }
    step("check");
    std::fprintf(stderr, "large: %s: %s\n", name, steps.c_str());
    report(why.empty(), std::string("large: ") + name + " uint32 in place", why);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool large = false;
  std::string only;  // --large-case TEXT: the large cases whose name holds TEXT
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i)
    if (std::strcmp(argv[i], "--large") == 0) {
      large = true;
    } else if (std::strcmp(argv[i], "--large-case") == 0 && i + 1 < argc) {
      large = true;
      only = argv[++i];
    } else {
      args.push_back(argv[i]);
    }
  const unsigned long long seed = seed_from_command_line(int(args.size()), args.data(), 20261127,
                                                         "axis_selftest [--large | --large-case TEXT]");
  std::mt19937_64 rng(seed);
  if (large) {
    check_large(rng, only);
  } else {
    check_shapes_and_forms(rng);
    check_unaligned_rows(rng, {2, 5000, 2});
    check_unaligned_rows(rng, {1, 5000, 4});
    check_caller_workspace(rng);
    check_deterministic(rng);
    check_refusals();
  }
  std::printf("axis_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
