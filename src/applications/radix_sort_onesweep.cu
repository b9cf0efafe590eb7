// radix_sort_onesweep -- an LSD radix sort of 32- and 64-bit keys after Onesweep: one histogram
// pass for all digits (4 of 8 bits, 8 for 64-bit keys), then one kernel per digit that reads and
// writes each key once, its offsets from a decoupled look-back over per-tile, per-digit counts
// on the zoo's single-pass machinery.
//
// Idea: radix_sort_three_kernels reads the keys twice per digit (a histogram, then the scatter)
// and scans the counts in launches of their own. Onesweep (Adinets & Merrill 2022, "Onesweep: A
// Faster Least Significant Digit Radix Sort for GPUs") removes both. (a) A pass changes the order
// of the keys, not their digits, so the histograms of all the digits come from one read of the
// input up front: the global offset of digit d in pass p is the number of keys whose p-th digit
// is smaller, whatever their order. (b) What a tile still needs from the tiles before it, their
// number of keys of each digit, is a scan across tiles, 256 of them side by side, and a
// single-pass decoupled look-back (Merrill & Garland 2016; the grid layer, include/scan_zoo/detail/grid/) does it inside the
// scatter kernel. The kernels, in order:
//   0. histogram (1 launch, one block of 1024 threads per SM): each block counts every digit of
//      its tiles' keys in shared memory, one copy of the counters per lane (per two lanes for
//      64-bit keys) so that a warp's atomics spread over the banks, then adds its counts to a
//      global passes x 256 table with atomics.
//   One launch per digit pass p (tile = blockIdx.x, 256 threads x 16 keys below 2^21 keys, from
//   there x 48, or x 32 with pairs or 64-bit keys, x 24 for both; onesweep_pass_kernel):
//   1. load: the tile's keys into registers, warp by warp: warp w owns the tile's keys
//      32 I w .. 32 I (w + 1) - 1 (I keys a thread), and in round k lane l holds its key 32 k + l
//      (one 128-byte load a round), so that (warp, round, lane) is the input order; a last,
//      partial tile is padded with a key whose every digit is 255, which ranks into the tile's
//      last slots and is never written out, so that no step but the load and the scatter tests
//      bounds;
//   2. count and publish: each warp counts its keys' digits in its own row of shared counters;
//      thread d sums digit d's column and publishes the tile's count of digit d as AGGREGATE at
//      once, so that later tiles can look back past this one while it ranks. Tile 0 publishes
//      INCLUSIVE instead: its count plus the digit's global offset, which it takes from row p of
//      the histogram (an exclusive block scan): the global offsets are the inclusive prefix of a
//      virtual tile -1, and no launch of their own;
//   3. rank: a block scan of the digit counts says where each digit starts in the tile sorted by
//      digit, and each warp where its keys of each digit start; then each warp ranks its keys
//      round by round with a ballot multisplit (one vote per digit bit finds the lanes whose
//      digit equals mine; the highest of them moves the warp's counter of that digit on; no
//      __match_any_sync) and writes each key to its rank in shared memory: the tile, sorted by
//      digit, stably;
//   4. look back: thread d walks back over digit d's descriptors of the earlier tiles, three at
//      a time, adding AGGREGATE counts until an INCLUSIVE one (tile 0's at the latest) ends the
//      walk, and publishes its own INCLUSIVE value: where the next tile's keys of digit d go;
//   5. scatter: sorted key i leaves for (where this tile's keys of its digit go) + (i - where
//      its digit starts in the tile): consecutive threads write consecutive addresses along a
//      run of one digit.
// The passes ping-pong: in -> workspace -> out -> workspace -> out (and on, 8 passes of 64-bit keys).
// Small N, at most one tile (onesweep_one_block_kernel): one block runs steps 1-3 once a digit on
// the keys in registers and shared memory and writes them out once: 1 launch, no histogram, no
// descriptors. One tile (4096 keys) has no work across tiles at all, and one launch replaces
// five: on the H100 it beats CUB's one-block sort at 2^10 and 2^12, and five launches take more
// than twice as long at 2^13 (bench/NOTES.md, "Onesweep, the ranking rewritten"). Two tiles
// in one block would take about twice the one-tile time, as long as the five launches, so the
// path stops at one tile, which is also where the harness's --inject-hang expects the protocol
// across tiles (a size above kTileItems).
//
// Work: O(N) per pass; depth: O(log tile) + the look-back, per pass. Launches: 5 (1 histogram +
// 4 passes; 9 for 64-bit keys; 1 up to one tile) against radix_sort_three_kernels's 12 (24).
// Global traffic, counting the keys: the histogram reads each key once (4 bytes), each pass reads
// and writes it once (8 bytes): 36 bytes, 9 accesses per element, as CUB's onesweep, against 48
// bytes (12 accesses: two reads and a write per pass) for radix_sort_three_kernels. 64-bit keys:
// 17 accesses of 8 bytes, 136 bytes a key (a copy: 16). Besides the keys, each tile
// publishes its 256 descriptors twice and its look-back reads 256 or more: with 8-byte
// descriptors, at least 6 KB per tile, 1.5 bytes per key per pass with 4096-key tiles, 0.5 with
// 12288 (twice that from N = 2^32 on). Read back while L2 still holds them, but as N grows the
// region outgrows the L2 and its lines travel to DRAM and back: Nsight Compute counted more DRAM
// traffic in a pass than the keys' own at 2^28 (bench/NOTES.md, "Onesweep, the ranking
// rewritten", its last paragraph).
// The GB/s column counts 2 x the key's bytes per key (a copy's bytes).
//
// Tile state: one descriptor per (tile, digit), at tile x 256 + digit, so that a tile's 256 are
// contiguous and the 32 lanes of a warp publish or poll one 256-byte run. A count of digit d in a
// prefix of tiles can reach N: below N = 2^32 it is 32-bit and the descriptor is grid/descriptors.cuh's
// PackedTileState64 (status, epoch and count in one 64-bit word, dense); from 2^32 on it is
// 64-bit and the descriptor PackedTileStatePieces (the count's halves in two words, each
// with the whole tag; believed when the tags agree).
// Memory model (grid/protocol.cuh): every descriptor word is published by atomic exchange and polled
// with relaxed atomics: the count travels in the word of its flag, and a tile's output depends
// only on its input and the words it read. The histogram's counts and each pass's input keys come
// from earlier launches in the same stream: the kernel boundary orders them, no flag needed.
// No clearing: the passes share one region of descriptors, each pass with an epoch of its
// own (RunEpochs, src/grid/run_epochs.cuh), so that a word left by the previous pass or run reads as not
// yet published; and tile 0 of pass p, the only reader of row p of the histogram, sets it back to
// zero for the next run. The contract is the tuned scan's: the workspace must be zero when first
// allocated (the harness zeroes it once, outside timing), and every run leaves it ready for the
// next; after 2^30 epochs of a workspace (one a pass: 2^28 runs of 32-bit keys, 2^27 of 64-bit)
// RunEpochs zeroes the region once.
//
// Forward progress: tile = blockIdx.x, as in the tuned scan (scan_zoo/detail/tuned_kernel.cuh): a tile waits only on
// tiles with smaller indices, relying on the hardware dispatching blocks in blockIdx.x order
// (true of NVIDIA GPUs, relied on by CUB's scan; not a CUDA-language guarantee). CUB's onesweep
// takes an atomic ticket instead. Inside a block the 256 walks of step 4 diverge, and each lane
// spins on its own descriptor: independent thread scheduling (sm_70 on) lets the others go on.
//
// Constraints: keys of every zoo type, int32, uint32, float32, int64, uint64 and float64
// (radix_keys.cuh orders them; -0.0 and +0.0 are equal keys, kept in input order, as in CUB; the
// inputs have no NaN); any N: 32-bit counts below 2^32, 64-bit from there. --op sum --inclusive
// only (the rows are labelled "sort ascending"). Tile = 256 threads (thread d owns digit d in
// every per-digit step) x 16 to 48 keys (TileShape); shared memory per block of a pass: the
// sorted tile (16 or 48 KB; 64-bit keys 32 or 64 KB), the warps' digit counters 8 KB, the
// digits' destinations 1 KB (2 KB with 64-bit counts). Key-value pairs (--values): a 32-bit
// value per key, loaded after the ranking (the keys' registers are free by then, so that pairs
// take the keys' small tiles, and large ones but for the shared memory their values take),
// written to its key's slot in shared memory by the rank the thread left in rank_of, and
// scattered to its key's destination; 48 or 88 KB of shared memory per block (64-bit keys: 64
// or 92 KB). The tile's shared memory is
// dynamic (past the 48 KB a block may declare statically). The histogram: 128 KB of dynamic
// shared memory, one block per SM.
//
// In the charts (bench/<gpu>/applications.png): against cub_radix_sort (cub::DeviceRadixSort::SortKeys,
// also onesweep) and radix_sort_three_kernels. Measured (bench/NOTES.md, "Onesweep, 64-bit keys
// and larger tiles"; the tables in bench/<gpu>/onesweep/), int32 keys: faster than CUB at every
// power of two from 2^10 to 2^30 on both GPUs; int64 keys faster from 2^13 to 2^29 and slower at
// 2^10 (8 passes in one block). A pass issues as many instructions as CUB's (Nsight Compute at
// 2^24, with 24-key tiles); larger tiles then won by spreading each tile's descriptors and
// look-back over more keys. Key-value pairs: faster up to 2^20, slower than CUB from 2^24 on the
// H100 (a pass moves 16 bytes a key; the values keep 32-key tiles). What to look for: a pass against a copy
// of the keys (memcpy of 2 x the key's bytes), its bound; the ranking's instructions (8 votes,
// 8 inversions and 4 three-input ANDs a key); the look-back's reads (3 descriptors a step); the
// histogram against one read of the keys (near DRAM bandwidth); skewed keys (all of one
// digit: every shared atomic of a warp on one counter); small N, the one-block path against
// CUB's; 2^21, where 12288-key tiles are too few to fill two blocks on every SM.
//
// Run: make bin/radix_sort_onesweep && ./bin/radix_sort_onesweep 2^28
#include <scan_zoo/detail/grid/lookback.cuh>
#include <algorithm>
#include <type_traits>

