// drop_stage -- where the tuned scan's time goes at large N: the same kernel with a stage taken
// away, timed beside the whole scan and memcpy in one process (bench/NOTES.md, "What limits the
// tuned scan").
//
//   build/probes/drop_stage [N,...] [--reps R] [--seed S]      (default N: 2^26,2^28,2^30)
//
// For each N it runs, int32 inclusive sum, cold L2, with the configuration this GPU's table
// picks for N (tuned_dispatch.cuh):
//   memcpy_baseline   cudaMemcpyAsync of the same bytes: the ceiling
//   tile_copy         the tile's data path alone: load the register tile, store it (no scan)
//   scan_no_wait      the whole kernel, but the look-back never waits: each tile publishes
//                     INCLUSIVE with its own total and takes the identity as its carry-in
//                     (so the output is wrong from the second tile on, on purpose)
//   scan              the tuned scan itself (checked against the CPU reference first)
// scan - scan_no_wait is what waiting in the look-back costs; scan_no_wait - tile_copy what the
// scan's arithmetic, barriers and publishes cost; tile_copy - memcpy what the tile shape costs.
// stdout: the GPU's description and timing.txt rows (variant column as above): bench/<gpu>/drop_stage.txt.
#include <cstdio>
#include <string>
#include <vector>

#include "harness/harness.cuh"
#include "probe.cuh"
#include "single_pass/tuned_scan.cuh"

namespace zoo::probe {
namespace {

// A configuration whose look-back publishes and never waits: the carry-in is the identity.
template <class Config>
struct NoWait : Config {
  template <class T>
  struct Lookback {
    typename Config::template State<T> state;
    std::int64_t tile;
    template <class U, class Op>
    __device__ U get_in_warp0(U total, const Op& op, bool /*fixed_order*/) const {
      if (lane_id() == 0) state.publish(tile, kTileInclusive, total);
      return op.template identity<U>();
    }
  };
};

template <class Tile, class T>
__global__ void __launch_bounds__(Tile::kThreads) tile_copy_kernel(const T* in, T* out, std::int64_t n) {
  const std::int64_t begin = std::int64_t(blockIdx.x) * Tile::kTileItems;
  const int valid = tile_extent(begin, n, Tile::kTileItems);
  T items[Tile::kItems];
  Tile::load(in + begin, valid, items, T{});
  Tile::store(out + begin, valid, items);
}

int probe_main(int argc, char** argv) {
  Session session;
  if (!start_probe("drop_stage", "scan-zoo drop-a-stage probe (probes/drop_stage.cu)", argc, argv, "2^26,2^28,2^30",
                   session))
    return kExitUsage;
  cudaStream_t stream = session.stream;

  for (std::int64_t n : session.options.sizes) {
    const std::size_t bytes = std::size_t(n) * sizeof(std::int32_t);
    const std::size_t workspace_bytes = TunedDispatch::workspace_bytes<std::int32_t, Sum>(n);
    DeviceBuffer d_in, d_out, d_workspace;
    if (!d_in.allocate(bytes) || !d_out.allocate(bytes) || !d_workspace.allocate(workspace_bytes)) {
      std::fprintf(stderr, "drop_stage: n=%lld does not fit in device memory\n", static_cast<long long>(n));
      return kExitCudaOrMemory;
    }
    ZOO_CUDA(cudaMemset(d_workspace.pointer, 0, workspace_bytes));
    RowLabel& row = current_row();
    row = {"scan", "int32", "sum", "inclusive", n};
    std::vector<std::int32_t> input(n), output(n);
    generate_input(input.data(), n, combination_seed(session.options.seed, row));
    ZOO_CUDA(cudaMemcpy(d_in.pointer, input.data(), bytes, cudaMemcpyHostToDevice));
    const auto* in = static_cast<const std::int32_t*>(d_in.pointer);
    auto* out = static_cast<std::int32_t*>(d_out.pointer);
    const Workspace workspace{d_workspace.pointer, workspace_bytes};

    // The whole scan must be right before any of its stages is timed.
    TunedDispatch::run<std::int32_t, Sum>(in, out, n, ScanKind::Inclusive, workspace, stream);
    wait_or_die(stream, "the verified scan");
    ZOO_CUDA(cudaMemcpy(output.data(), out, bytes, cudaMemcpyDeviceToHost));
    const VerifyResult verdict = verify_scan<std::int32_t, Sum>(input.data(), output.data(), n, ScanKind::Inclusive, true);
    if (!verdict.ok()) {
      std::fprintf(stderr, "drop_stage: the tuned scan failed its check at n=%lld\n", static_cast<long long>(n));
      return kExitVerifyFailed;
    }

    const auto measure = [&](const char* what, auto&& run_once) {
      row.variant = what;
      const Stats stats = time_reps(session.options, session.stream, session.flusher, run_once);
      print_row(row, stats, 2.0 * double(bytes) / (stats.median_ms * 1e-3) / 1e9, "PASS");
      std::fflush(stdout);
    };
    measure("memcpy_baseline", [&] { ZOO_CUDA(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, stream)); });
    with_config(TunedDispatch::config_for(n), tuned::Configs{}, [&](auto config) {
      using Config = decltype(config);
      std::fprintf(stderr, "drop_stage: n=%lld, configuration %s\n", static_cast<long long>(n), tuned_config_name<Config>().c_str());
      const auto tiles = static_cast<unsigned>(ceil_div<std::int64_t>(n, Config::kTileItems));
      measure("tile_copy", [&] {
        tile_copy_kernel<typename Config::Tile, std::int32_t><<<tiles, Config::kThreads, 0, stream>>>(in, out, n);
      });
      measure("scan_no_wait", [&] {
        TunedScan<NoWait<Config>>::template run<std::int32_t, Sum>(in, out, n, ScanKind::Inclusive, workspace, stream);
      });
    });
    measure("scan", [&] { TunedDispatch::run<std::int32_t, Sum>(in, out, n, ScanKind::Inclusive, workspace, stream); });
  }
  return kExitPass;
}

}  // namespace
}  // namespace zoo::probe

int main(int argc, char** argv) { return zoo::probe::probe_main(argc, argv); }
