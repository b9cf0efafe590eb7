// radix_sort_three_kernels -- an LSD radix sort of 32- and 64-bit keys in three kernels per digit
// (histogram, scan, scatter), whose digit offsets come from the zoo's fastest scan
// (single_pass_scan_tuned). Its successor, radix_sort_onesweep, reads the keys once per digit.
//
// Idea: least-significant-digit radix sort (Hollerith's card sorters; on GPUs Satish, Harris &
// Garland 2009, Merrill & Grimshaw 2011). Four passes (eight for 64-bit keys), one per 8-bit
// digit, each a stable counting sort of the keys by that digit, so after the last pass the keys
// are in order (radix_keys.cuh maps each key type to unsigned words of the same order). A pass:
//   1. histogram: each block counts the 256 digit values of its span of tiles (4096 keys each;
//      shared-memory atomics) and writes them digit-major: counts[digit * blocks + block].
//   2. scan: an exclusive sum over those 256 x blocks counts, by single_pass_scan_tuned's kernel
//      (tuned_dispatch.cuh): offsets[digit * blocks + block] is where this block's keys with
//      this digit go, after every key with a smaller digit and after this digit's keys in
//      earlier blocks. That order is what makes each pass stable, and the scan is the whole point.
//   3. scatter: each block walks its tiles in order. A tile ranks its keys stably within their
//      digit: each warp takes its 512 keys 32 at a time in input order, the lanes with equal
//      digits find each other with __match_any_sync, and the lowest of them bumps the warp's own
//      counter of that digit (no barrier inside the loop); then one block scan over the digits
//      turns the per-warp counts into where each warp's keys of each digit start. The tile is
//      packed sorted by digit in shared memory and written out: the keys of one digit go to
//      consecutive addresses. Each digit's offset then moves on by the tile's count.
// At most 2048 blocks: a block sorts a span of consecutive tiles, so that the count table stays
// small (a column per tile would cost a scattered write per digit per 4096 keys).
// The passes ping-pong between the output and a workspace copy: in -> tmp -> out -> tmp -> out.
//
// Work: O(N) per pass, 4 passes (8 for 64-bit keys); depth: O(log tile) + the scan's, per pass.
// Launches: 12 (3 per pass; 24 for 64-bit keys). Global traffic: per pass the keys are read
// twice (histogram, scatter) and written once, plus the counts (negligible: 256 per block):
// 3 accesses per element per pass, 12 in all (24 for 64-bit keys), against about 9 for CUB's
// onesweep (one histogram pass over all digits, then one read and one write per digit). The
// GB/s column counts 2 x the key's bytes (a copy's bytes), so a sort shows as a fraction of
// memcpy.
//
// Constraints: 32- and 64-bit keys, signed, unsigned and floating-point (floats: -0.0 and +0.0
// are equal keys, kept in input order, as in CUB; the inputs have no NaN); N < 2^32 (32-bit
// offsets, scanned as int32: the sums wrap exactly like uint32); --op sum --inclusive only (the
// rows are labelled "sort ascending").
//
// In the charts (bench/<gpu>/applications.png): against cub_radix_sort (cub::DeviceRadixSort::SortKeys,
// onesweep): slower, more so at large N (the figures: bench/NOTES.md, "The applications").
// Nsight Compute says why: the scatter is bound by the shared-memory/warp-op pipe (ranking
// with __match_any_sync, the shared-memory scatter), not by DRAM, and each pass reads the
// keys twice; the 12 launches put a floor under small N (bench/NOTES.md, "The applications"),
// where CUB sorts up to 2^12 keys in one block. Its rows in the tables measured before radix_sort_onesweep existed are
// named radix_sort, the name it had then.
//
// Run: make bin/radix_sort_three_kernels && ./bin/radix_sort_three_kernels 2^28
#include "../blocks/block_scan.cuh"
#include "../blocks/warp_scan.cuh"
#include "../harness/harness.cuh"
#include "../single_pass/tuned_scan.cuh"
#include "applications.cuh"
#include "radix_keys.cuh"

