// multi_gpu_skips_last_element -- a broken scan across GPUs for the tests: it scans every shard but
// its last element, which keeps its poison. The sharded problem's check must fail it (exit 1)
// and name the first wrong global index, whatever the number of GPUs.
#include <scan_zoo/multi_gpu.cuh>

#include "multi_gpu/sharded_problem.cuh"

struct SkipsLastElement : zoo::ShardedVariantDefaults {
  static constexpr std::int64_t kTileItems = zoo::TunedDispatch::kTileItems;

  template <class T, class Op>
  static void run(const std::vector<zoo::GpuShard<T>>& shards, zoo::ScanKind kind) {
    static std::map<int, scan_zoo::Workspace> workspaces;
    std::vector<scan_zoo::Shard<T>> api;
    for (const zoo::GpuShard<T>& s : shards)
      api.push_back({s.gpu->device, s.in, s.out, s.n > 0 ? s.n - 1 : 0, s.gpu->comm, s.gpu->stream,
                     &workspaces[s.gpu->device]});
    const scan_zoo::ShardedStatus status =
        kind == zoo::ScanKind::Inclusive
            ? scan_zoo::sharded_inclusive_scan(api.data(), static_cast<int>(api.size()), Op{})
            : scan_zoo::sharded_exclusive_scan(api.data(), static_cast<int>(api.size()), Op::template identity<T>(), Op{});
    if (!status.ok()) ZOO_CUDA(cudaErrorUnknown);
  }
};

ZOO_MAIN(SkipsLastElement)
