// reduce_then_scan -- three passes instead of four: reduce every tile, scan the tile totals,
// then scan every tile again starting from its carry-in.
//
// Idea (Merrill & Grimshaw, "Parallel scan for stream architectures", 2009; the structure of
// CUB's and Thrust's multi-pass scans before decoupled look-back): scan-then-add writes a
// tile-local scan and then reads and writes every element again to add the carries. Reduce-then-
// scan first only reads each tile to get its total (1 access per element), scans the short
// array of totals (exclusive: tile b's carry is everything before it), and then scans each tile
// once, for real, seeding it with its carry (2 accesses per element). The data is read twice and
// written once: 3 accesses per element instead of 4.
//
// Cost per 4096-element tile (256 threads x 16): reduce pass 4096 combines + a block scan of the
// thread totals; scan pass 2 x 4096 serial combines + 2 x 5 shuffle steps; 6 barriers per pass
// (2 block scan + 4 transpose). Launches: 1 when N fits one tile; 5 at N = 2^28 (reduce, the
// totals' own hierarchy of 3 launches over 2^16 totals, the seeded scan).
// Global traffic: 3 accesses per element: at best 67% of memcpy bandwidth (the reduce pass only
// reads, which the H100 does a little faster than it copies).
//
// Constraints: any N, every type/operator/mode. Tile = 16 x 256 items.
// Pieces: zoo::CoarsenedTile (its Scan steps with the carry-in between them, and reduce_tile),
// zoo::Hierarchy for the totals (scanned exclusive, in place).
//
// In the charts: above every scan-then-add variant at large N (3 passes, not 4), below the
// single-pass scans (2); at small N its three kernels cost about what the hierarchy's do.
//
// Run: make bin/reduce_then_scan && ./bin/reduce_then_scan 2^28
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "hierarchy.cuh"

using ReduceScanTile = zoo::CoarsenedTile<256, 16, zoo::WarpBlockScan<256, zoo::ShuffleWarpScan>>;

template <class T, class Op>
__global__ void __launch_bounds__(ReduceScanTile::kThreads)
    reduce_tiles(const T* __restrict__ in, T* __restrict__ tile_totals, std::int64_t n) {
  const std::int64_t tile_begin = std::int64_t(blockIdx.x) * ReduceScanTile::kTileItems;
  const int valid = zoo::tile_extent(tile_begin, n, ReduceScanTile::kTileItems);
  const T total = ReduceScanTile::reduce_tile<T, Op>(in + tile_begin, valid);
  if (threadIdx.x == 0) tile_totals[blockIdx.x] = total;
}

// The second pass: load and scan the tile, then put its carry-in, carries[b] (everything before
// tile b; nullptr: a single tile), in front of it.
template <class T, class Op>
__global__ void __launch_bounds__(ReduceScanTile::kThreads)
    scan_tiles_from_carries(const T* __restrict__ in, T* __restrict__ out, const T* __restrict__ carries,
                            std::int64_t n, bool exclusive) {
  const std::int64_t tile_begin = std::int64_t(blockIdx.x) * ReduceScanTile::kTileItems;
  const int valid = zoo::tile_extent(tile_begin, n, ReduceScanTile::kTileItems);
  const T* tile_in = in + tile_begin;
  T* tile_out = out + tile_begin;
  ReduceScanTile::Scan<T, Op> block;
  block.load(tile_in, valid);
  block.scan(exclusive);
  const T carry = carries ? carries[blockIdx.x] : Op::template identity<T>();
  block.prepend_and_store(carry, exclusive, tile_out, valid);
}

struct ReduceThenScan : zoo::VariantDefaults {
  static constexpr std::int64_t kTileItems = ReduceScanTile::kTileItems;
  using Types = zoo::AllTypes;
  using TotalsScan = zoo::Hierarchy<ReduceScanTile>;

  // One layout for sizing and running: the tile totals (scanned in place into carries), then
  // the scratch of their own scan.
  template <class T, class Op>
  static T* layout(zoo::WorkspaceCarver& carver, std::int64_t tiles, zoo::Workspace& totals_workspace) {
    T* carries = carver.take<T>(static_cast<std::size_t>(tiles));
    totals_workspace.bytes = TotalsScan::workspace_bytes<T, Op>(tiles);
    totals_workspace.data = carver.take<char>(totals_workspace.bytes);
    return carries;
  }

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return zoo::bytes_of_layout([&](zoo::WorkspaceCarver& counter) {
      zoo::Workspace totals_workspace;
      layout<T, Op>(counter, zoo::ceil_div<std::int64_t>(n, kTileItems), totals_workspace);
    });
  }

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, zoo::ScanKind kind, zoo::Workspace workspace,
                  cudaStream_t stream) {
    const std::int64_t tiles = zoo::ceil_div<std::int64_t>(n, kTileItems);
    const bool exclusive = kind == zoo::ScanKind::Exclusive;
    if (tiles == 1) {
      scan_tiles_from_carries<T, Op><<<1, ReduceScanTile::kThreads, 0, stream>>>(in, out, nullptr, n, exclusive);
      ZOO_CHECK_LAUNCH();
      return;
    }
    zoo::WorkspaceCarver carver(workspace.data);
    zoo::Workspace totals_workspace;
    T* carries = layout<T, Op>(carver, tiles, totals_workspace);
    const unsigned grid = static_cast<unsigned>(tiles);
    reduce_tiles<T, Op><<<grid, ReduceScanTile::kThreads, 0, stream>>>(in, carries, n);
    ZOO_CHECK_LAUNCH();
    TotalsScan::run<T, Op>(carries, carries, tiles, zoo::ScanKind::Exclusive, totals_workspace, stream);
    scan_tiles_from_carries<T, Op><<<grid, ReduceScanTile::kThreads, 0, stream>>>(in, out, carries, n, exclusive);
    ZOO_CHECK_LAUNCH();
  }
};

ZOO_MAIN(ReduceThenScan)
