// row_items -- probe: a scan down C float32 columns run as the library's 1-D scan of n / C items,
// each item a row of C floats and the operator their element-wise sum (the tuned kernel's shape:
// register tiles, warp 0's look-back beside the block's scan, over rows), in every configuration
// of the shipped table, beside the library's scan along the first axis and a copy of the same
// bytes. Every result is checked against the harness's column reference before it is timed.
// It decided which column counts go as row items (include/scan_zoo/detail/narrow_columns.cuh):
// bench/NOTES.md, "Scans along an axis". Not part of `make`.
//
//   make row-items && build/probes/row_items 2^26,2^24,2^20 --columns C   (C in 2, 3, 4, 8, 16)
#include <scan_zoo/axis.cuh>
#include <scan_zoo/scan.cuh>

#include <string>
#include <vector>

#include "probe.cuh"

namespace zoo::probe {
namespace {

// A row of C floats, aligned to its size where that is a power of two (the vector loads'), else
// as a float.
template <int C>
struct alignas((C & (C - 1)) == 0 ? (C * 4 >= 16 ? 16 : C * 4) : 4) RowOf {
  float v[C];
};
struct RowSum {
  template <class U>
  __host__ __device__ static U identity() { return U{}; }
  template <int C>
  __host__ __device__ RowOf<C> operator()(const RowOf<C>& a, const RowOf<C>& b) const {
    RowOf<C> r;
    for (int j = 0; j < C; ++j) r.v[j] = a.v[j] + b.v[j];
    return r;
  }
};

template <int C>
int run(Session& session, std::int64_t n, scan_zoo::Workspace& workspace) {
  const Options& options = session.options;
  cudaStream_t stream = session.stream;
  const std::int64_t rows = n / C;
  const std::string mode = "inclusive-columns" + std::to_string(C);
  std::vector<std::int32_t> ints(n);
  generate_input(ints.data(), n, options.seed ^ std::uint64_t(n));
  std::vector<float> floats(n);
  for (std::int64_t i = 0; i < n; ++i) floats[i] = float(ints[i]);
  DeviceBuffer b_in, b_out, b_copy;
  auto* d_in = device_array<float>(b_in, n, "row_items");
  auto* d_out = device_array<float>(b_out, n, "row_items");
  auto* d_copy = device_array<float>(b_copy, n, "row_items");
  ZOO_CUDA(cudaMemcpy(d_in, floats.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const auto* in_rows = reinterpret_cast<const RowOf<C>*>(d_in);
  auto* out_rows = reinterpret_cast<RowOf<C>*>(d_out);
  const scan_zoo::Shape shape{1, rows, C};

  const auto checked = [&](const std::string& what, auto&& scan) {
    ZOO_CUDA(cudaMemsetAsync(d_out, 0xA5, n * sizeof(float), stream));
    const cudaError_t error = scan();
    if (error != cudaSuccess) {
      std::fprintf(stderr, "row_items: %s: %s\n", what.c_str(), cudaGetErrorString(error));
      return false;
    }
    ZOO_CUDA(cudaStreamSynchronize(stream));
    std::vector<float> got(n);
    ZOO_CUDA(cudaMemcpy(got.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    const VerifyResult result = verify_columns_scan<float, Sum>(floats.data(), got.data(), rows, C, ScanKind::Inclusive);
    if (!result.ok())
      std::fprintf(stderr, "row_items: %s FAILED at n=%lld: %lld wrong, the first at %lld\n", what.c_str(),
                   static_cast<long long>(n), static_cast<long long>(result.mismatches),
                   static_cast<long long>(result.first_bad));
    return result.ok();
  };
  RowLabel& row = current_row();
  const auto measure = [&](const std::string& variant, auto&& run_once) {
    row = {variant, "float32", "sum", mode, n};
    const Stats stats = time_reps(options, stream, session.flusher, run_once);
    print_row(row, stats, 8.0 * double(n) / (stats.median_ms * 1e-3) / 1e9, "PASS");
    std::fflush(stdout);
  };
  measure("copy", [&] { ZOO_CUDA(cudaMemcpyAsync(d_copy, d_in, n * sizeof(float), cudaMemcpyDeviceToDevice, stream)); });
  const auto columns = [&] { return scan_zoo::inclusive_scan(d_in, d_out, shape, scan_zoo::Plus{}, workspace, stream); };
  if (!checked("column_scan", columns)) return kExitVerifyFailed;
  measure("column_scan", [&] { ZOO_CUDA(columns()); });
  int worst = kExitPass;
  for (int config = 0; config < scan_zoo::kConfigCount; ++config) {
    scan_zoo::Options<RowOf<C>> forced;
    forced.config = config;
    const auto items = [&] { return scan_zoo::inclusive_scan(in_rows, out_rows, rows, RowSum{}, workspace, stream, forced); };
    const std::string name = "row_items_config" + std::to_string(config);
    if (!checked(name, items)) {
      worst = kExitVerifyFailed;
      continue;
    }
    measure(name, [&] { ZOO_CUDA(items()); });
  }
  return worst;
}

int probe_main(int argc, char** argv) {
  Session session;
  if (!start_probe("row_items", "scan-zoo probe: columns as a 1-D scan of row items", argc, argv, "2^26", session))
    return kExitUsage;
  scan_zoo::Workspace workspace;
  int worst = kExitPass;
  for (const std::int64_t n : session.options.sizes) {
    const int c = static_cast<int>(session.options.columns);
    int status = kExitUsage;
    if (c == 2) status = run<2>(session, n, workspace);
    else if (c == 3) status = run<3>(session, n, workspace);
    else if (c == 4) status = run<4>(session, n, workspace);
    else if (c == 8) status = run<8>(session, n, workspace);
    else if (c == 16) status = run<16>(session, n, workspace);
    else std::fprintf(stderr, "row_items: --columns 2, 3, 4, 8 or 16\n");
    if (status > worst) worst = status;
  }
  return worst;
}

}  // namespace
}  // namespace zoo::probe

int main(int argc, char** argv) { return zoo::probe::probe_main(argc, argv); }
