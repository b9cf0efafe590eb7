// scan_zoo/multi_gpu.cuh -- a scan of an array sharded over several GPUs, over NCCL. Header-only,
// beside scan.cuh; needs NCCL's header and library (nvcc ... -lnccl).
//
//   #include <scan_zoo/multi_gpu.cuh>
//
//   // Rank r of the communicator holds elements [begin_r, begin_r + n_r) of the global array, in
//   // rank order: shard r of a contiguous split.
//   scan_zoo::Shard<int> shard{device, d_in, d_out, n_r, comm, stream, &workspace};
//   scan_zoo::ShardedStatus s = scan_zoo::sharded_inclusive_scan(&shard, 1, scan_zoo::Plus{});
//
// One call per process, with the shards this process drives: one (a process per GPU, each with a
// communicator from ncclCommInitRank) or all of them (one process for every GPU, communicators from
// ncclCommInitAll). Every rank of the communicator must make the call: it is a collective.
//
// The algorithm (docs/multi_gpu.md). With contiguous shards whose totals nobody knows
// in advance, each GPU reads its shard twice, once to learn its total and once to scan it:
//   1. reduce: each GPU reduces its shard (shard_reduce_kernel below: one launch, every warp a
//      contiguous run of the shard, the last block to finish folds the blocks' totals in order);
//   2. exchange: an NCCL all-gather puts every shard's total into every GPU's memory (G values:
//      microseconds, while the reduce and the scan stream gigabytes);
//   3. scan: the one-launch tuned scan of scan.cuh runs over the shard with the totals of the
//      shards before it in front of element 0 (detail::ScanFront): its tile 0 folds them from device
//      memory, so no host round trip sits between the exchange and the scan and the carry costs
//      no pass of its own.
// Traffic: 3 accesses per element (read, read, write), so at most 2/3 of what every GPU copying
// its own shard at once moves. The usual way (scan each shard, exchange, add each shard's carry:
// multi_gpu_scan_then_add) takes 4.
//
// Arguments:
//   shards, count   the shards this process drives (count >= 1), in any order. Each names its
//                   CUDA device, its input and output (device pointers on that device; out == in
//                   scans in place), its element count (0 is allowed: an empty shard), its NCCL
//                   communicator (the shard's place in the global array is its rank), a stream of
//                   its device, and a Workspace (scan.cuh) used only with that device.
//   op, T           as in scan.cuh: op associative, with an identity, copied into the kernels with
//                   its state; one trivially copyable T for input, output and accumulator (the
//                   totals travel as bytes).
//   initial         sharded_exclusive_scan's value in front of the global array's element 0.
// Errors: a ShardedStatus, never the end of the process: the first CUDA error (cuda) or NCCL error
// (nccl) of the calls made; cudaErrorInvalidValue for a null shard list, a negative n or a null
// pointer with n > 0. Everything is asynchronous in the shards' streams; the kernels' own errors
// and NCCL's asynchronous ones (ncclCommGetAsyncError) surface later, as always. The caller's
// current device is restored.
//
// Forward progress: as scan.cuh's (blocks dispatched in blockIdx.x order), plus the reduce's last
// block, which waits for nothing: it is the last to arrive. Memory model: a block publishes its
// total with a release increment of an arrival counter; the block that makes the last increment
// acquires every total before it folds them (shard_reduce_kernel). Across GPUs, stream order and
// NCCL's collective complete the exchange before the scan reads the totals.
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "scan.cuh"

