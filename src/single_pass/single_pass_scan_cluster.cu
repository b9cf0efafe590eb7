// single_pass_scan_cluster -- small N in one thread-block cluster: the blocks hand each other
// their tile totals through distributed shared memory, point to point, and global memory
// carries nothing but the data.
//
// Idea: at small N a decoupled look-back scan is a launch, one trip to DRAM and back, and the
// look-back: a descriptor published to L2 by one SM and polled from L2 by another. Hopper
// (sm_90) groups up to 16 blocks into a cluster that is scheduled at once on one GPC and whose
// blocks can store into each other's shared memory and arrive on each other's mbarriers over
// the SM-to-SM network (distributed shared memory; NVIDIA, "CUDA C++ Programming Guide", Thread
// Block Clusters), a shorter trip than L2. So here the grid is one cluster
// (zoo::launch_as_one_cluster): each block scans a register tile (zoo::RegisterTile, as in
// single_pass_scan_decoupled_lookbacks_register_tile), then sends its tile total to every later
// block and reduces the totals of the blocks before it, in order. Nothing is published to global
// memory and nobody polls: the "every block learns every earlier total" of a reduce-then-scan,
// in one launch.
//
// The kernel, top to bottom (cluster_scan_kernel):
//   0. the block's mbarrier expects one arrival per earlier block (rank r: r arrivals); every
//      thread arrives on the cluster barrier, so that no block is written to before its mbarrier
//      is initialised (the wait comes after the load has been issued);
//   1. load the tile into registers and scan each warp's run;
//   2. wait on the cluster barrier;
//   3. combine the warp totals: the tile total is known;
//   4. warp 0 sends it to every later block (lane j to block rank + 1 + j): a store into slot
//      `rank` of that block's shared array, then an arrive on that block's mbarrier, release at
//      cluster scope. It then waits (acquire, cluster scope) until its own mbarrier has counted
//      `rank` arrivals and reduces slots 0 .. rank - 1 in order: the carry-in;
//   5. a barrier hands the carry-in to the block; arrive on the cluster barrier (the block's
//      sends are done); put the carry-in and the warps before in front; store; wait on the
//      cluster barrier, then exit.
//
// Memory model: a sender's store of its total is ordered before its release arrive; the
// receiver's acquire wait completes only after every expected arrive, so each slot it then reads
// holds its sender's total (PTX memory model, release/acquire at cluster scope). The slots are
// reduced in rank order, the earliest on the left: correct for non-commutative operators.
// Lifetime: a block's shared memory must outlive every access to it from other blocks. Those are
// the earlier blocks' stores and arrives into it, and it waits for all of them before it reads
// its slots, so by the memory model none is pending when it exits; but the CUDA programming
// guide asks for a cluster barrier before exit in a kernel that uses distributed shared memory,
// and compute-sanitizer's racecheck reports the remote stores as hazards ("a block that might
// have already exited") without one. Hence step 5's barrier.
// Forward progress: nothing is assumed beyond what CUDA guarantees: a cluster's blocks are
// co-scheduled (all resident at once), so every block a block waits for is running.
//
// Work: O(N) plus blocks^2 / 2 remote stores (at most 120); depth: O(log tile) + one remote
// store and arrive. Barriers: 2 per block and 2 cluster barriers. Launches: 1. Global traffic:
// 2 accesses per element, nothing else: the bound is memcpy, and at these sizes the launch.
//
// What it measured (H100 and H200; bench/NOTES.md, "Small N: one cluster", has the figures):
// faster than CUB, but slower than single_pass_scan_tuned's look-back at every N it takes. The
// cluster launch and the exit barrier each cost a fraction of a microsecond, and 16 blocks are
// too few SMs to stream 2^16 elements at full speed. Without the exit barrier it ties the
// look-back or beats it slightly: the SM-to-SM hand-off is not what limits it.
//
// Constraints: N <= 16 x 4096 = 2^16 (a larger N is refused, exit 3); every type, operator and
// mode (no descriptor packs the values); sm_90. Tile = 256 threads x 16 items (4096): of the
// shapes measured, the fastest at 2^16 and close to the fastest below (the same section).
// Pieces: zoo::RegisterTile, zoo::launch_as_one_cluster.
//
// In the charts: at 2^10..2^16 only, beside single_pass_scan_tuned.
//
// Run: make bin/single_pass_scan_cluster && ./bin/single_pass_scan_cluster 2^16
#include <cooperative_groups.h>
#include <cuda/ptx>