#include "../blocks/block_scan.cuh"
#include <scan_zoo/detail/register_tile.cuh>
#include "../blocks/warp_scan.cuh"
#include "../harness/harness.cuh"
#include "../grid/run_epochs.cuh"
#include "applications.cuh"
#include "radix_keys.cuh"

namespace {

using zoo::kRadixBuckets;
using zoo::radix_digit_of;
using zoo::kWarpSize;

constexpr int kThreads = 256;  // = kRadixBuckets: thread d owns digit d
constexpr int kWarps = kThreads / kWarpSize;
static_assert(kThreads == kRadixBuckets, "one thread per digit value");

// A tile of a digit pass: kThreads x Items keys, BlocksPerSM blocks of it resident per SM (the
// register budget of __launch_bounds__). A small and a large shape, chosen by N
// (RadixSortOnesweep::run_sort), each by key width (and the large one with pairs): bigger tiles
// mean fewer descriptors and look-backs per key, smaller ones more tiles to spread over the
// SMs. Measured on the H100 (bench/NOTES.md, "Onesweep, first measurements"): 24 32-bit keys a
// thread beat 16 from 2^22 on, and lost at 2^20.
template <int Items, int BlocksPerSM>
struct TileShape {
  static constexpr int kItems = Items;
  static constexpr int kBlocksPerSM = BlocksPerSM;
  static constexpr int kWarpKeys = Items * kWarpSize;  // a warp's run of the tile
  static constexpr std::int64_t kTile = std::int64_t(kThreads) * Items;
};
// Up to kLargeTilesFrom keys, and the one-block sort: 4096 keys whatever their width. 16 64-bit
// keys take 32 registers a thread, and spilled in the 64 of four blocks per SM: three.
template <class T>
using SmallTiles = std::conditional_t<sizeof(T) == 4, TileShape<16, 4>, TileShape<16, 3>>;
// From kLargeTilesFrom keys on. Bigger tiles mean fewer tiles, so fewer descriptors and
// look-back walks a key. Measured on the H100 (bench/NOTES.md, "Onesweep, 64-bit keys and
// larger tiles"; keys a thread x blocks per SM): for 32-bit keys each step up from 24 x 3
// through 28 x 2, 32 x 2, 40 x 2 to 48 x 2 took less time at 2^22-2^29. So 32-bit keys take 48
// a thread, 2 blocks per SM (128 registers; 12288 keys a tile), but with pairs 32 (48 keys and
// their values, 128 KB of shared memory a block, would leave room for one block per SM).
// 64-bit keys take 32 (faster than 16 x 3 and 24 x 2 at 2^21-2^28), and with pairs 24 (32 and
// their values: 120 KB).
template <class T, bool kPairs>
using LargeTiles = std::conditional_t<sizeof(T) == 4, std::conditional_t<kPairs, TileShape<32, 2>, TileShape<48, 2>>,
                                      std::conditional_t<kPairs, TileShape<24, 2>, TileShape<32, 2>>>;
constexpr std::int64_t kLargeTilesFrom = std::int64_t(1) << 21;

using BlockScan = zoo::WarpBlockScan<kThreads, zoo::ShuffleWarpScan>;

// The descriptors: 32-bit counts in one packed word while every prefix fits, 64-bit counts in a
// pair of words from N = 2^32 on. Dense (stride 1): a tile's 256 descriptors are contiguous.
template <class Count>
using State =
    std::conditional_t<sizeof(Count) == 4, zoo::PackedTileState64<Count, 1>, zoo::PackedTileStatePieces<Count, 1>>;
template <class Count>
using Descriptors = zoo::EpochTileState<State<Count>>;

__device__ __forceinline__ std::int64_t descriptor(std::int64_t tile, int digit) {
  return tile * kRadixBuckets + digit;
}

// Every tile is ranked as a whole one: the slots past the keys (the last tile's, the one-block
// sort's) hold a padding key whose every digit is 255 (RadixKey<T>::last()), so that the pieces
// below need no bounds test. Being of the last digit and after every key in the tile's order, the
// padding ranks into the last slots of the sorted tile, never scattered; only digit 255's
// published count leaves it out (onesweep_pass_kernel).

// ---- 0. The histogram of every digit ----

// One block per SM, 1024 threads, each reading 64 bytes of keys a tile (16 32-bit keys or 8 64-bit
// ones) with 16-byte vectors (the order of the keys does not matter here).
constexpr int kHistogramThreads = 1024;
// The block's counters: kCopies copies of the passes x 256 counts, copy-minor, so that counter
// (pass, digit) of lane l is the word (pass * 256 + digit) * kCopies + l % kCopies. With 32
// copies (32-bit keys, 4 passes) a warp's 32 shared atomics fall in 32 banks whatever the keys;
// with one shared copy, random digits put 3 to 4 lanes in the busiest bank and a warp's atomic
// took that many passes (bench/NOTES.md, "Onesweep, the ranking rewritten"). 64-bit keys have
// twice the counters in the same 128 KB: 16 copies, lanes l and l + 16 sharing one (at most two
// lanes a bank).
constexpr std::size_t kHistogramSharedBytes = std::size_t(128) << 10;
template <class T>
struct HistogramShape {
  static constexpr int kPasses = zoo::RadixKey<T>::kPasses;
  static constexpr int kItems = 64 / int(sizeof(T));
  static constexpr std::int64_t kTile = std::int64_t(kHistogramThreads) * kItems;
  using Tile = zoo::RegisterTile<kHistogramThreads, kItems>;
  static constexpr int kCounters = kPasses * kRadixBuckets;  // 1024 or 2048
  static constexpr int kCopies = int(kHistogramSharedBytes / (kCounters * sizeof(std::uint32_t)));  // 32 or 16
  static_assert(kCounters % kHistogramThreads == 0, "each thread sums whole counters");
};

// Adds the number of keys with each value of each digit to counts[pass * 256 + value]. The grid
// strides over the tiles; a block's counters are 32-bit, enough for the N / blocks keys it
// counts (the grid is one block per SM). Each block reads its next tile before counting the one
// in hand, so that a read is in flight while the shared atomics run. The last tile is padded
// with the pass kernel's padding key (digit 255 in every pass) and the padding is taken back
// from digit 255's counts: no bounds test per key.
template <class T, class Count>
__global__ void __launch_bounds__(kHistogramThreads)
    onesweep_histogram_kernel(const T* keys, std::int64_t n, Count* counts) {
  using Shape = HistogramShape<T>;
  extern __shared__ std::uint32_t copy_counts[];  // kHistogramSharedBytes
  for (int i = threadIdx.x; i < Shape::kCounters * Shape::kCopies; i += kHistogramThreads) copy_counts[i] = 0;
  __syncthreads();
  const int copy = zoo::lane_id() % Shape::kCopies;
  const std::int64_t tiles = zoo::ceil_div(n, Shape::kTile);
  std::uint32_t padding = 0;  // padding keys this block counted
  const auto load = [&](std::int64_t tile, T (&items)[Shape::kItems]) {
    const int valid = zoo::tile_extent(tile * Shape::kTile, n, Shape::kTile);
    padding += Shape::kTile - valid;
    Shape::Tile::load(keys + tile * Shape::kTile, valid, items, zoo::RadixKey<T>::last());
  };
  T items[Shape::kItems];
  if (blockIdx.x < tiles) load(blockIdx.x, items);
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    T next[Shape::kItems];
    if (tile + gridDim.x < tiles) load(tile + gridDim.x, next);
#pragma unroll
    for (int i = 0; i < Shape::kItems; ++i) {
      const auto ordered = zoo::RadixKey<T>::ordered(items[i]);
#pragma unroll
      for (int pass = 0; pass < Shape::kPasses; ++pass)
        atomicAdd(&copy_counts[(pass * kRadixBuckets + zoo::radix_digit(ordered, pass)) * Shape::kCopies + copy], 1u);
    }
#pragma unroll
    for (int i = 0; i < Shape::kItems; ++i) items[i] = next[i];
  }
  __syncthreads();
  // Thread c sums counter c (and c + 1024) over the copies, starting at its own copy so that the
  // warp's reads spread over the banks.
#pragma unroll
  for (int counter = threadIdx.x; counter < Shape::kCounters; counter += kHistogramThreads) {
    std::uint32_t count = 0;
#pragma unroll
    for (int c = 0; c < Shape::kCopies; ++c)
      count += copy_counts[counter * Shape::kCopies + (c + copy) % Shape::kCopies];
    if (counter % kRadixBuckets == kRadixBuckets - 1) count -= padding;
    if (count != 0) atomicAdd(&counts[counter], Count(count));
  }
}