namespace scan_zoo {

template <class T>
struct Shard {
  int device = 0;
  const T* in = nullptr;
  T* out = nullptr;
  std::int64_t n = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  Workspace* workspace = nullptr;
};

struct ShardedStatus {
  cudaError_t cuda = cudaSuccess;
  ncclResult_t nccl = ncclSuccess;
  bool ok() const { return cuda == cudaSuccess && nccl == ncclSuccess; }
  const char* text() const { return cuda != cudaSuccess ? cudaGetErrorString(cuda) : ncclGetErrorString(nccl); }
};

namespace detail {

// The reduce's shape: blocks of kReduceWarps warps, each warp loading runs of 32 x kReduceItems
// elements into registers (RegisterTile of one warp: 16-byte vectors, every load instruction
// of a warp 512 contiguous bytes).
constexpr int kReduceWarps = 8;
constexpr int kReduceItems = 16;
using ReduceRun = RegisterTile<kWarpSize, kReduceItems>;
using ReduceBlock = RegisterTile<kWarpSize * kReduceWarps, kReduceItems>;

// The total of in[0..n), in order, into *total. Block b takes a contiguous part of the runs and
// each of its warps a contiguous part of the block's, so every warp reduces its runs in order
// (reduce_warp), the block combines its warps in order, and the last block to arrive folds the
// blocks' totals in order: correct for any associative operator. One launch, no reset: the last
// block returns the arrival counter to zero for the next reduce.
template <class T, class Op>
__global__ void __launch_bounds__(kWarpSize * kReduceWarps)
    shard_reduce_kernel(const T* in, std::int64_t n, T* block_totals, unsigned* arrivals, T* total, Op op) {
  const std::int64_t runs = ceil_div<std::int64_t>(n, ReduceRun::kTileItems);
  const std::int64_t block_first = runs * blockIdx.x / gridDim.x;
  const std::int64_t block_runs = runs * (blockIdx.x + 1) / gridDim.x - block_first;
  const int warp = warp_id();
  const std::int64_t first = block_first + block_runs * warp / kReduceWarps;
  const std::int64_t last = block_first + block_runs * (warp + 1) / kReduceWarps;

  T warp_total = op.template identity<T>();
  for (std::int64_t run = first; run < last; ++run) {
    const std::int64_t begin = run * ReduceRun::kTileItems;
    T items[kReduceItems];
    ReduceRun::load(in + begin, tile_extent(begin, n, ReduceRun::kTileItems), items, op.template identity<T>());
    warp_total = op(warp_total, ReduceRun::template reduce_warp<T, Op>(items, op));
  }
  const T block_total = ReduceBlock::template combine_warps<T, Op>(warp_total, op).tile;

  // Publish this block's total; the last block to arrive has everyone's.
  __shared__ bool last_block;
  if (threadIdx.x == 0) {
    block_totals[blockIdx.x] = block_total;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> arrived(*arrivals);
    last_block = arrived.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
  }
  __syncthreads();  // also: the warp totals' shared words are free again
  if (!last_block) return;

  // Fold the blocks' totals in order: thread t a contiguous part, then the warps, then the block.
  const unsigned blocks = gridDim.x;
  const unsigned mine_first = blocks * threadIdx.x / blockDim.x;
  const unsigned mine_last = blocks * (threadIdx.x + 1) / blockDim.x;
  T folded = op.template identity<T>();
  for (unsigned b = mine_first; b < mine_last; ++b) folded = op(folded, block_totals[b]);
  ShuffleWarpScan::Storage<T> no_storage;
  const T warp_folded =
      shuffle_from(ShuffleWarpScan::inclusive<T, Op>(folded, no_storage, op), kWarpSize - 1);
  const T everything = ReduceBlock::template combine_warps<T, Op>(warp_folded, op).tile;
  if (threadIdx.x == 0) {
    *total = everything;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*arrivals).store(0u, cuda::memory_order_relaxed);
  }
}

// The reduce's grid on a device: as many blocks as fit on it at once (each loops over its runs).
template <class T, class Op>
cudaError_t reduce_blocks_per_device(int device, int& blocks) {
  static std::mutex mutex;
  static std::map<int, int> known;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto found = known.find(device); found != known.end()) {
    blocks = found->second;
    return cudaSuccess;
  }
  int per_sm = 0, sms = 0;
  if (const cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &per_sm, shard_reduce_kernel<T, Op>, kWarpSize * kReduceWarps, 0);
      error != cudaSuccess)
    return error;
  if (const cudaError_t error = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
      error != cudaSuccess)
    return error;
  blocks = known[device] = per_sm * sms;
  return cudaSuccess;
}

// The sharded scan's part of a workspace (its reserved bytes, scan.cuh's PreparedScan): the
// reduce's arrival counter and block totals, and every rank's shard total, gathered.
template <class T>
struct ShardedReserve {
  unsigned* arrivals = nullptr;
  T* block_totals = nullptr;
  T* totals = nullptr;

  static ShardedReserve carve(ScratchCarver& carver, int blocks, int ranks) {
    ShardedReserve reserve;
    reserve.arrivals = carver.take<unsigned>(1);
    reserve.block_totals = carver.take<T>(blocks);
    reserve.totals = carver.take<T>(ranks);
    return reserve;
  }
};

// What one shard's call needs between the phases.
template <class T>
struct ShardPlan {
  int rank = 0;
  PreparedScan prepared;
  ShardedReserve<T> reserve;
};

// The three phases, each over every shard this process drives; a probe times them apart
// (probes/multi_gpu_phases.cu). Each returns the first error and leaves the current device set.

