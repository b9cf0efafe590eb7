// multi_gpu_scan_then_add -- the usual scan across GPUs, the baseline of multi_gpu_scan: scan each
// shard, exchange the shard totals, add each shard's carry.
//
// Idea: what a distributed array library does when its shards know nothing of each other
// (cuNumeric's distributed cumsum scans each partition, then adds the partitions' carries;
// MPI_Scan would give the carries of values, not of arrays). Per GPU:
//   1. scan the shard on its own (the tuned scan, single_pass_scan_tuned: scan_zoo's API);
//   2. its total (the last output element, with the last input element for an exclusive scan,
//      saved before an in-place scan overwrites it) goes to every GPU by an NCCL all-gather;
//   3. add_carry_kernel puts the totals of the shards before it in front of every element
//      (shard 0 has none and skips it).
//
// Work: O(N). Launches per GPU: 3 kernels (and a 1-element copy for exclusive scans) and one
// all-gather. Global traffic: 4 accesses per element (the scan reads and writes, the add reads
// and writes again) against multi_gpu_scan's 3: at most 1/2 of the aggregate copy, and shard 0,
// with no add, finishes early while the others set the time.
//
// Constraints: any N and G, every type, operator and mode, in place or not.
//
// In the charts (bench/multi_gpu/): the baseline line below multi_gpu_scan (docs/multi_gpu.md).
// What to look for: the fourth access, the cost of not knowing the carry before the scan.
// Run: make bin/multi_gpu_scan_then_add && ./bin/multi_gpu_scan_then_add 2^30 --gpus 2
#include <scan_zoo/scan.cuh>

#include "../single_pass/tuned_scan.cuh"
#include "sharded_problem.cuh"

namespace {

using AddTile = zoo::RegisterTile<256, 16>;

// The shard's total from its scanned output: the last element, combined with the last input
// element (saved before the scan) when the scan was exclusive; the identity for an empty shard.
template <class T, class Op>
__global__ void shard_total_kernel(const T* out, const T* saved_last_input, std::int64_t n, bool exclusive,
                                   T* total) {
  if (n == 0) *total = Op::template identity<T>();
  else *total = exclusive ? Op{}(out[n - 1], *saved_last_input) : out[n - 1];
}

// out[i] = (totals[0] op ... op totals[earlier - 1]) op out[i]: a tile per block, in registers.
template <class T, class Op>
__global__ void __launch_bounds__(AddTile::kThreads)
    add_carry_kernel(T* out, std::int64_t n, const T* totals, std::uint32_t earlier) {
  const std::int64_t begin = std::int64_t(blockIdx.x) * AddTile::kTileItems;
  const int valid = zoo::tile_extent(begin, n, AddTile::kTileItems);
  const T carry = zoo::ScanFront<T>{Op::template identity<T>(), totals, earlier}.fold(Op{});
  T items[AddTile::kItems];
  AddTile::load(out + begin, valid, items, Op::template identity<T>());
  AddTile::template prepend<T, Op>(items, carry);
  AddTile::store(out + begin, valid, items);
}

}  // namespace

struct MultiGpuScanThenAdd : zoo::ShardedVariantDefaults {
  static constexpr std::int64_t kTileItems = zoo::TunedDispatch::kTileItems;

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t shard_n) {
    return zoo::TunedDispatch::workspace_bytes<T, Op>(shard_n) + (1 << 16);  // + the totals
  }

  // Per GPU, kept across calls: the library's workspace, and the totals (one per rank) with the
  // saved last input element after them.
  template <class T>
  struct PerGpu {
    scan_zoo::Workspace workspace;
    zoo::DeviceBuffer totals;
  };

  template <class T, class Op>
  static void run(const std::vector<zoo::GpuShard<T>>& shards, zoo::ScanKind kind) {
    static std::map<int, PerGpu<T>> per_gpu;
    const bool exclusive = kind == zoo::ScanKind::Exclusive;
    int ranks = 0;
    ZOO_NCCL(ncclCommCount(shards[0].gpu->comm, &ranks));
    // 1-2. Scan each shard, and take its total.
    for (const zoo::GpuShard<T>& s : shards) {
      ZOO_CUDA(cudaSetDevice(s.gpu->device));
      PerGpu<T>& mine = per_gpu[s.gpu->device];
      if (!mine.totals.pointer) ZOO_CUDA(mine.totals.allocate((ranks + 1) * sizeof(T)) ? cudaSuccess : cudaErrorMemoryAllocation);
      T* totals = mine.totals.template as<T>();
      T* saved_last_input = totals + ranks;
      if (exclusive && s.n > 0)
        ZOO_CUDA(cudaMemcpyAsync(saved_last_input, s.in + s.n - 1, sizeof(T), cudaMemcpyDeviceToDevice, s.gpu->stream));
      ZOO_CUDA(exclusive ? scan_zoo::exclusive_scan(s.in, s.out, s.n, Op::template identity<T>(), Op{}, mine.workspace,
                                                    s.gpu->stream)
                         : scan_zoo::inclusive_scan(s.in, s.out, s.n, Op{}, mine.workspace, s.gpu->stream));
      shard_total_kernel<T, Op><<<1, 1, 0, s.gpu->stream>>>(s.out, saved_last_input, s.n, exclusive,
                                                            totals + s.gpu->rank);
      ZOO_CHECK_LAUNCH();
    }
    // 3. Every total to every GPU.
    ZOO_NCCL(ncclGroupStart());
    for (const zoo::GpuShard<T>& s : shards) {
      T* totals = per_gpu[s.gpu->device].totals.template as<T>();
      ZOO_NCCL(ncclAllGather(totals + s.gpu->rank, totals, sizeof(T), ncclUint8, s.gpu->comm, s.gpu->stream));
    }
    ZOO_NCCL(ncclGroupEnd());
    // 4. The carry in front of every element of every shard but the first.
    for (const zoo::GpuShard<T>& s : shards) {
      if (s.gpu->rank == 0 || s.n == 0) continue;
      ZOO_CUDA(cudaSetDevice(s.gpu->device));
      const auto tiles = static_cast<unsigned>(zoo::ceil_div<std::int64_t>(s.n, AddTile::kTileItems));
      add_carry_kernel<T, Op><<<tiles, AddTile::kThreads, 0, s.gpu->stream>>>(
          s.out, s.n, per_gpu[s.gpu->device].totals.template as<T>(), static_cast<std::uint32_t>(s.gpu->rank));
      ZOO_CHECK_LAUNCH();
    }
  }
};

ZOO_MAIN(MultiGpuScanThenAdd)