// ---- The pieces of a tile's pass (steps 1-3), shared by the pass kernel and the one-block sort ----

// kPairs: key-value pairs (--values), a 32-bit value moving with each key.
template <class Shape, class T, bool kPairs>
struct TileShared {
  // Per warp and digit value: the warp's count of it (count_digits), then where the warp's next
  // key with it goes in `sorted` (rank_into_shared). Each warp writes its own row only.
  std::uint32_t warp_digits[kWarps][kRadixBuckets];
  T sorted[Shape::kTile];  // the tile, sorted by the pass's digit
  std::uint32_t sorted_values[kPairs ? Shape::kTile : 1];  // each key's value, in its key's slot
  // With kPairs: the rank of the key in each slot of the warps' runs (warp w, round k, lane l:
  // slot w * 32 I + 32 k + l), written by the thread that holds the key, so that the values,
  // loaded only after the ranking, can follow their keys (place_values).
  std::uint16_t rank_of[kPairs ? Shape::kTile : 1];
};
static_assert(LargeTiles<std::int32_t, false>::kTile <= 65536, "a rank fits rank_of's 16 bits");

// The pass kernel and the one-block sort keep TileShared in dynamic shared memory: large tiles
// outgrow the 48 KB a block may declare statically (88 KB for 32-bit keys' with pairs, 72 KB for
// 64-bit keys' without).
template <class Shared>
__device__ __forceinline__ Shared& shared_tile() {
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  return *reinterpret_cast<Shared*>(dynamic_shared);
}

