// tuned_scan.cuh -- the zoo's side of the tuned scan (the library's kernel and dispatch,
// include/scan_zoo/detail/tuned_kernel.cuh and tuned_dispatch.cuh): the configurations' names,
// which the tuner's tables and listing use; one configuration in the harness's shape
// (workspace_bytes and run), which the tuner and the drop-a-stage probe time; and the dispatch
// in that shape, which radix_sort_three_kernels scans its digit counts with and the multi-GPU
// binaries size their workspaces by. single_pass_scan_tuned runs through the library's API
// instead (include/scan_zoo/scan.cuh).
#pragma once

#include <scan_zoo/detail/tuned_dispatch.cuh>
#include <scan_zoo/detail/tuned_kernel.cuh>

#include <cstdint>
#include <string>

#include "../core/cuda_check.cuh"
#include "../core/ops.cuh"
#include "../core/workspace.cuh"
#include "tile_state.cuh"

namespace zoo {

// The words a configuration's name spells its publish instruction and its aggregate's timing
// with; the tuner's listing of the space (tune/list_space.cu) has them as columns.
inline const char* publish_instruction_word(Publish how) {
  static const char* const words[] = {"store", "exch", "exchfence"};
  return words[static_cast<int>(how)];
}
inline const char* aggregate_word(Aggregate when) { return when == Aggregate::Early ? "early" : "scanned"; }

// E.g. "256x16.exch.dense.w32.spin.early": a configuration's row name in bench/<gpu>/tuning.txt.
// One function for every configuration (the tuner's listing compiles one body, not 864).
inline std::string tuned_config_name(int threads, int items, Publish how, int stride, int per_lane, int sleep_ns,
                                     Aggregate when) {
  return std::to_string(threads) + "x" + std::to_string(items) + "." + publish_instruction_word(how) + "." +
         (stride == 1 ? "dense" : "sector") + ".w" + std::to_string(kWarpSize * per_lane) + "." +
         (sleep_ns == 0 ? std::string("spin") : "sleep" + std::to_string(sleep_ns)) + "." + aggregate_word(when);
}

template <class Config>
std::string tuned_config_name() {
  return tuned_config_name(Config::kThreads, Config::kItems, Config::kPublish, Config::kDescriptorStride,
                           Config::kPerLane, Config::kSleepNs, Config::kAggregate);
}

// One configuration in the harness's shape: epochs from RunEpochs (keyed by the workspace's
// address), exit on error.
template <class Config>
struct TunedScan : scan_zoo::detail::TunedScan<Config> {
  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, ScanKind kind, Workspace workspace, cudaStream_t stream) {
    const std::int64_t tiles = ceil_div<std::int64_t>(n, Config::kTileItems);
    const std::uint32_t epoch = tiles > 1 ? RunEpochs::next(workspace, stream) : 0u;
    ZOO_CUDA((scan_zoo::detail::TunedScan<Config>::template launch<T, Op>(
        in, out, n, kind, {Op::template identity<T>()}, workspace, epoch, stream)));
  }
};

// The dispatch in the harness's shape: this GPU's configuration for n, epochs from RunEpochs,
// exit on error.
struct TunedDispatch : scan_zoo::detail::TunedDispatch {
  using Library = scan_zoo::detail::TunedDispatch;
  using Library::config_for;
  using Library::workspace_bytes;

  static int config_for(std::int64_t n) {
    const tuned::Table* table = nullptr;
    ZOO_CUDA(table_for_current_device(table));
    return config_for(table, n);
  }

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return workspace_bytes<T, Op>(config_for(n), n);
  }

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, ScanKind kind, Workspace workspace, cudaStream_t stream) {
    ZOO_CUDA((launch<T, Op>(config_for(n), in, out, n, kind, {Op::template identity<T>()}, workspace,
                            RunEpochs::next(workspace, stream), stream)));
  }
};

}  // namespace zoo
