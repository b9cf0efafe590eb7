// segmented_scan -- a scan that restarts at every segment start, in one pass: the decoupled
// look-back scan over (head flag, value) pairs.
//
// Idea: Schwartz (1980) and Blelloch (1990, "Prefix sums and their applications") turn a
// segmented scan into a plain scan under a lifted operator, (f1, v1) + (f2, v2) =
// (f1 | f2, f2 ? v2 : v1 + v2), which is associative, so every scan algorithm works unchanged
// (src/applications/segmented.cuh). Here it is the single-pass decoupled look-back (Merrill & Garland
// 2016) of single_pass_scan_tuned: each thread reduces its 16 pairs serially, the block scans the
// per-thread pairs with warp shuffles, and warp 0 looks back over the tile descriptors for the
// carry-in. The descriptors hold only the 32-bit value: a tile that contains a segment start is
// "closed" (its total does not depend on anything before it) and publishes INCLUSIVE at once,
// so a look-back walk always ends at the nearest tile with a start in it. Segments are given as
// 8-bit labels (a segment starts where the label changes), the same bytes CUB's scan-by-key
// reads as keys: the head flag of element i is labels[i] != labels[i - 1].
//
// Work: O(N); depth: O(log tile) + the look-back. Launches: 1 (epoch-tagged descriptors, as in
// the tuned scan: no reset before the scan). Global traffic: 2 accesses per element for the
// values plus 1 byte of label (9 bytes per int32 element): its bound is a memcpy of 2.25x the
// value bytes. GB/s counts values in, labels in and values out.
//
// Forward progress: tile = blockIdx.x, so it relies on in-order block dispatch, like the tuned
// scan and CUB (scan_zoo/detail/tuned_kernel.cuh).
//
// Constraints: 32-bit values (the packed descriptor): int32, float32; sum, max, min; inclusive
// and exclusive (exclusive: the identity at every segment start, like CUB's ExclusiveScanByKey
// with the identity as initial value). Tile = 256 threads x 16 items. Input generated: values in
// [-8, 8], segment lengths geometric with mean --segment-length (default 1024).
//
// In the charts (bench/<gpu>/applications.png): against cub_segmented_scan (CUB's scan-by-key, two
// launches, a tile state of (key, value) pairs): faster at every size of the H100 sweep, one
// launch instead of two at small N, near memcpy's bandwidth for its 9 bytes per element at large
// N (the figures: bench/NOTES.md, "The applications"). Compare with single_pass_scan_tuned: the labels add 25% to an int32 scan's bytes.
//
// Run: make bin/segmented_scan && ./bin/segmented_scan 2^28 --segment-length 1000
#include <scan_zoo/detail/grid/lookback.cuh>
#include "../blocks/block_scan.cuh"
#include "../blocks/tile_io.cuh"
#include "../harness/harness.cuh"
#include "../grid/run_epochs.cuh"
#include "applications.cuh"
#include "segmented.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kItems = 16;  // = one 16-byte vector of labels per thread
constexpr std::int64_t kTile = kThreads * kItems;

template <class T>
using Values = zoo::BlockedTile<T, kThreads, kItems>;
template <class T>
using State = zoo::PackedTileState64<T>;
template <class T>
using Lookback = zoo::WarpLookback<State<T>, zoo::LookbackBackoff>;
using BlockScan = zoo::WarpBlockScan<kThreads, zoo::ShuffleWarpScan>;

// Bit k set: element first + k starts a segment (its label differs from the one before it;
// element 0 always starts one). `count` of the thread's kItems elements exist.
__device__ std::uint32_t segment_heads(const std::uint8_t* labels, std::int64_t first, int count) {
  static_assert(kItems == sizeof(uint4), "one vector of labels per thread");
  std::uint8_t mine[kItems];
  if (count == kItems && reinterpret_cast<std::uintptr_t>(labels + first) % sizeof(uint4) == 0) {
    const uint4 chunk = *reinterpret_cast<const uint4*>(labels + first);
    memcpy(mine, &chunk, sizeof chunk);
  } else {
#pragma unroll
    for (int k = 0; k < kItems; ++k) mine[k] = k < count ? labels[first + k] : 0;
  }
  std::uint32_t heads = 0;
  if (count > 0 && (first == 0 || labels[first - 1] != mine[0])) heads = 1;
#pragma unroll
  for (int k = 1; k < kItems; ++k)
    if (k < count && mine[k] != mine[k - 1]) heads |= 1u << k;
  return heads;
}

template <class T, class Op>
__global__ void __launch_bounds__(kThreads)
    segmented_scan_kernel(const T* values, const std::uint8_t* labels, T* out, std::int64_t n, bool exclusive,
                          State<T> state, std::uint32_t tiles) {
  using Pair = zoo::Flagged<T>;
  using Lifted = zoo::Segmented<Op>;
  const Op op;
  const T identity = Op::template identity<T>();
  const std::uint32_t tile = blockIdx.x;
  if (tile == zoo::g_silent_tile) return;  // test-only (--inject-hang): never publishes
  const std::int64_t begin = std::int64_t(tile) * kTile;
  const int valid = zoo::tile_extent(begin, n, kTile);

  T items[kItems];
  Values<T>::load(values + begin, valid, items, identity);
  const int first = static_cast<int>(threadIdx.x) * kItems;
  const std::uint32_t heads = segment_heads(labels, begin + first, max(0, min(kItems, valid - first)));

  // The thread's pair: "a segment starts in my items", and the reduction since the last start.
  Pair mine = Lifted::template identity<Pair>();
#pragma unroll
  for (int k = 0; k < kItems; ++k) mine = Lifted{}(mine, Pair{items[k], (heads >> k) & 1u});
  Pair tile_total;
  const Pair before_me = BlockScan::exclusive<Pair, Lifted>(mine, tile_total);
  const T carry = tiles == 1 ? identity
                             : Lookback<T>{state, tile}.template get<T, Op>(tile_total.value, tile_total.head != 0);

  T running = before_me.head ? before_me.value : op(carry, before_me.value);
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const bool head = (heads >> k) & 1u;
    const T x = items[k];
    if (exclusive) {
      items[k] = head ? identity : running;
      running = op(items[k], x);
    } else {
      running = head ? x : op(running, x);
      items[k] = running;
    }
  }
  Values<T>::store(out + begin, valid, items);
}

struct SegmentedScan : zoo::VariantDefaults {
  template <class T, class Op>
  using Problem = zoo::SegmentedScanProblem<T, Op>;
  static constexpr std::int64_t kTileItems = kTile;
  static constexpr bool kHasSilentTile = true;
  static constexpr bool kHandsOverAcrossTiles = true;

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return zoo::EpochTileState<State<T>>::workspace_bytes(zoo::ceil_div(n, kTile));
  }

  template <class T, class Op>
  static void run(const T* values, const std::uint8_t* labels, T* out, std::int64_t n, zoo::ScanKind kind,
                  zoo::Workspace workspace, cudaStream_t stream) {
    const std::int64_t tiles = zoo::ceil_div(n, kTile);
    const State<T> state = zoo::descriptors_for_next_run<State<T>>(workspace, tiles, stream);
    segmented_scan_kernel<T, Op><<<static_cast<unsigned>(tiles), kThreads, 0, stream>>>(
        values, labels, out, n, kind == zoo::ScanKind::Exclusive, state, static_cast<std::uint32_t>(tiles));
    ZOO_CHECK_LAUNCH();
  }
};

}  // namespace

ZOO_MAIN(SegmentedScan)