// 1. keys[k] = the calling warp's key 32 k + lane of its run (at warp_keys), or the padding key
// from warp_valid on (which may be 0 or less: a warp with no keys).
template <class Shape, class T>
__device__ void load_warp_run(const T* warp_keys, int warp_valid, T (&keys)[Shape::kItems]) {
  const int lane = zoo::lane_id();
  if (warp_valid >= Shape::kWarpKeys) {  // every warp of every tile but the last: no tests
#pragma unroll
    for (int k = 0; k < Shape::kItems; ++k) keys[k] = warp_keys[k * kWarpSize + lane];
  } else {
#pragma unroll
    for (int k = 0; k < Shape::kItems; ++k) {
      const int i = k * kWarpSize + lane;
      keys[k] = i < warp_valid ? warp_keys[i] : zoo::RadixKey<T>::last();
    }
  }
}

// 2. Returns to thread d the tile's count of digit d, padding included; leaves each warp's
// counts in its row.
template <class Shape, class T, bool kPairs>
__device__ std::uint32_t count_digits(const T (&keys)[Shape::kItems], int pass, TileShared<Shape, T, kPairs>& shared) {
  const int lane = zoo::lane_id(), warp = zoo::warp_id();
#pragma unroll
  for (int d = lane; d < kRadixBuckets; d += kWarpSize) shared.warp_digits[warp][d] = 0;
  __syncwarp();  // the row is zero before any lane counts into it
#pragma unroll
  for (int k = 0; k < Shape::kItems; ++k)
    atomicAdd(&shared.warp_digits[warp][radix_digit_of(keys[k], pass)], 1u);
  __syncthreads();
  std::uint32_t count = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) count += shared.warp_digits[w][threadIdx.x];
  return count;
}

