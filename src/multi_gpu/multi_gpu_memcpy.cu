// multi_gpu_memcpy -- the ceiling of the scans across GPUs: every GPU copies its own shard at once.
//
// Idea: memcpy_baseline on each of G GPUs together, over the same contiguous shards as
// multi_gpu_scan, with the same launcher (the same barrier before each rep, the same L2 flush on
// every GPU, the slowest GPU's time). Nothing crosses between GPUs, so this is the aggregate
// bandwidth a scan over the shards can hope for: the sum of every GPU's copy.
//
// Work: N element copies. Launches per GPU: 1 (cudaMemcpyAsync, device to device). Global
// traffic: 2 accesses per element, the bound of everything else in bench/multi_gpu/.
//
// Constraints: any N and G; not in place (a copy onto itself moves nothing: WAIVED); checked on
// the GPUs as a copy of the generated input.
//
// In the charts (bench/multi_gpu/): the aggregate ceiling line; the 3-access bound drawn beside
// it is 2/3 of it (docs/multi_gpu.md).
// Run: make bin/multi_gpu_memcpy && ./bin/multi_gpu_memcpy 2^30 --gpus 2
#include "sharded_problem.cuh"

struct MultiGpuMemcpy : zoo::ShardedVariantDefaults {
  static constexpr std::int64_t kTileItems = 0;
  template <class T, class Op>
  using Problem = zoo::ShardedCopyProblem<T, Op>;  // checked as a copy of the input
  static constexpr bool kHandsOverAcrossTiles = false;

  template <class T, class Op>
  static void run(const std::vector<zoo::GpuShard<T>>& shards, zoo::ScanKind) {
    for (const zoo::GpuShard<T>& s : shards) {
      ZOO_CUDA(cudaSetDevice(s.gpu->device));
      ZOO_CUDA(cudaMemcpyAsync(s.out, s.in, static_cast<std::size_t>(s.n) * sizeof(T), cudaMemcpyDeviceToDevice,
                               s.gpu->stream));
    }
  }
};

ZOO_MAIN(MultiGpuMemcpy)
