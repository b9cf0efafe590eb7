// cluster_launch -- what launching the grid as one thread-block cluster costs by itself: an
// empty kernel of C blocks x 512 threads, launched plainly and as one cluster of C blocks, timed
// like any scan (events around each launch, L2 flushed before each, median), C = 1, 2, 4, 8, 16
// (bench/NOTES.md, "Small N: one cluster"). single_pass_scan_cluster launches exactly so
// (zoo::launch_as_one_cluster).
//
//   build/probes/cluster_launch [--reps R] [--hot]
//
// stdout: the GPU's description and timing.txt rows; variant launch_plain or launch_cluster,
// n = C (blocks, not elements), gbps 0: bench/<gpu>/cluster_launch.txt.
#include <cstdio>
#include <vector>

#include "harness/harness.cuh"
#include "probe.cuh"
#include "single_pass/cluster_launch.cuh"

namespace zoo::probe {
namespace {

constexpr int kThreads = 512;

__global__ void __launch_bounds__(kThreads) empty_kernel() {}

int probe_main(int argc, char** argv) {
  Session session;
  // The command line wants an N; this probe ignores it.
  if (!start_probe("cluster_launch", "scan-zoo cluster launch probe (probes/cluster_launch.cu)", argc, argv, "1", session))
    return kExitUsage;
  for (unsigned blocks : {1u, 2u, 4u, 8u, 16u}) {
    RowLabel& row = current_row();
    row = {"launch_plain", "none", "none", "empty", blocks};
    const auto measure = [&](const char* what, auto&& run_once) {
      row.variant = what;
      const Stats stats = time_reps(session.options, session.stream, session.flusher, run_once);
      print_row(row, stats, 0.0, "PASS");
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
