// segmented_selftest -- the scans of segments given by offsets (include/scan_zoo/segmented.cuh)
// checked the way a user calls them: every element against a CPU scan of its segment, and every
// element outside the segments unchanged (the poison out of place, the input in place), with
// exact data. Run by tests/test_api.py.
//
//   build/tests/segmented_selftest [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   layouts    CSR offsets (begin = offsets, end = offsets + 1) with segments of 1 to 3 elements,
//              of about a tile (4096), of many tiles, one segment of everything, lengths drawn
//              at random with a fifth of them empty; gaps: before the first segment, after the
//              last, between segments (a tile long and more), end < begin (empty); 32- and
//              64-bit offsets; n from 1 to 3 x 2^20
//   types      int32 sum inclusive and exclusive (in and out of place), float sum, bf16 -> float
//              sum, uint8 -> int64 exclusive sum, int64 max, the 2x2 matrix product (not
//              commutative) with an initial value, an initial value in device memory
//   refusals   a negative n, a negative segment count, null offsets (cudaErrorInvalidValue);
//              no segments and n = 0 return cudaSuccess and write nothing
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <scan_zoo/segmented.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "matrix_product.cuh"
#include "selftest.cuh"

namespace {

using namespace selftest;

// Segments as begin and end offsets, and a name for the messages.
struct Layout {
  std::string name;
  std::int64_t n;
  std::vector<std::int64_t> begins, ends;
};

// Contiguous segments of the given lengths from `start` (CSR: end[s] = begin[s + 1]).
Layout contiguous(std::string name, std::int64_t n, std::int64_t start, const std::vector<std::int64_t>& lengths) {
  Layout layout{std::move(name), n, {}, {}};
  std::int64_t at = start;
  for (const std::int64_t length : lengths) {
    layout.begins.push_back(at);
    layout.ends.push_back(at + length);
    at += length;
  }
  return layout;
}

std::vector<Layout> layouts(std::mt19937_64& rng) {
  // The row kernel's tile of 32-bit accumulators (detail::RowsConfig); wider ones take half.
  constexpr std::int64_t kTile = 8192;
  std::vector<Layout> list;
  const auto random_lengths = [&](std::int64_t total, std::int64_t most, int empty_in) {
    std::vector<std::int64_t> lengths;
    for (std::int64_t left = total; left > 0;) {
      const std::int64_t length = rng() % empty_in == 0 ? 0 : std::min<std::int64_t>(left, 1 + rng() % most);
      lengths.push_back(length);
      left -= length;
    }
    return lengths;
  };
  list.push_back(contiguous("one element", 1, 0, {1}));
  list.push_back(contiguous("one segment of everything", 3 * kTile + 5, 0, {3 * kTile + 5}));
  list.push_back(contiguous("csr of 1-3 elements", 100000, 0, random_lengths(100000, 3, 1 << 30)));
  list.push_back(contiguous("csr about a tile", 50000, 0, random_lengths(50000, 2 * kTile, 1 << 30)));
  list.push_back(contiguous("csr of many tiles", 3 << 20, 0, random_lengths(3 << 20, 40 * kTile, 1 << 30)));
  list.push_back(contiguous("csr with empty segments", 200000, 0, random_lengths(200000, 300, 5)));
  list.push_back(contiguous("csr of 131072 x 8", 8 * 131072, 0, std::vector<std::int64_t>(8, 131072)));
  // Gaps: a leading one over a tile, a trailing one, and between segments.
  list.push_back(contiguous("gaps before and after", 5 * kTile, kTile + 17, {kTile, 7, 0, 2 * kTile - 100}));
  {
    Layout layout{"gaps between", 300000, {}, {}};
    std::int64_t at = 3;
    while (true) {
      const std::int64_t length = rng() % 6000, gap = rng() % 3 == 0 ? rng() % 9000 : 0;
      if (at + length + gap > layout.n) break;
      layout.begins.push_back(at);
      layout.ends.push_back(rng() % 17 == 0 ? at - 1 : at + length);  // now and then end < begin: empty
      at += length + gap;
    }
    list.push_back(layout);
  }
  return list;
}

// One segmented scan, checked: "" or what went wrong. The reference runs over the segments;
// every other element must keep what out held (the poison, or the input in place).
template <class AccChoice, class Offset, class In, class Out, class Init, class Op>
std::string scan_and_check(const Layout& layout, const std::vector<In>& input, bool exclusive, bool in_place,
                           scan_zoo::accumulator_t<AccChoice, Out> initial, const Init& initial_argument,
                           const Op& op, scan_zoo::Workspace& workspace) {
  using Acc = scan_zoo::accumulator_t<AccChoice, Out>;
  const std::int64_t n = layout.n, segments = static_cast<std::int64_t>(layout.begins.size());
  std::vector<Out> before(n);
  if (in_place)
    for (std::int64_t i = 0; i < n; ++i) std::memcpy(&before[i], &input[i], sizeof(Out));
  else
    std::memset(before.data(), 0xA5, n * sizeof(Out));
  std::vector<Out> want = before;
  const Form form{exclusive, false, exclusive};
  for (std::int64_t s = 0; s < segments; ++s) {
    const std::int64_t b = layout.begins[s], length = std::max<std::int64_t>(0, layout.ends[s] - b);
    reference_line<Acc>(input.data() + b, want.data() + b, length, 1, form, initial, op);
  }
  const std::vector<Offset> begins(layout.begins.begin(), layout.begins.end());
  const std::vector<Offset> ends(layout.ends.begin(), layout.ends.end());

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceArray<In> d_in(n);
  DeviceArray<Out> d_separate_out(in_place ? 0 : n);
  DeviceArray<Offset> d_begins(segments), d_ends(segments);
  Out* d_out = in_place ? reinterpret_cast<Out*>(d_in.data) : d_separate_out.data;
  CHECK_CUDA(cudaMemcpyAsync(d_in.data, input.data(), n * sizeof(In), cudaMemcpyHostToDevice, stream));
  if (!in_place) CHECK_CUDA(cudaMemsetAsync(d_out, 0xA5, n * sizeof(Out), stream));
  CHECK_CUDA(cudaMemcpyAsync(d_begins.data, begins.data(), segments * sizeof(Offset), cudaMemcpyHostToDevice, stream));
  CHECK_CUDA(cudaMemcpyAsync(d_ends.data, ends.data(), segments * sizeof(Offset), cudaMemcpyHostToDevice, stream));
  const In* in = d_in.data;
  const cudaError_t error =
      exclusive ? scan_zoo::exclusive_segmented_scan<AccChoice>(in, d_out, n, d_begins.data, d_ends.data, segments,
                                                                initial_argument, op, workspace, stream)
                : scan_zoo::inclusive_segmented_scan<AccChoice>(in, d_out, n, d_begins.data, d_ends.data, segments,
                                                                op, workspace, stream);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaStreamDestroy(stream));
  if (error != cudaSuccess) return std::string("returned ") + cudaGetErrorString(error);
  std::vector<Out> got(n);
  CHECK_CUDA(cudaMemcpy(got.data(), d_out, n * sizeof(Out), cudaMemcpyDeviceToHost));
  for (std::int64_t i = 0; i < n; ++i)
    if (!same(got[i], want[i]))
      return "first wrong element at " + std::to_string(i) + ": " + hex_bytes(got[i]) + ", want " + hex_bytes(want[i]);
  return "";
}