#include <scan_zoo/detail/register_tile.cuh>
#include "../harness/harness.cuh"
#include "cluster_launch.cuh"

namespace {

using Tile = zoo::RegisterTile<256, 16>;
constexpr std::int64_t kMaxItems = zoo::kMaxClusterBlocks * Tile::kTileItems;

template <class T, class Op>
__global__ void __launch_bounds__(Tile::kThreads) cluster_scan_kernel(const T* in, T* out, std::int64_t n,
                                                                      bool exclusive) {
  namespace ptx = cuda::ptx;
  const Op op;
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const unsigned rank = cluster.block_rank();  // == blockIdx.x: the grid is one cluster
  const unsigned blocks = cluster.num_blocks();
  __shared__ std::uint64_t totals_arrived;              // mbarrier: one arrival per earlier block
  __shared__ T earlier_totals[zoo::kMaxClusterBlocks];  // slot r: block r's tile total
  __shared__ T shared_carry;

  // 0. Ready to receive before anyone may send.
  if (threadIdx.x == 0 && rank > 0) {
    ptx::mbarrier_init(&totals_arrived, rank);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  ptx::barrier_cluster_arrive(ptx::sem_relaxed);

  // 1-3. Load and scan the tile (the loads are in flight while the cluster barrier completes).
  const std::int64_t begin = std::int64_t(rank) * Tile::kTileItems;
  const int valid = zoo::tile_extent(begin, n, Tile::kTileItems);
  T items[Tile::kItems];
  Tile::load(in + begin, valid, items, Op::template identity<T>());
  const T warp_total = Tile::scan_warp<T, Op>(items, exclusive);
  ptx::barrier_cluster_wait();
  const Tile::BlockTotals<T> totals = Tile::combine_warps<T, Op>(warp_total);

  // 4. Send the total to every later block; receive every earlier block's.
  if (zoo::warp_id() == 0) {
    for (unsigned later = rank + 1 + zoo::lane_id(); later < blocks; later += zoo::kWarpSize) {
      *cluster.map_shared_rank(&earlier_totals[rank], later) = totals.tile;
      ptx::mbarrier_arrive(ptx::sem_release, ptx::scope_cluster, ptx::space_cluster,
                           cluster.map_shared_rank(&totals_arrived, later));
    }
    T carry = Op::template identity<T>();
    if (rank > 0) {
      while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &totals_arrived, 0u)) {
      }
      for (unsigned r = 0; r < rank; ++r) carry = op(carry, earlier_totals[r]);
    }
    if (zoo::lane_id() == 0) shared_carry = carry;
  }

  // 5. Everything before this thread's items in front of them, and out; stay until every block
  // is done with this block's shared memory.
  __syncthreads();
  ptx::barrier_cluster_arrive(ptx::sem_release);
  Tile::prepend<T, Op>(items, op(shared_carry, totals.before_warp));
  Tile::store(out + begin, valid, items);
  ptx::barrier_cluster_wait();
}

struct ClusterScan : zoo::VariantDefaults {
  static constexpr bool kHandsOverAcrossTiles = true;
  static constexpr std::int64_t kTileItems = Tile::kTileItems;
  using Types = zoo::AllTypes;  // the totals travel as whole T through shared memory

  static const char* unsupported_size(std::int64_t n) {
    return n <= kMaxItems ? nullptr : "one cluster holds at most 16 tiles of 4096 elements (N <= 2^16)";
  }

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, zoo::ScanKind kind, zoo::Workspace, cudaStream_t stream) {
    if (n == 0) return;  // nothing to scan, and a grid of zero blocks is a launch error
    const auto blocks = static_cast<unsigned>(zoo::ceil_div<std::int64_t>(n, Tile::kTileItems));
    ZOO_CUDA(zoo::launch_as_one_cluster(cluster_scan_kernel<T, Op>, blocks, Tile::kThreads, stream, in, out, n,
                                        kind == zoo::ScanKind::Exclusive));
  }
};

}  // namespace

ZOO_MAIN(ClusterScan)