// The lanes whose digit has the same `bit` (a mask of one bit) as the calling lane's: a ballot
// of the lanes with the bit set, inverted in the lanes without it. In PTX, so that the bit
// becomes a predicate that both the vote and the inversion use (ptxas then takes 7 of the 8
// bits to predicates with one R2P): the compiler's own code for the C++ (`set ? ballot :
// ~ballot`) spent a shift, a test and a select per bit besides, 28 instructions a key more.
__device__ __forceinline__ unsigned lanes_agreeing_on_bit(unsigned digit, unsigned bit) {
  unsigned lanes;
  asm("{\n"
      "  .reg .pred set;\n"
      "  .reg .b32 masked;\n"
      "  and.b32 masked, %1, %2;\n"
      "  setp.ne.u32 set, masked, 0;\n"
      "  vote.sync.ballot.b32 %0, set, 0xffffffff;\n"
      "  @!set not.b32 %0, %0;\n"
      "}"
      : "=r"(lanes)
      : "r"(digit), "r"(bit));
  return lanes;
}

// a & b & c in one three-input logic instruction (LOP3; 0x80 is the truth table of a three-way
// AND). Written out because the compiler chains two-input ANDs here, one instruction a bit.
__device__ __forceinline__ unsigned and3(unsigned a, unsigned b, unsigned c) {
  unsigned all;
  asm("lop3.b32 %0, %1, %2, %3, 0x80;" : "=r"(all) : "r"(a), "r"(b), "r"(c));
  return all;
}

// 3. Writes the tile's keys to shared.sorted, sorted by digit, stably (the keys' order is (warp,
// round, lane)), and with kPairs each key's rank to its slot of shared.rank_of; returns to
// thread d where digit d starts there. `count`: count_digits's. The caller synchronizes before
// reading shared.sorted.
template <class Shape, class T, bool kPairs>
__device__ std::uint32_t rank_into_shared(const T (&keys)[Shape::kItems], int pass, std::uint32_t count,
                                          TileShared<Shape, T, kPairs>& shared) {
  // Thread d: where digit d starts in the sorted tile, and in it where each warp's keys of digit d
  // start (after those of the warps before it).
  std::uint32_t tile_keys;
  const std::uint32_t digit_start = BlockScan::exclusive<std::uint32_t, zoo::Sum>(count, tile_keys);
  std::uint32_t warp_start = digit_start;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    const std::uint32_t warp_count = shared.warp_digits[w][threadIdx.x];
    shared.warp_digits[w][threadIdx.x] = warp_start;
    warp_start += warp_count;
  }
  __syncthreads();

  // The ballot multisplit: round by round, each lane finds the lanes whose digit equals its own
  // (peers), one ballot per digit bit; the highest peer reads where the warp's next key of that
  // digit goes and moves it on by the number of peers; each lane's rank is that place plus its
  // peers in lower lanes. No barrier: each warp owns its row.
  const int lane = zoo::lane_id(), warp = zoo::warp_id();
  const unsigned lanes_below = (1u << lane) - 1u;
  static_assert(zoo::kRadixBits == 8, "the peers below are the AND of 8 bits' agreements");
#pragma unroll
  for (int k = 0; k < Shape::kItems; ++k) {
    const unsigned digit = radix_digit_of(keys[k], pass);
    unsigned agree[zoo::kRadixBits];
#pragma unroll
    for (int bit = 0; bit < zoo::kRadixBits; ++bit) agree[bit] = lanes_agreeing_on_bit(digit, 1u << bit);
    const unsigned peers = and3(and3(agree[0], agree[1], agree[2]), and3(agree[3], agree[4], agree[5]),
                                agree[6] & agree[7]);
    const int leader = 31 - __clz(peers);  // the highest peer: one FLO
    std::uint32_t place = 0;
    if (lane == leader) {
      place = shared.warp_digits[warp][digit];
      shared.warp_digits[warp][digit] = place + __popc(peers);
    }
    const std::uint32_t rank = __shfl_sync(zoo::kFullMask, place, leader) + __popc(peers & lanes_below);
    shared.sorted[rank] = keys[k];
    if constexpr (kPairs) shared.rank_of[warp * Shape::kWarpKeys + k * kWarpSize + lane] = rank;
    __syncwarp();  // the next round's leader of a digit may be another lane
  }
  return digit_start;
}

// 3b. With kPairs: values[k], the value of the calling thread's key k (load_warp_run's order),
// to that key's slot of shared.sorted_values, by the rank the thread's own ranking left in
// rank_of: no barrier between the two. The values are loaded after the ranking, when the keys'
// registers are free: pairs then fit the keys' tile shapes, where values held from the start
// took 16 more registers and a smaller tile (bench/NOTES.md, "Onesweep, the ranking rewritten").
template <class Shape, class T>
__device__ void place_values(const std::uint32_t (&values)[Shape::kItems], TileShared<Shape, T, true>& shared) {
  const int first_slot = zoo::warp_id() * Shape::kWarpKeys + zoo::lane_id();
#pragma unroll
  for (int k = 0; k < Shape::kItems; ++k) shared.sorted_values[shared.rank_of[first_slot + k * kWarpSize]] = values[k];
}

// ---- One digit pass over the tiles (steps 1-5) ----

