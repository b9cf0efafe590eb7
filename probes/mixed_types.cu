// mixed_types -- the library's scans whose input, accumulator and output types differ, timed
// beside a copy of the same bytes in one process (issue 32; bench/NOTES.md, "Mixed types").
//
//   build/probes/mixed_types [N,...] [--reps R] [--seed S] [--hot]      (default N: 2^24,2^26,2^28)
//   build/probes/mixed_types N,... --row-length L | --columns C          (along an axis, issue 33)
//
// For each N, cold L2 unless --hot, each scan checked against a CPU reference before it is timed:
//   copy_for_<scan>    cudaMemcpyAsync of n (sizeof In + sizeof Out) / 2 bytes, read and written:
//                      the same traffic as the scan, its ceiling (timed just before it)
//   int32              int32 -> int32 sum, the library's reference case
//   bf16_to_float      __nv_bfloat16 -> float inclusive sum (float accumulator)
//   bf16_to_bf16       __nv_bfloat16 -> __nv_bfloat16 inclusive sum (float accumulator)
//   uint8_to_int64     uint8 -> int64 exclusive sum with the total (CSR offsets)
//   bf16_to_float_c<k> the same as bf16_to_float in configuration k of the shipped table
//                      (Options::config): the table was measured on 32-bit elements, so this
//                      says whether 16-bit inputs want another tile
// Along an axis (--row-length L: each N is N / L rows of L, scanned along the rows; --columns C:
// N / C rows of C, scanned down the columns; include/scan_zoo/axis.cuh), mode
// inclusive-lengthL or inclusive-columnsC, every line checked against a CPU reference:
//   copy_for_<scan>    as above
//   float32            float -> float, the axis binaries' case (bin/row_scan, bin/column_scan)
//   bf16_to_float      __nv_bfloat16 -> float (float accumulator): torch.cumsum(x, dim,
//                      dtype=torch.float32) of a bfloat16 tensor, 2 bytes in and 4 out (the
//                      frameworks': python3 -m scripts framework-scans --type bf16>float32)
// The GB/s column counts the bytes each row moves (In read + Out written).
// stdout: the GPU's description and timing.txt rows.
#include <cuda_bf16.h>

#include <scan_zoo/axis.cuh>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "harness/harness.cuh"
#include "probe.cuh"