namespace {

using zoo::kRadixBuckets;
using zoo::radix_digit_of;

constexpr int kThreads = 256;  // = kRadixBuckets: thread d owns digit d in the shared tables
constexpr int kItems = 16;
constexpr int kWarps = kThreads / zoo::kWarpSize;
constexpr std::int64_t kTile = kThreads * kItems;
static_assert(kThreads == kRadixBuckets, "one thread per digit value");

// A block sorts a span of consecutive tiles, one after the other, so that the count table has one
// column per block (a few thousand) rather than one per tile: the histogram's writes of a column
// are strided, and a column per tile would cost a scattered 32-byte write per digit per 4096 keys.
constexpr std::int64_t kMaxBlocks = 2048;

struct Spans {
  std::int64_t tiles, tiles_per_block, blocks;
  explicit Spans(std::int64_t n)
      : tiles(zoo::ceil_div(n, kTile)),
        tiles_per_block(zoo::ceil_div(tiles, kMaxBlocks)),
        blocks(zoo::ceil_div(tiles, tiles_per_block)) {}
  __device__ std::int64_t first_tile() const { return blockIdx.x * tiles_per_block; }
  __device__ std::int64_t end_tile() const { return min(tiles, first_tile() + tiles_per_block); }
};

template <class T>
__global__ void __launch_bounds__(kThreads)
    radix_histogram_kernel(const T* keys, std::int64_t n, int pass, std::uint32_t* counts, Spans spans) {
  __shared__ std::uint32_t histogram[kRadixBuckets];
  histogram[threadIdx.x] = 0;
  __syncthreads();
  for (std::int64_t tile = spans.first_tile(); tile < spans.end_tile(); ++tile) {
    const T* tile_keys = keys + tile * kTile;
    const int valid = zoo::tile_extent(tile * kTile, n, kTile);
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int i = k * kThreads + threadIdx.x;
      if (i < valid) atomicAdd(&histogram[radix_digit_of(tile_keys[i], pass)], 1u);
    }
  }
  __syncthreads();
  counts[threadIdx.x * spans.blocks + blockIdx.x] = histogram[threadIdx.x];
}

// In the scatter, warp w owns the tile's keys w * kWarpKeys .. (w + 1) * kWarpKeys - 1, and takes
// them 32 at a time (round k: lane l holds key w * kWarpKeys + 32 k + l, a coalesced load): so
// (warp, round, lane) is the keys' input order, which the ranking keeps.
constexpr int kWarpKeys = kItems * zoo::kWarpSize;
// Four blocks per SM (64 registers per thread): with the compiler's choice (80-102 registers)
// only two fit, and the scatter, which waits on its loads, ran far below DRAM bandwidth
// (bench/NOTES.md, "The applications"). 64-bit keys take twice the registers and spill in 64:
// three blocks (85 registers).
template <class T>
constexpr int kScatterBlocksPerSM = sizeof(T) == 4 ? 4 : 3;

template <class T>
__global__ void __launch_bounds__(kThreads, kScatterBlocksPerSM<T>)
    radix_scatter_kernel(const T* in, T* out, std::int64_t n, int pass, const std::uint32_t* offsets, Spans spans) {
  constexpr std::uint32_t kNone = kRadixBuckets;  // the digit of a slot past the end of the input
  // Per warp and digit: the warp's count of the digit so far, then where its keys of that digit
  // start in the tile sorted by digit.
  __shared__ std::uint32_t warp_digits[kWarps][kRadixBuckets];
  __shared__ std::uint32_t destination[kRadixBuckets];  // output index minus sorted tile index
  __shared__ T sorted[kTile];
  const int lane = zoo::lane_id(), warp = zoo::warp_id();
  const unsigned lanes_before = (1u << lane) - 1u;
  // Thread d: where the block's next key with digit d goes (the scan's offset for this column).
  std::uint32_t next_out = offsets[threadIdx.x * spans.blocks + blockIdx.x];

  for (std::int64_t tile = spans.first_tile(); tile < spans.end_tile(); ++tile) {
    const int warp_begin = warp * kWarpKeys;
    const T* warp_in = in + tile * kTile + warp_begin;
    const int valid = zoo::tile_extent(tile * kTile, n, kTile) - warp_begin;  // of this warp's keys
    T keys[kItems] = {};
    // Rank k among this warp's keys with the same digit (< 512): two 16-bit ranks per register.
    std::uint32_t ranks[kItems / 2] = {};
#pragma unroll
    for (int k = 0; k < kItems; ++k)
      if (k * zoo::kWarpSize + lane < valid) keys[k] = warp_in[k * zoo::kWarpSize + lane];
#pragma unroll
    for (int w = 0; w < kWarps; ++w) warp_digits[w][threadIdx.x] = 0;
    __syncthreads();

    // Rank within the warp: the lanes with the same digit find each other (__match_any_sync); the
    // lowest of them reads the warp's count of that digit and adds their number. No barrier:
    // each warp owns its row of counters.
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const std::uint32_t digit = k * zoo::kWarpSize + lane < valid ? radix_digit_of(keys[k], pass) : kNone;
      const unsigned peers = __match_any_sync(zoo::kFullMask, digit);
      const int leader = __ffs(peers) - 1;
      std::uint32_t before = 0;
      if (lane == leader && digit != kNone) {
        before = warp_digits[warp][digit];
        warp_digits[warp][digit] = before + __popc(peers);
      }
      const std::uint32_t rank = __shfl_sync(zoo::kFullMask, before, leader) + __popc(peers & lanes_before);
      ranks[k / 2] |= rank << (k % 2 * 16);
      __syncwarp();  // the next round's leader of a digit may be another lane
    }
    __syncthreads();

    // Thread d: the tile's count of digit d, where digit d starts in the sorted tile (a block
    // scan over the digits), and where each warp's keys of digit d start.
    std::uint32_t count = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) count += warp_digits[w][threadIdx.x];
    std::uint32_t tile_keys;
    std::uint32_t start =
        zoo::WarpBlockScan<kThreads, zoo::ShuffleWarpScan>::exclusive<std::uint32_t, zoo::Sum>(count, tile_keys);
    destination[threadIdx.x] = next_out - start;
    next_out += count;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const std::uint32_t warp_count = warp_digits[w][threadIdx.x];
      warp_digits[w][threadIdx.x] = start;
      start += warp_count;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kItems; ++k)
      if (k * zoo::kWarpSize + lane < valid)
        sorted[warp_digits[warp][radix_digit_of(keys[k], pass)] + (ranks[k / 2] >> (k % 2 * 16) & 0xFFFFu)] = keys[k];
    __syncthreads();
    // The keys of one digit leave as one run of consecutive addresses.
    for (int i = threadIdx.x; i < zoo::tile_extent(tile * kTile, n, kTile); i += kThreads) {
      const T key = sorted[i];
      out[destination[radix_digit_of(key, pass)] + i] = key;
    }
    __syncthreads();  // sorted, warp_digits and destination are free for the next tile
  }
}