template <class Offset>
void check_layouts(std::mt19937_64& rng, const char* offsets) {
  scan_zoo::Workspace workspace;
  for (const Layout& layout : layouts(rng)) {
    const std::string at = std::string(" (") + offsets + " offsets, " + layout.name + ", n " +
                           std::to_string(layout.n) + ", " + std::to_string(layout.begins.size()) + " segments)";
    const std::int64_t n = layout.n;
    const auto ints = generate<std::int32_t>(n, [&] { return std::int32_t(rng()); });
    for (bool exclusive : {false, true})
      for (bool in_place : {false, true}) {
        const std::string why = scan_and_check<scan_zoo::UseDefault, Offset, std::int32_t, std::int32_t>(
            layout, ints, exclusive, in_place, -7, -7, scan_zoo::Plus{}, workspace);
        report(why.empty(), std::string("int32 sum ") + (exclusive ? "exclusive" : "inclusive") +
                                (in_place ? " in-place" : "") + at, why);
      }
    const auto small = [&] { return float(int(rng() % 9) - 4); };
    const auto floats = generate<float>(n, small);
    std::string why = scan_and_check<scan_zoo::UseDefault, Offset, float, float>(layout, floats, false, false, 0.0f,
                                                                                 0.0f, scan_zoo::Plus{}, workspace);
    report(why.empty(), "float sum inclusive" + at, why);
    const auto bf16 = generate<__nv_bfloat16>(n, [&] { return __float2bfloat16(small()); });
    why = scan_and_check<scan_zoo::UseDefault, Offset, __nv_bfloat16, float>(layout, bf16, false, false, 0.0f, 0.0f,
                                                                             scan_zoo::Plus{}, workspace);
    report(why.empty(), "bf16->float sum inclusive" + at, why);
    const auto counts = generate<std::uint8_t>(n, [&] { return std::uint8_t(rng()); });
    why = scan_and_check<scan_zoo::UseDefault, Offset, std::uint8_t, std::int64_t>(
        layout, counts, true, false, 0, 0, scan_zoo::Plus{}, workspace);
    report(why.empty(), "uint8->int64 exclusive sum" + at, why);
    const auto wide = generate<std::int64_t>(n, [&] { return std::int64_t(rng()); });
    why = scan_and_check<scan_zoo::UseDefault, Offset, std::int64_t, std::int64_t>(
        layout, wide, false, true, 0, 0, scan_zoo::Max{}, workspace);
    report(why.empty(), "int64 max inclusive in-place" + at, why);
    const auto matrices = generate<Mat2>(
        n, [&] { return Mat2{std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng())}; });
    const Mat2 initial{std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng()), std::uint32_t(rng())};
    why = scan_and_check<scan_zoo::UseDefault, Offset, Mat2, Mat2>(layout, matrices, true, false, initial, initial,
                                                                   Mat2Product{}, workspace);
    report(why.empty(), "mat2x2 product exclusive" + at, why);
    DeviceArray<std::int32_t> d_initial(1);
    write_value<<<1, 1>>>(d_initial.data, std::int32_t(123456));
    CHECK_CUDA(cudaDeviceSynchronize());  // the scan runs in a non-blocking stream
    why = scan_and_check<scan_zoo::UseDefault, Offset, std::int32_t, std::int32_t>(
        layout, ints, true, false, 123456, scan_zoo::device_value(d_initial.data), scan_zoo::Plus{}, workspace);
    report(why.empty(), "initial in device memory exclusive" + at, why);
  }
}

