// multi_gpu_scan -- the zoo's scan across GPUs: reduce, exchange the shard totals over NCCL, scan
// with the carry in front. The global array is split contiguously over G GPUs.
//
// Idea: a scan is a reduce-then-scan at every level (Blelloch 1990, "Prefix sums and their
// applications"; Merrill and Garland 2016, "Single-pass parallel prefix scan with decoupled
// look-back", which does it between tiles). Between GPUs, the totals are few (one per GPU) and
// the link is slow, so the coarse level is a reduce-then-scan with one exchange:
//   1. each GPU reduces its shard with the zoo's own kernel (include/scan_zoo/multi_gpu.cuh:
//      one launch, 16-byte loads into registers, the last block folds the blocks' totals);
//   2. an NCCL all-gather gives every GPU every shard's total (G values);
//   3. each GPU runs the one-launch tuned scan (single_pass_scan_tuned) over its shard with the
//      totals of the shards before it in front of element 0: the scan's tile 0 folds them from
//      device memory, so the carry costs neither a pass nor a host round trip.
// This binary is a thin user of the library's API, scan_zoo::sharded_inclusive_scan and
// sharded_exclusive_scan: it times what a user's call runs.
//
// Work: O(N). Depth: the tuned scan's, plus one collective. Launches per GPU: 2 kernels and one
// all-gather. Global traffic: 3 accesses per element (read to reduce, read and write to scan),
// so the bound is 2/3 of the aggregate copy (every GPU copying its own shard at once:
// multi_gpu_memcpy). The usual way, multi_gpu_scan_then_add, takes 4 accesses per element.
//
// Forward progress and memory model: the tuned scan's (tile 0 waits on nothing, tile i on
// smaller tiles only; blocks dispatched in blockIdx.x order) and the reduce's (a release
// increment per block, the last block acquires and folds); between GPUs, NCCL's collective and
// stream order.
//
// Constraints: any N (2^32 and more per GPU), G from 1 to every GPU of the node or of the job;
// empty shards when N < G; every type, operator and mode, in place or not. The GPUs should be of
// one kind: the shards are equal, so the slowest GPU sets the time.
//
// In the charts (bench/multi_gpu/): aggregate GB/s against N beside the aggregate copy, the
// 3-access bound, multi_gpu_scan_then_add and the one-GPU scan (docs/multi_gpu.md;
// bench/NOTES.md, "A scan across GPUs"). What to look for: the fraction of the bound reached at
// large N, and where the exchange's microseconds stop mattering.
// Run: make bin/multi_gpu_scan && ./bin/multi_gpu_scan 2^30 --gpus 2
#include <scan_zoo/multi_gpu.cuh>

#include "../single_pass/tuned_scan.cuh"
#include "sharded_problem.cuh"

struct MultiGpuScan : zoo::ShardedVariantDefaults {
  static constexpr std::int64_t kTileItems = zoo::TunedDispatch::kTileItems;

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t shard_n) {
    return zoo::TunedDispatch::workspace_bytes<T, Op>(shard_n) + (1 << 20);  // + the reduce's totals (< 1 MiB)
  }

  // One library workspace per GPU, kept across calls (its epochs spare the scan a reset).
  template <class T, class Op>
  static void run(const std::vector<zoo::GpuShard<T>>& shards, zoo::ScanKind kind) {
    static std::map<int, scan_zoo::Workspace> workspaces;
    std::vector<scan_zoo::Shard<T>> api;
    for (const zoo::GpuShard<T>& s : shards)
      api.push_back({s.gpu->device, s.in, s.out, s.n, s.gpu->comm, s.gpu->stream, &workspaces[s.gpu->device]});
    const int count = static_cast<int>(api.size());
    const scan_zoo::ShardedStatus status =
        kind == zoo::ScanKind::Inclusive
            ? scan_zoo::sharded_inclusive_scan(api.data(), count, Op{})
            : scan_zoo::sharded_exclusive_scan(api.data(), count, Op::template identity<T>(), Op{});
    if (status.cuda != cudaSuccess) ZOO_CUDA(status.cuda);
    if (status.nccl != ncclSuccess) ZOO_NCCL(status.nccl);
  }
};

ZOO_MAIN(MultiGpuScan)
