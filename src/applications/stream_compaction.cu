// stream_compaction -- keep the elements x > 0, in order, in one pass: flags, a decoupled
// look-back scan of the per-tile counts, and the scatter, fused in one kernel.
//
// Idea: compaction is the textbook use of an exclusive scan (Blelloch 1990; Billeter, Olsson &
// Assarsson 2009, "Efficient stream compaction on wide SIMD many-core architectures"): element i,
// if kept, goes to position (number of kept elements before i). Done in three kernels (flags,
// scan, scatter) it reads the input twice and writes and reads the flags. Fused, each block
// loads its tile once, counts its kept elements (a bit mask per thread, popc), scans the
// per-thread counts in the block, gets the number kept by all earlier tiles from the decoupled
// look-back (Merrill & Garland 2016) over tile counts, and writes its kept elements. The kept
// elements are first packed in shared memory, so the global writes are one contiguous run per
// tile (coalesced) instead of scattered single elements. The last tile writes the total count.
//
// Work: O(N); depth: O(log tile) + the look-back. Launches: 1 (epoch-tagged descriptors, the
// tuned scan's technique). Global traffic: 1 read per element + 1 write per kept element: with
// half the elements kept, 1.5 accesses per element; GB/s counts (N + kept) x sizeof(T).
//
// Forward progress: tile = blockIdx.x, so it relies on in-order block dispatch, like the tuned
// scan and CUB (scan_zoo/detail/tuned_kernel.cuh).
//
// Constraints: int32 and float32; any N: counts are 32-bit in the packed descriptor below
// N = 2^32, 64-bit in a two-field descriptor (acquire/release) above. --op sum --inclusive only
// (the rows are labelled "select x>0"). Tile = 256 threads x 16 items.
//
// In the charts (bench/<gpu>/applications.png): against cub_select (cub::DeviceSelect::If, also a
// single-pass look-back, two launches): faster at every size of the H100 sweep, one launch
// fewer at small N (the figures: bench/NOTES.md, "The applications").
//
// Run: make bin/stream_compaction && ./bin/stream_compaction 2^28
#include <scan_zoo/detail/grid/lookback.cuh>
#include <type_traits>

#include "../blocks/block_scan.cuh"
#include "../blocks/tile_io.cuh"
#include "../harness/harness.cuh"
#include "../grid/run_epochs.cuh"
#include "applications.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kItems = 16;
constexpr std::int64_t kTile = kThreads * kItems;

template <class T>
using Values = zoo::BlockedTile<T, kThreads, kItems>;
// The tile counts: 32-bit (packed with the status in one word) while every prefix fits.
template <class Count>
using State = std::conditional_t<sizeof(Count) == 4, zoo::PackedTileState64<Count>, zoo::TwoFieldTileState<Count>>;
using BlockScan = zoo::WarpBlockScan<kThreads, zoo::ShuffleWarpScan>;

template <class T, class Count>
__global__ void __launch_bounds__(kThreads)
    compaction_kernel(const T* in, T* out, std::int64_t* count, std::int64_t n, State<Count> state,
                      std::uint32_t tiles) {
  const zoo::KeepPositive keep;
  const std::uint32_t tile = blockIdx.x;
  if (tile == zoo::g_silent_tile) return;  // test-only (--inject-hang): never publishes
  const std::int64_t begin = std::int64_t(tile) * kTile;
  const int valid = zoo::tile_extent(begin, n, kTile);

  T items[kItems];
  Values<T>::load(in + begin, valid, items, T(0));  // the padding (0) is not kept
  std::uint32_t kept = 0;
#pragma unroll
  for (int k = 0; k < kItems; ++k) kept |= std::uint32_t(keep(items[k])) << k;

  Count tile_kept;
  const Count before_me = BlockScan::exclusive<Count, zoo::Sum>(Count(__popc(kept)), tile_kept);
  const Count before_tile =
      tiles == 1 ? Count(0) : zoo::WarpLookback<State<Count>>{state, tile}.template get<Count, zoo::Sum>(tile_kept);

  // Pack the kept elements in shared memory (the load's staging buffer, free again), then write
  // them out as one run: consecutive threads, consecutive addresses.
  T* packed = Values<T>::stage();
  int slot = static_cast<int>(before_me);
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    if (kept >> k & 1u) packed[slot++] = items[k];
  __syncthreads();
  T* run = out + before_tile;
  for (int i = threadIdx.x; i < static_cast<int>(tile_kept); i += kThreads) run[i] = packed[i];
  if (tile == tiles - 1 && threadIdx.x == 0) *count = static_cast<std::int64_t>(before_tile + tile_kept);
}

struct StreamCompaction : zoo::VariantDefaults {
  template <class T, class Op>
  using Problem = zoo::CompactionProblem<T, Op>;
  static constexpr std::int64_t kTileItems = kTile;
  static constexpr bool kHasSilentTile = true;
  static constexpr bool kHandsOverAcrossTiles = true;

  static bool wide_counts(std::int64_t n) { return n > std::int64_t(UINT32_MAX); }

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    const std::int64_t tiles = zoo::ceil_div(n, kTile);
    return wide_counts(n) ? zoo::EpochTileState<State<unsigned long long>>::workspace_bytes(tiles)
                          : zoo::EpochTileState<State<std::uint32_t>>::workspace_bytes(tiles);
  }

  template <class T, class Count>
  static void launch(const T* in, T* out, std::int64_t* count, std::int64_t n, zoo::Workspace workspace,
                     cudaStream_t stream) {
    const std::int64_t tiles = zoo::ceil_div(n, kTile);
    const State<Count> state = zoo::descriptors_for_next_run<State<Count>>(workspace, tiles, stream);
    compaction_kernel<T, Count><<<static_cast<unsigned>(tiles), kThreads, 0, stream>>>(
        in, out, count, n, state, static_cast<std::uint32_t>(tiles));
    ZOO_CHECK_LAUNCH();
  }

  template <class T>
  static void run(const T* in, T* out, std::int64_t* count, std::int64_t n, zoo::Workspace workspace,
                  cudaStream_t stream) {
    if (wide_counts(n)) launch<T, unsigned long long>(in, out, count, n, workspace, stream);
    else launch<T, std::uint32_t>(in, out, count, n, workspace, stream);
  }
};

}  // namespace

ZOO_MAIN(StreamCompaction)
