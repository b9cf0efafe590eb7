// cluster_launch -- what launching the grid as one thread-block cluster costs by itself: an
// empty kernel of C blocks x 512 threads, launched plainly and as one cluster of C blocks, timed
// like any scan (events around each launch, L2 flushed before each, median), C = 1, 2, 4, 8, 16
// (bench/NOTES.md, "Small N: one cluster"). single_pass_scan_cluster launches exactly so
// (zoo::launch_as_one_cluster).
//
//   build/tune/cluster_launch [--reps R] [--hot]
//
// stdout: the GPU's description and timing.txt rows; variant launch_plain or launch_cluster,
// n = C (blocks, not elements), gbps 0: bench/<gpu>/cluster_launch.txt.
#include <cstdio>
#include <vector>

#include "harness/harness.cuh"
#include "single_pass/cluster_launch.cuh"

namespace zoo::probe {
namespace {

constexpr int kThreads = 512;

__global__ void __launch_bounds__(kThreads) empty_kernel() {}

int probe_main(int argc, char** argv) {
  Session session;
  session.variant = "cluster_launch";
  std::vector<char*> args(argv, argv + argc);
  args.insert(args.begin() + 1, const_cast<char*>("1"));  // the harness wants an N; the probe ignores it
  try {
    session.options = parse_command_line(static_cast<int>(args.size()), args.data());
  } catch (const UsageError& error) {
    std::fprintf(stderr, "cluster_launch: error: %s\n", error.what());
    return kExitUsage;
  }
  g_timeout_s = session.options.timeout_s;
  ensure_cuda_device();
  ZOO_CUDA(cudaStreamCreateWithFlags(&session.stream, cudaStreamNonBlocking));
  if (!session.options.hot) session.flusher.prepare();
  std::printf("# scan-zoo cluster launch probe (tune/cluster_launch.cu)\n");
  print_device_info();
  std::printf("# l2: %s\n", session.options.hot ? "hot" : "cold");
  std::printf("variant type op mode n reps median_ms min_ms max_ms gbps status gpus\n");
  for (unsigned blocks : {1u, 2u, 4u, 8u, 16u}) {
    RowLabel& row = current_row();
    row = {"launch_plain", "none", "none", "empty", blocks};
    const auto measure = [&](const char* what, auto&& run_once) {
      row.variant = what;
      const Stats stats = time_reps(session.options, session.stream, session.flusher, run_once);
      print_row(row, stats.reps, stats.median_ms, stats.min_ms, stats.max_ms, 0.0, "PASS");
      std::fflush(stdout);
    };
    measure("launch_plain", [&] { empty_kernel<<<blocks, kThreads, 0, session.stream>>>(); });
    measure("launch_cluster", [&] { ZOO_CUDA(launch_as_one_cluster(empty_kernel, blocks, kThreads, session.stream)); });
  }
  return kExitPass;
}

}  // namespace
}  // namespace zoo::probe

int main(int argc, char** argv) { return zoo::probe::probe_main(argc, argv); }
