// tuned_scan.cuh -- the zoo's side of the tuned scan (the library's kernel and dispatch,
// include/scan_zoo/detail/tuned_kernel.cuh and tuned_dispatch.cuh): the configurations' names
// (tuned_names.cuh); one configuration in the harness's shape
// (workspace_bytes and run), which the tuner and the drop-a-stage probe time; and the dispatch
// in that shape, which radix_sort_three_kernels scans its digit counts with and the multi-GPU
// binaries size their workspaces by. single_pass_scan_tuned runs through the library's API
// instead (include/scan_zoo/scan.cuh).
#pragma once

#include <scan_zoo/detail/tuned_dispatch.cuh>
#include <scan_zoo/detail/tuned_kernel.cuh>

#include <cstdint>

#include "../core/cuda_check.cuh"
#include "../core/ops.cuh"
#include "../core/workspace.cuh"
#include "../grid/run_epochs.cuh"
#include "tuned_names.cuh"

namespace zoo {

// The harness's scans: one type in and out, a stateless operator, forward, no total.
template <class T, class Op>
scan_zoo::detail::ScanArgs<T, T, T, Op> harness_scan_args(const T* in, T* out, std::int64_t n, ScanKind kind) {
  return {in, out, n, kind == ScanKind::Exclusive, {Op::template identity<T>()}, Op{}};
}

// One configuration in the harness's shape: epochs from RunEpochs (keyed by the workspace's
// address), exit on error.
template <class Config>
struct TunedScan : scan_zoo::detail::TunedScan<Config> {
  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return scan_zoo::detail::TunedScan<Config>::template workspace_bytes<T>(n);
  }

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, ScanKind kind, Workspace workspace, cudaStream_t stream) {
    const std::int64_t tiles = ceil_div<std::int64_t>(n, Config::kTileItems);
    const std::uint32_t epoch = tiles > 1 ? RunEpochs::next(workspace, stream) : 0u;
    ZOO_CUDA(scan_zoo::detail::TunedScan<Config>::launch(harness_scan_args<T, Op>(in, out, n, kind), workspace, epoch,
                                                         stream));
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
    return workspace_bytes<T>(config_for(n), n);
  }

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, ScanKind kind, Workspace workspace, cudaStream_t stream) {
    ZOO_CUDA(launch(config_for(n), harness_scan_args<T, Op>(in, out, n, kind), workspace,
                    RunEpochs::next(workspace, stream), stream));
  }
};

}  // namespace zoo