// 4. Thread d: the number of keys of digit d before this tile, its global offset included: a walk
// back over digit d's descriptors, adding AGGREGATE counts until an INCLUSIVE one ends it (tile
// 0's always is). The walk reads kLookbackWindow descriptors at a time, all in flight at once,
// then adds them nearest first, waiting only on one not yet published; a window reaching past
// tile 0 reads tile 0's again (never added: tile 0 ends the walk). The block's 256 walks read 256
// neighbouring words a descriptor. No sleep before the first read: ranking the tile stands
// between its publish and its look-back.
//
// Why a window: a walk one descriptor at a time was several descriptors deep on average, one L2
// round trip each, and the pass's stall samples waited on it (Nsight Compute). Three at a time
// made the sort faster on the H100; 2 or 4 did about as well, 6 or 8 no better (more loads per
// tile, most of them past the INCLUSIVE one). The figures: bench/NOTES.md, "Onesweep, the
// ranking rewritten".
constexpr int kLookbackWindow = 3;

template <class Count>
__device__ Count look_back(const State<Count>& state, std::int64_t tile, int digit) {
  Count before = 0;
  for (std::int64_t nearest = tile - 1;; nearest -= kLookbackWindow) {
    zoo::TileView<Count> views[kLookbackWindow];
#pragma unroll
    for (int j = 0; j < kLookbackWindow; ++j)
      views[j] = state.read(descriptor(nearest - j > 0 ? nearest - j : 0, digit));
#pragma unroll
    for (int j = 0; j < kLookbackWindow; ++j) {
      while (views[j].status == zoo::kTileInvalid) {
        zoo::LookbackBackoff::between_polls();
        views[j] = state.read(descriptor(nearest - j > 0 ? nearest - j : 0, digit));
      }
      before += views[j].value;
      if (views[j].status == zoo::kTileInclusive) return before;
    }
  }
}

// Sorts the keys by digit `pass`, stably, from in to out, and with kPairs their values from
// values_in to values_out (else null). global_counts: row `pass` of the histogram (tile 0 turns
// it into the global offsets and sets it back to zero). Shape's blocks per SM bound the
// registers: 64 for 4 blocks, 85 for 3, 128 for 2. 64-bit counts (N >= 2^32) take more registers
// (their destinations and look-back sums): one block per SM fewer.
template <class Shape, bool kPairs, class T, class Count>
__global__ void __launch_bounds__(kThreads, Shape::kBlocksPerSM - (sizeof(Count) == 8 ? 1 : 0))
    onesweep_pass_kernel(const T* in, T* out, const std::uint32_t* values_in, std::uint32_t* values_out,
                         std::int64_t n, int pass, Count* global_counts, State<Count> state, std::int64_t silent_tile) {
  auto& shared = shared_tile<TileShared<Shape, T, kPairs>>();
  // Per digit d: where the sorted tile's slot 0 would go if it held digit d, so that the key of
  // digit d in slot i goes to destination[d] + i.
  __shared__ Count destination[kRadixBuckets];
  const std::int64_t tile = blockIdx.x;
  // Test-only (--inject-hang): tile 0 never publishes, so the first pass waits forever. A launch
  // argument, as in the tuned scan: read from __constant__ memory it would be a cold load in
  // front of every block's first (bench/NOTES.md, "A test hook must cost nothing").
  if (tile == silent_tile) return;
  const int digit = threadIdx.x;
  const std::int64_t begin = tile * Shape::kTile;
  const int valid = zoo::tile_extent(begin, n, Shape::kTile);

  // 1. Load the keys (the values come after the ranking).
  const std::int64_t warp_begin = begin + zoo::warp_id() * Shape::kWarpKeys;
  const int warp_valid = valid - zoo::warp_id() * Shape::kWarpKeys;
  T keys[Shape::kItems];
  load_warp_run<Shape>(in + warp_begin, warp_valid, keys);

  // 2. Count the tile's digits and publish them: AGGREGATE, or tile 0's INCLUSIVE after the
  // virtual tile -1 (the global offsets). The padding of a last tile is not published.
  const std::uint32_t count = count_digits(keys, pass, shared);
  const Count keys_of_digit = count - (digit == kRadixBuckets - 1 ? Shape::kTile - valid : 0);
  Count before_tile = 0;
  if (tile == 0) {
    Count all_keys;
    before_tile = BlockScan::exclusive<Count, zoo::Sum>(global_counts[digit], all_keys);
    global_counts[digit] = 0;  // ready for the next run's histogram
    state.publish(descriptor(0, digit), zoo::kTileInclusive, before_tile + keys_of_digit);
  } else {
    state.publish(descriptor(tile, digit), zoo::kTileAggregate, keys_of_digit);
  }

  // 3. Rank: the tile, sorted by digit, in shared memory. With kPairs, the values' loads leave
  // now, to arrive during the look-back.
  const std::uint32_t digit_start = rank_into_shared(keys, pass, count, shared);
  std::uint32_t values[kPairs ? Shape::kItems : 1];
  if constexpr (kPairs) load_warp_run<Shape>(values_in + warp_begin, warp_valid, values);

  // 4. Look back for the keys of each digit before this tile; publish INCLUSIVE.
  if (tile > 0) {
    before_tile = look_back<Count>(state, tile, digit);
    state.publish(descriptor(tile, digit), zoo::kTileInclusive, before_tile + keys_of_digit);
  }
  if constexpr (kPairs) place_values(values, shared);
  destination[digit] = before_tile - digit_start;  // modulo 2^32 or 2^64: every sum below is < N
  __syncthreads();  // the sorted tile and every digit's destination are complete

  // 5. Scatter: runs of one digit to consecutive addresses; the padding (slots from valid on) stays.
  const auto scatter = [&](int i) {
    const T key = shared.sorted[i];
    const Count to = destination[radix_digit_of(key, pass)] + i;
    out[to] = key;
    if constexpr (kPairs) values_out[to] = shared.sorted_values[i];
  };
  if (valid == Shape::kTile) {  // every tile but the last: no tests
#pragma unroll
    for (int k = 0; k < Shape::kItems; ++k) scatter(k * kThreads + threadIdx.x);
  } else {
#pragma unroll
    for (int k = 0; k < Shape::kItems; ++k)
      if (k * kThreads + int(threadIdx.x) < valid) scatter(k * kThreads + threadIdx.x);
  }
}