struct RadixSort : zoo::VariantDefaults {
  template <class T, class Op>
  using Problem = zoo::SortProblem<T, Op>;
  using Types = zoo::AllTypes;  // any key radix_keys.cuh orders: 4 passes of 32-bit keys, 8 of 64-bit
  static constexpr std::int64_t kTileItems = kTile;

  static const char* unsupported_size(std::int64_t n) {
    return n >= (std::int64_t(1) << 32) ? "the digit offsets are 32-bit: N must be below 2^32" : nullptr;
  }

  // The workspace: the ping-pong copy of the keys, the digit counts (256 x blocks), their scan,
  // and the scan's own workspace.
  struct Layout {
    void* keys = nullptr;
    std::int32_t* counts = nullptr;
    std::int32_t* offsets = nullptr;
    zoo::Workspace scan;
  };
  template <class T>
  static Layout layout(zoo::WorkspaceCarver& carver, std::int64_t n) {
    const std::int64_t entries = kRadixBuckets * Spans(n).blocks;
    Layout layout;
    layout.keys = carver.take<T>(static_cast<std::size_t>(n));
    layout.counts = carver.take<std::int32_t>(static_cast<std::size_t>(entries));
    layout.offsets = carver.take<std::int32_t>(static_cast<std::size_t>(entries));
    layout.scan.bytes = zoo::TunedDispatch::workspace_bytes<std::int32_t, zoo::Sum>(entries);
    layout.scan.data = carver.take<char>(layout.scan.bytes);
    return layout;
  }

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return zoo::bytes_of_layout([&](zoo::WorkspaceCarver& counter) { layout<T>(counter, n); });
  }

  // Keys only (kSortsPairs: false, so the values are null): --values rows are WAIVED.
  template <class T>
  static void run(const T* in, T* out, const std::uint32_t*, std::uint32_t*, std::int64_t n, zoo::Workspace workspace,
                  cudaStream_t stream) {
    zoo::WorkspaceCarver carver(workspace.data);
    const Layout buffers = layout<T>(carver, n);
    const Spans spans(n);
    // The counts are scanned as int32: a sum of uint32 counts below 2^32 has the same bits.
    auto* counts = reinterpret_cast<std::uint32_t*>(buffers.counts);
    const auto* offsets = reinterpret_cast<const std::uint32_t*>(buffers.offsets);
    const T* from = in;
    static_assert(zoo::RadixKey<T>::kPasses % 2 == 0, "the passes ping-pong: an even number ends in the output");
    for (int pass = 0; pass < zoo::RadixKey<T>::kPasses; ++pass) {
      T* to = pass % 2 == 0 ? static_cast<T*>(buffers.keys) : out;
      radix_histogram_kernel<T><<<static_cast<unsigned>(spans.blocks), kThreads, 0, stream>>>(from, n, pass, counts,
                                                                                             spans);
      ZOO_CHECK_LAUNCH();
      zoo::TunedDispatch::run<std::int32_t, zoo::Sum>(buffers.counts, buffers.offsets, kRadixBuckets * spans.blocks,
                                                       zoo::ScanKind::Exclusive, buffers.scan, stream);
      radix_scatter_kernel<T><<<static_cast<unsigned>(spans.blocks), kThreads, 0, stream>>>(from, to, n, pass, offsets,
                                                                                          spans);
      ZOO_CHECK_LAUNCH();
      from = to;
    }
  }
};

}  // namespace

ZOO_MAIN(RadixSort)