namespace zoo::probe {
namespace {

template <class T>
std::vector<T> read_back(const T* device, std::int64_t n) {
  std::vector<T> host(n);
  ZOO_CUDA(cudaMemcpy(host.data(), device, std::size_t(n) * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// One timed row: `run_once` timed by the harness's protocol, its GB/s over bytes_per_item an item.
template <class RunOnce>
void measure(Session& session, std::int64_t n, const std::string& variant, const char* type, const std::string& mode,
             double bytes_per_item, RunOnce&& run_once) {
  current_row() = {variant, type, "sum", mode, n};
  const Stats stats = time_reps(session.options, session.stream, session.flusher, run_once);
  print_row(current_row(), stats, bytes_per_item * double(n) / (stats.median_ms * 1e-3) / 1e9, "PASS");
  std::fflush(stdout);
}

// The copy timed beside each scan: its buffers (each as large as the largest copy, n (In + Out) / 2
// bytes of the widest scan) and its rows' mode ("copy" in the 1-D form, the axis's along an axis).
struct CopyBeside {
  const char* in;
  char* out;
  std::string mode;
};

// A scan's row beside a copy that moves its bytes: n (sizeof In + sizeof Out) / 2 read and written.
template <class RunOnce>
void scan_and_copy(Session& session, std::int64_t n, const CopyBeside& copy, const std::string& variant,
                   const char* type, const std::string& mode, int in_out_bytes, RunOnce&& run_once) {
  const std::size_t copy_bytes = std::size_t(n) * in_out_bytes / 2;
  measure(session, n, "copy_for_" + variant, "bytes", copy.mode, in_out_bytes, [&] {
    ZOO_CUDA(cudaMemcpyAsync(copy.out, copy.in, copy_bytes, cudaMemcpyDeviceToDevice, session.stream));
  });
  measure(session, n, variant, type, mode, in_out_bytes, run_once);
}

// The axis form: float and bfloat16 inputs scanned into float along `shape`, each checked, then
// timed beside a copy of its bytes.
int along_axis(Session& session, std::int64_t n, scan_zoo::Workspace& workspace) {
  const Options& options = session.options;
  cudaStream_t stream = session.stream;
  const bool rows = options.row_length > 0;
  const std::int64_t extent = rows ? options.row_length : options.columns;
  const scan_zoo::Shape shape = rows ? scan_zoo::Shape{n / extent, extent, 1} : scan_zoo::Shape{1, n / extent, extent};
  const std::string mode = std::string("inclusive-") + (rows ? "length" : "columns") + std::to_string(extent);
  std::vector<std::int32_t> ints(n);
  generate_input(ints.data(), n, options.seed ^ std::uint64_t(n));
  std::vector<float> floats(n);
  std::vector<__nv_bfloat16> bf16(n);
  for (std::int64_t i = 0; i < n; ++i) {
    floats[i] = float(ints[i]);  // integers in [-8, 8]: exact in bfloat16, every prefix exact in float
    bf16[i] = __float2bfloat16(floats[i]);
  }
  DeviceBuffer b_floats, b_bf16, b_out, b_copy_in, b_copy_out;
  auto* d_floats = device_array<float>(b_floats, n, "mixed_types");
  auto* d_bf16 = device_array<__nv_bfloat16>(b_bf16, n, "mixed_types");
  auto* d_out = device_array<float>(b_out, n, "mixed_types");
  auto* d_copy_in = device_array<char>(b_copy_in, n * 4, "mixed_types");
  auto* d_copy_out = device_array<char>(b_copy_out, n * 4, "mixed_types");
  ZOO_CUDA(cudaMemcpy(d_floats, floats.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  ZOO_CUDA(cudaMemcpy(d_bf16, bf16.data(), n * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));

  // Each scan once into a poisoned output, checked against the harness's reference of its lines
  // (the bf16 values are the float ones: the same reference), before anything is timed.
  const auto checked = [&](const char* what, auto&& scan) {
    ZOO_CUDA(cudaMemsetAsync(d_out, 0xA5, n * sizeof(float), stream));
    ZOO_CUDA(scan());
    ZOO_CUDA(cudaStreamSynchronize(stream));
    const std::vector<float> got = read_back(d_out, n);
    const VerifyResult result =
        rows ? verify_rows_scan<float, Sum>(floats.data(), got.data(), n, extent, ScanKind::Inclusive)
             : verify_columns_scan<float, Sum>(floats.data(), got.data(), n / extent, extent, ScanKind::Inclusive);
    if (result.ok()) return true;
    std::fprintf(stderr, "mixed_types: the %s scan failed its check at n=%lld, %s: %lld wrong, the first at %lld\n",
                 what, static_cast<long long>(n), mode.c_str(), static_cast<long long>(result.mismatches),
                 static_cast<long long>(result.first_bad));
    return false;
  };
  const auto scan_floats = [&] { return scan_zoo::inclusive_scan(d_floats, d_out, shape, scan_zoo::Plus{}, workspace, stream); };
  const auto scan_bf16 = [&] { return scan_zoo::inclusive_scan(d_bf16, d_out, shape, scan_zoo::Plus{}, workspace, stream); };
  if (!checked("float32", scan_floats) || !checked("bf16_to_float", scan_bf16)) return kExitVerifyFailed;

  const CopyBeside copy{d_copy_in, d_copy_out, mode};
  scan_and_copy(session, n, copy, "float32", "float32", mode, 8, [&] { ZOO_CUDA(scan_floats()); });
  scan_and_copy(session, n, copy, "bf16_to_float", "bf16>float32", mode, 6, [&] { ZOO_CUDA(scan_bf16()); });
  return kExitPass;
}

int probe_main(int argc, char** argv) {
  Session session;
  if (!start_probe("mixed_types", "scan-zoo mixed-types probe (probes/mixed_types.cu)", argc, argv, "2^24,2^26,2^28",
                   session))
    return kExitUsage;
  cudaStream_t stream = session.stream;
  scan_zoo::Workspace workspace;

  for (std::int64_t n : session.options.sizes) {
    if (session.options.row_length > 0 || session.options.columns > 0) {
      if (const int code = along_axis(session, n, workspace); code != kExitPass) return code;
      continue;
    }
    // Inputs: small integers, so that every prefix is exact in float and in int64.
    std::vector<std::int32_t> ints(n);
    generate_input(ints.data(), n, session.options.seed ^ std::uint64_t(n));
    std::vector<__nv_bfloat16> bf16(n);
    std::vector<std::uint8_t> counts(n);
    for (std::int64_t i = 0; i < n; ++i) {
      bf16[i] = __float2bfloat16(float(ints[i] % 5));
      counts[i] = std::uint8_t(ints[i]);
    }
    DeviceBuffer b_ints, b_bf16, b_counts, b_out32, b_out16, b_out64, b_copy_in, b_copy_out;
    auto* d_ints = device_array<std::int32_t>(b_ints, n, "mixed_types");
    auto* d_bf16 = device_array<__nv_bfloat16>(b_bf16, n, "mixed_types");
    auto* d_counts = device_array<std::uint8_t>(b_counts, n, "mixed_types");
    auto* d_out32 = device_array<float>(b_out32, n, "mixed_types");
    auto* d_out16 = device_array<__nv_bfloat16>(b_out16, n, "mixed_types");
    auto* d_out64 = device_array<std::int64_t>(b_out64, n + 1, "mixed_types");
    ZOO_CUDA(cudaMemcpy(d_ints, ints.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    ZOO_CUDA(cudaMemcpy(d_bf16, bf16.data(), n * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
    ZOO_CUDA(cudaMemcpy(d_counts, counts.data(), n, cudaMemcpyHostToDevice));
    auto* d_copy_in = device_array<char>(b_copy_in, n * 6, "mixed_types");
    auto* d_copy_out = device_array<char>(b_copy_out, n * 6, "mixed_types");

    // Each scan once, checked, before anything is timed.
    bool right = true;
    ZOO_CUDA(scan_zoo::inclusive_scan(d_bf16, d_out32, n, scan_zoo::Plus{}, workspace, stream));
    ZOO_CUDA(scan_zoo::exclusive_scan(d_counts, d_out64, n, 0, scan_zoo::Plus{}, workspace, stream, {d_out64 + n}));
    ZOO_CUDA(cudaStreamSynchronize(stream));
    const std::vector<float> sums = read_back(d_out32, n);
    const std::vector<std::int64_t> offsets = read_back(d_out64, n + 1);
    float sum = 0;
    std::int64_t offset = 0;
    for (std::int64_t i = 0; i < n && right; ++i) {
      sum += __bfloat162float(bf16[i]);
      right = sums[i] == sum && offsets[i] == offset;
      offset += counts[i];
    }
    right = right && offsets[n] == offset;
    if (!right) {
      std::fprintf(stderr, "mixed_types: a scan failed its check at n=%lld\n", static_cast<long long>(n));
      return kExitVerifyFailed;
    }

    const CopyBeside copy{d_copy_in, d_copy_out, "copy"};
    scan_and_copy(session, n, copy, "int32", "int32", "inclusive", 8, [&] {
      ZOO_CUDA(scan_zoo::inclusive_scan(d_ints, reinterpret_cast<std::int32_t*>(d_out32), n, scan_zoo::Plus{},
                                        workspace, stream));
    });
    scan_and_copy(session, n, copy, "bf16_to_float", "bf16>float32", "inclusive", 6, [&] {
      ZOO_CUDA(scan_zoo::inclusive_scan(d_bf16, d_out32, n, scan_zoo::Plus{}, workspace, stream));
    });
    scan_and_copy(session, n, copy, "bf16_to_bf16", "bf16>bf16", "inclusive", 4, [&] {
      ZOO_CUDA(scan_zoo::inclusive_scan(d_bf16, d_out16, n, scan_zoo::Plus{}, workspace, stream));
    });
    scan_and_copy(session, n, copy, "uint8_to_int64", "uint8>int64", "exclusive", 9, [&] {
      ZOO_CUDA(scan_zoo::exclusive_scan(d_counts, d_out64, n, 0, scan_zoo::Plus{}, workspace, stream, {d_out64 + n}));
    });
    for (int config = 0; config < scan_zoo::kConfigCount; ++config) {
      scan_zoo::Options<float> options;
      options.config = config;
      measure(session, n, "bf16_to_float_c" + std::to_string(config), "bf16>float32", "inclusive", 6, [&] {
        ZOO_CUDA(scan_zoo::inclusive_scan(d_bf16, d_out32, n, scan_zoo::Plus{}, workspace, stream, options));
      });
    }
  }
  return kExitPass;
}

}  // namespace
}  // namespace zoo::probe

int main(int argc, char** argv) { return zoo::probe::probe_main(argc, argv); }