// ---- Small N: the whole sort in one block ----

// n <= SmallTiles<T>::kTile keys (and with kPairs their values): the passes of steps 1-3 on
// one tile, each pass's sorted tile (in shared memory) the next pass's input, then out. A grid
// of one block: it may take every register it wants (68; held to 64, as in a pass, it spilled).
template <bool kPairs, class T>
__global__ void __launch_bounds__(kThreads, 1)
    onesweep_one_block_kernel(const T* in, T* out, const std::uint32_t* values_in, std::uint32_t* values_out, int n) {
  using Shape = SmallTiles<T>;
  auto& shared = shared_tile<TileShared<Shape, T, kPairs>>();
  const int warp_begin = zoo::warp_id() * Shape::kWarpKeys;
  const int warp_valid = n - warp_begin;
  T keys[Shape::kItems];
  std::uint32_t values[Shape::kItems];
  load_warp_run<Shape>(in + warp_begin, warp_valid, keys);
  if constexpr (kPairs) load_warp_run<Shape>(values_in + warp_begin, warp_valid, values);
  for (int pass = 0; pass < zoo::RadixKey<T>::kPasses; ++pass) {
    const std::uint32_t count = count_digits(keys, pass, shared);
    rank_into_shared(keys, pass, count, shared);
    if constexpr (kPairs) place_values(values, shared);
    __syncthreads();  // the tile sorted by this digit is complete
    // The next pass's barriers come before its ranking writes `sorted` again. The padding stays
    // in the last slots, from n on.
    load_warp_run<Shape>(shared.sorted + warp_begin, Shape::kWarpKeys, keys);
    if constexpr (kPairs) load_warp_run<Shape>(shared.sorted_values + warp_begin, Shape::kWarpKeys, values);
  }
  const int lane = zoo::lane_id();
#pragma unroll
  for (int k = 0; k < Shape::kItems; ++k)
    if (k * kWarpSize + lane < warp_valid) {
      out[warp_begin + k * kWarpSize + lane] = keys[k];
      if constexpr (kPairs) values_out[warp_begin + k * kWarpSize + lane] = values[k];
    }
}

struct RadixSortOnesweep : zoo::VariantDefaults {
  template <class T, class Op>
  using Problem = zoo::SortProblem<T, Op>;
  static constexpr std::int64_t kTileItems = SmallTiles<std::int32_t>::kTile;
  static_assert(SmallTiles<double>::kTile == kTileItems, "one one-block threshold for every key width");
  static constexpr bool kHasSilentTile = true;
  static constexpr bool kHandsOverAcrossTiles = true;
  static constexpr bool kSortsPairs = true;
  using Types = zoo::AllTypes;  // any key radix_keys.cuh orders: 4 passes of 32-bit keys, 8 of 64-bit
  static_assert(std::int64_t(UINT32_MAX) >= kLargeTilesFrom, "64-bit counts come with large tiles only");

  // Up to one tile, the one-block sort (why one tile: the header, "Small N").
  static bool one_block(std::int64_t n) { return n <= kTileItems; }
  static bool large_tiles(std::int64_t n) { return n >= kLargeTilesFrom; }
  // Prefix counts reach N: 64-bit once N passes 2^32 - 1.
  static bool wide_counts(std::int64_t n) { return n > std::int64_t(UINT32_MAX); }

  // The workspace: the ping-pong copy of the keys (and of the values, for pairs), the histogram
  // (4 rows of 256 counts) and the descriptor region (tiles x 256 descriptors, shared by the
  // passes).
  template <class T, class Count>
  struct Layout {
    T* keys = nullptr;
    std::uint32_t* values = nullptr;
    Count* counts = nullptr;
    zoo::Workspace descriptors;
  };
  template <class Shape, bool kPairs, class T, class Count>
  static Layout<T, Count> layout(zoo::WorkspaceCarver& carver, std::int64_t n) {
    Layout<T, Count> layout;
    layout.keys = carver.take<T>(static_cast<std::size_t>(n));
    if (kPairs) layout.values = carver.take<std::uint32_t>(static_cast<std::size_t>(n));
    layout.counts = carver.take<Count>(zoo::RadixKey<T>::kPasses * kRadixBuckets);
    layout.descriptors.bytes =
        Descriptors<Count>::workspace_bytes(zoo::ceil_div(n, Shape::kTile) * kRadixBuckets);
    layout.descriptors.data = carver.take<char>(layout.descriptors.bytes);
    return layout;
  }