// 1. Reduce each shard into its own slot of the gathered totals (and prepare its scan).
template <class T, class Op>
ShardedStatus reduce_shards(const Shard<T>* shards, int count, const Op& op, std::vector<ShardPlan<T>>& plans) {
  ShardedStatus status;
  for (int i = 0; i < count && status.ok(); ++i) {
    const Shard<T>& s = shards[i];
    ShardPlan<T>& plan = plans[i];
    int ranks = 0, blocks = 0;
    if ((status.nccl = ncclCommUserRank(s.comm, &plan.rank)) != ncclSuccess) break;
    if ((status.nccl = ncclCommCount(s.comm, &ranks)) != ncclSuccess) break;
    if ((status.cuda = cudaSetDevice(s.device)) != cudaSuccess) break;
    if ((status.cuda = reduce_blocks_per_device<T, Op>(s.device, blocks)) != cudaSuccess) break;
    const std::size_t reserved_bytes =
        bytes_of_layout([&](ScratchCarver& counter) { ShardedReserve<T>::carve(counter, blocks, ranks); });
    if ((status.cuda = prepare_scan<T>(s.n, reserved_bytes, kAutomatic, *s.workspace, s.stream, plan.prepared)) != cudaSuccess)
      break;
    ScratchCarver carver(plan.prepared.reserved);
    plan.reserve = ShardedReserve<T>::carve(carver, blocks, ranks);
    // Fewer blocks for a small shard: a warp per run at most (an empty shard: one block, which
    // writes the identity).
    const std::int64_t runs = ceil_div<std::int64_t>(s.n, ReduceRun::kTileItems);
    const int grid = static_cast<int>(std::max<std::int64_t>(
        1, std::min<std::int64_t>(blocks, ceil_div<std::int64_t>(runs, kReduceWarps))));
    shard_reduce_kernel<T, Op><<<grid, kWarpSize * kReduceWarps, 0, s.stream>>>(
        s.in, s.n, plan.reserve.block_totals, plan.reserve.arrivals, plan.reserve.totals + plan.rank, op);
    status.cuda = cudaGetLastError();
  }
  return status;
}

// 2. Every rank's total to every GPU: an all-gather in place, the bytes of one T per rank.
template <class T>
ShardedStatus exchange_totals(const Shard<T>* shards, int count, const std::vector<ShardPlan<T>>& plans) {
  ShardedStatus status;
  status.nccl = ncclGroupStart();
  for (int i = 0; i < count && status.ok(); ++i) {
    const ShardPlan<T>& plan = plans[i];
    status.nccl = ncclAllGather(plan.reserve.totals + plan.rank, plan.reserve.totals, sizeof(T), ncclUint8,
                                shards[i].comm, shards[i].stream);
  }
  const ncclResult_t ended = ncclGroupEnd();
  if (status.nccl == ncclSuccess) status.nccl = ended;
  return status;
}

// 3. Scan each shard with `initial` and the totals of the shards before it in front.
template <class T, class Op>
ShardedStatus scan_shards(const Shard<T>* shards, int count, const Op& op, const std::vector<ShardPlan<T>>& plans,
                          ScanKind kind, T initial) {
  ShardedStatus status;
  for (int i = 0; i < count && status.ok(); ++i) {
    const Shard<T>& s = shards[i];
    const ShardPlan<T>& plan = plans[i];
    if (s.n == 0) continue;
    if ((status.cuda = cudaSetDevice(s.device)) != cudaSuccess) break;
    const ScanFront<T> front{initial, plan.reserve.totals, static_cast<std::uint32_t>(plan.rank)};
    const ScanArgs<T, T, T, Op> args{s.in, s.out, s.n, kind == ScanKind::Exclusive, front, op};
    status.cuda = TunedDispatch::launch(plan.prepared.config, args, plan.prepared.descriptors, plan.prepared.epoch,
                                        s.stream);
  }
  return status;
}

template <class T, class Op>
ShardedStatus sharded_scan(const Shard<T>* shards, int count, ScanKind kind, T initial, const Op& op) {
  static_assert(std::is_trivially_copyable<Op>::value,
                "scan_zoo: the operator is copied into the kernels with its state, so it must be trivially copyable");
  ShardedStatus status;
  if (shards == nullptr || count < 1) status.cuda = cudaErrorInvalidValue;
  for (int i = 0; i < count && status.ok(); ++i) {
    const Shard<T>& s = shards[i];
    if (s.n < 0 || (s.n > 0 && (s.in == nullptr || s.out == nullptr)) || s.workspace == nullptr)
      status.cuda = cudaErrorInvalidValue;
  }
  int caller_device = 0;
  if (status.ok()) status.cuda = cudaGetDevice(&caller_device);
  if (!status.ok()) return status;
  std::vector<ShardPlan<T>> plans(count);
  status = reduce_shards<T, Op>(shards, count, op, plans);
  if (status.ok()) status = exchange_totals(shards, count, plans);
  if (status.ok()) status = scan_shards<T, Op>(shards, count, op, plans, kind, initial);
  const cudaError_t restored = cudaSetDevice(caller_device);
  if (status.ok()) status.cuda = restored;
  return status;
}

}  // namespace detail

// out = the inclusive scan of the global array (every rank's shard, in rank order), each GPU
// writing its own shard.
template <class T, class Op>
ShardedStatus sharded_inclusive_scan(const Shard<T>* shards, int count, Op op) {
  return detail::sharded_scan<T, Op>(shards, count, detail::ScanKind::Inclusive, op.template identity<T>(), op);
}

// out = the exclusive scan of the global array with `initial` in front of its element 0.
template <class T, class Op>
ShardedStatus sharded_exclusive_scan(const Shard<T>* shards, int count, T initial, Op op) {
  return detail::sharded_scan<T, Op>(shards, count, detail::ScanKind::Exclusive, initial, op);
}

}  // namespace scan_zoo