void check_refusals() {
  scan_zoo::Workspace workspace;
  DeviceArray<std::int32_t> d(16);
  DeviceArray<std::int64_t> offsets(2);
  const auto expect = [&](cudaError_t got, cudaError_t want, const std::string& name) {
    report(got == want, "refusals " + name, std::string("returned ") + cudaGetErrorString(got));
  };
  const std::int64_t* none = nullptr;
  expect(scan_zoo::inclusive_segmented_scan(d.data, d.data, -1, offsets.data, offsets.data + 1, 1, scan_zoo::Plus{},
                                            workspace),
         cudaErrorInvalidValue, "a negative n");
  expect(scan_zoo::inclusive_segmented_scan(d.data, d.data, 16, offsets.data, offsets.data + 1, -1, scan_zoo::Plus{},
                                            workspace),
         cudaErrorInvalidValue, "a negative segment count");
  expect(scan_zoo::inclusive_segmented_scan(d.data, d.data, 16, none, none, 1, scan_zoo::Plus{}, workspace),
         cudaErrorInvalidValue, "null offsets");
  expect(scan_zoo::inclusive_segmented_scan(d.data, d.data, 16, none, none, 0, scan_zoo::Plus{}, workspace),
         cudaSuccess, "no segments: nothing to do");
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned long long seed = seed_from_command_line(argc, argv, 20261127, "segmented_selftest");
  std::mt19937_64 rng(seed);
  check_layouts<std::int64_t>(rng, "64-bit");
  check_layouts<std::int32_t>(rng, "32-bit");
  check_refusals();
  std::printf("segmented_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