  // The bytes of run_sort's workspace: the layout of the tile shape and count width it picks.
  template <bool kPairs, class T>
  static std::size_t sort_workspace_bytes(std::int64_t n) {
    if (one_block(n)) return 0;
    return zoo::bytes_of_layout([&](zoo::WorkspaceCarver& counter) {
      if (wide_counts(n)) layout<LargeTiles<T, kPairs>, kPairs, T, unsigned long long>(counter, n);
      else if (large_tiles(n)) layout<LargeTiles<T, kPairs>, kPairs, T, std::uint32_t>(counter, n);
      else layout<SmallTiles<T>, kPairs, T, std::uint32_t>(counter, n);
    });
  }
  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return sort_workspace_bytes<false, T>(n);
  }
  template <class T>
  static std::size_t pairs_workspace_bytes(std::int64_t n) {
    return sort_workspace_bytes<true, T>(n);
  }

  // Bytes of dynamic shared memory for Kernel, allowed past 48 KB on the first call.
  template <auto Kernel, std::size_t Bytes>
  static std::size_t dynamic_shared_bytes() {
    static const bool allowed = [] {
      ZOO_CUDA(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Bytes)));
      return true;
    }();
    (void)allowed;
    return Bytes;
  }

  // The histogram's grid: one block per SM (its 128 KB of counters), each striding over the
  // tiles, so that its global atomics (1024 or 2048 per block) do not grow with N.
  template <class T>
  static unsigned histogram_blocks(std::int64_t n) {
    static const int sms = [] {
      int device = 0, count = 0;
      ZOO_CUDA(cudaGetDevice(&device));
      ZOO_CUDA(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
      return count;
    }();
    return static_cast<unsigned>(std::min<std::int64_t>(zoo::ceil_div(n, HistogramShape<T>::kTile), sms));
  }

  template <class Shape, bool kPairs, class T, class Count>
  static void sort(const T* in, T* out, const std::uint32_t* values_in, std::uint32_t* values_out, std::int64_t n,
                   zoo::Workspace workspace, cudaStream_t stream) {
    zoo::WorkspaceCarver carver(workspace.data);
    const Layout<T, Count> buffers = layout<Shape, kPairs, T, Count>(carver, n);
    const std::int64_t tiles = zoo::ceil_div(n, Shape::kTile);
    constexpr auto histogram = onesweep_histogram_kernel<T, Count>;
    histogram<<<histogram_blocks<T>(n), kHistogramThreads, dynamic_shared_bytes<histogram, kHistogramSharedBytes>(),
                stream>>>(in, n, buffers.counts);
    ZOO_CHECK_LAUNCH();
    const T* from = in;
    const std::uint32_t* values_from = values_in;
    static_assert(zoo::RadixKey<T>::kPasses % 2 == 0, "the passes ping-pong: an even number ends in the output");
    for (int pass = 0; pass < zoo::RadixKey<T>::kPasses; ++pass) {
      T* to = pass % 2 == 0 ? buffers.keys : out;
      std::uint32_t* values_to = pass % 2 == 0 ? buffers.values : values_out;
      // A new epoch for every pass: what the previous pass or run left reads as not yet published.
      const State<Count> state = Descriptors<Count>::for_run(buffers.descriptors, tiles * kRadixBuckets,
                                                             zoo::RunEpochs::next(buffers.descriptors, stream));
      constexpr auto kernel = onesweep_pass_kernel<Shape, kPairs, T, Count>;
      const std::size_t shared_bytes = dynamic_shared_bytes<kernel, sizeof(TileShared<Shape, T, kPairs>)>();
      kernel<<<static_cast<unsigned>(tiles), kThreads, shared_bytes, stream>>>(
          from, to, values_from, values_to, n, pass, buffers.counts + pass * kRadixBuckets, state,
          zoo::g_silent_tile_argument);
      ZOO_CHECK_LAUNCH();
      from = to;
      values_from = values_to;
    }
  }

  // Keys only when the values are null (kPairs false), key-value pairs otherwise: the same tile
  // shapes either way but for 64-bit keys' large tiles (LargeTiles).
  template <bool kPairs, class T>
  static void run_sort(const T* in, T* out, const std::uint32_t* values_in, std::uint32_t* values_out, std::int64_t n,
                       zoo::Workspace workspace, cudaStream_t stream) {
    if (one_block(n)) {
      constexpr auto kernel = onesweep_one_block_kernel<kPairs, T>;
      const std::size_t shared_bytes = dynamic_shared_bytes<kernel, sizeof(TileShared<SmallTiles<T>, T, kPairs>)>();
      kernel<<<1, kThreads, shared_bytes, stream>>>(
          in, out, values_in, values_out, static_cast<int>(n));
      ZOO_CHECK_LAUNCH();
    } else if (wide_counts(n)) {
      sort<LargeTiles<T, kPairs>, kPairs, T, unsigned long long>(in, out, values_in, values_out, n, workspace, stream);
    } else if (large_tiles(n)) {
      sort<LargeTiles<T, kPairs>, kPairs, T, std::uint32_t>(in, out, values_in, values_out, n, workspace, stream);
    } else {
      sort<SmallTiles<T>, kPairs, T, std::uint32_t>(in, out, values_in, values_out, n, workspace, stream);
    }
  }
  template <class T>
  static void run(const T* in, T* out, const std::uint32_t* values_in, std::uint32_t* values_out, std::int64_t n,
                  zoo::Workspace workspace, cudaStream_t stream) {
    if (values_in != nullptr) run_sort<true>(in, out, values_in, values_out, n, workspace, stream);
    else run_sort<false>(in, out, values_in, values_out, n, workspace, stream);
  }
};

}  // namespace

ZOO_MAIN(RadixSortOnesweep)
