// hierarchy.cuh -- the multi-level driver shared by every hierarchical (scan-then-add) variant.
//
// A block scans one tile of TileItems elements and emits the tile's total. If there is more
// than one tile, the tile totals form a shorter array that is scanned the same way (inclusive,
// in place), recursively, until one tile holds a whole level. On the way back down, every tile
// but the first combines the scanned total of all tiles before it (its carry-in) into each of
// its elements:
//
//   level 0  data            n elements           scan_tiles  -> totals L1 (n / TileItems)
//   level 1  L1              n / TileItems        scan_tiles  -> totals L2
//   ...                                            (top level fits in one tile: one block)
//   back down: add_carry(L_k, L_{k+1}) ... add_carry(data, L1)
//
// Global traffic: the tile pass reads and writes every element, the carry pass reads and writes
// every element again: 4 accesses per element (the levels above are ~1/TileItems of that), so a
// scan-then-add hierarchy is bounded by half the bandwidth of a copy.
//
// A tile policy (tile_policies.cuh) supplies kThreads, kTileItems and Scan<T, Op>, the tile's
// scan as steps: load, scan (the tile on its own, returning its total), prepend_and_store. Here
// nothing comes before a tile yet (the carry pass adds it), so the carry is the identity. The
// levels are scanned in place: a policy reads its whole tile before it writes any of it.
#pragma once

#include <cstdint>

#include <scan_zoo/detail/vector_access.cuh>
#include "../core/cuda_check.cuh"
#include "../core/ops.cuh"
#include "../core/variant.cuh"

namespace zoo {

template <class Policy, class T, class Op>
__global__ void __launch_bounds__(Policy::kThreads)
    hierarchy_scan_tiles(const T* in, T* out, T* tile_totals, std::int64_t n, bool exclusive) {
  const std::int64_t tile_begin = std::int64_t(blockIdx.x) * Policy::kTileItems;
  const int valid = tile_extent(tile_begin, n, Policy::kTileItems);
  const T* tile_in = in + tile_begin;
  T* tile_out = out + tile_begin;
  typename Policy::template Scan<T, Op> block;
  block.load(tile_in, valid);
  const T total = block.scan(exclusive);
  block.prepend_and_store(Op::template identity<T>(), exclusive, tile_out, valid);
  if (tile_totals != nullptr && threadIdx.x == 0) tile_totals[blockIdx.x] = total;
}

// The carry pass: every element of tile b >= 1 becomes carry (+) element, where carry is the
// scanned total of all tiles before b. Memory-bound, so it is written like a copy kernel: each
// block takes a fixed chunk of kAddCarryChunk elements whatever the tile size (small tiles would
// otherwise make tiny blocks), issues all of its 16-byte loads before the first store, and looks
// up each vector's carry (a vector never straddles tiles: TileItems is a multiple of its
// length). The ragged end, or an unaligned array, goes element by element.
constexpr int kAddCarryThreads = 256;
constexpr int kAddCarryChunk = 8192;

template <int TileItems, class T, class Op>
__global__ void __launch_bounds__(kAddCarryThreads)
    hierarchy_add_carry(T* __restrict__ data, const T* __restrict__ scanned_totals, std::int64_t n) {
  using Vec = VectorOf<T, 16>;
  constexpr int kVectors = kAddCarryChunk / Vec::kCount;
  constexpr int kPerThread = kVectors / kAddCarryThreads;
  static_assert(kVectors % kAddCarryThreads == 0 && TileItems % Vec::kCount == 0, "whole vectors");
  const Op op;
  const std::int64_t chunk_begin = TileItems + std::int64_t(blockIdx.x) * kAddCarryChunk;  // tile 0 has no carry
  T* chunk = data + chunk_begin;
  const auto carry_of = [&](std::int64_t i) { return scanned_totals[(chunk_begin + i) / TileItems - 1]; };
  const bool aligned = reinterpret_cast<std::uintptr_t>(chunk) % sizeof(typename Vec::Chunk) == 0;
  if (chunk_begin + kAddCarryChunk <= n && aligned) {
    // Every load (data and carries) is issued before the first store, so their latencies overlap.
    typename Vec::Chunk vectors[kPerThread];
    T carries[kPerThread];
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int v = k * kAddCarryThreads + threadIdx.x;
      vectors[k] = Vec::load(chunk, v);
      carries[k] = carry_of(std::int64_t(v) * Vec::kCount);
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
#pragma unroll
      for (int j = 0; j < Vec::kCount; ++j) vectors[k].item[j] = op(carries[k], vectors[k].item[j]);
      Vec::store(chunk, k * kAddCarryThreads + threadIdx.x, vectors[k]);
    }
  } else {
    const int valid = tile_extent(chunk_begin, n, kAddCarryChunk);
    for (int i = threadIdx.x; i < valid; i += kAddCarryThreads) chunk[i] = op(carry_of(i), chunk[i]);
  }
}

template <class Policy>
struct Hierarchy {
  static constexpr int kTile = Policy::kTileItems;

  // The totals of each level above the data, from L1 up: a level longer than one tile needs
  // the next. Also what workspace_bytes counts.
  template <class T>
  static int layout(WorkspaceCarver& carver, std::int64_t n, T* levels[], std::int64_t lengths[]) {
    int count = 0;
    for (std::int64_t length = n; length > kTile; ++count) {
      length = ceil_div<std::int64_t>(length, kTile);
      lengths[count] = length;
      levels[count] = carver.take<T>(static_cast<std::size_t>(length));
    }
    return count;
  }

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return bytes_of_layout([&](WorkspaceCarver& counter) {
      T* levels[kMaxLevels];
      std::int64_t lengths[kMaxLevels];
      layout<T>(counter, n, levels, lengths);
    });
  }

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, ScanKind kind, Workspace workspace, cudaStream_t stream) {
    WorkspaceCarver carver(workspace.data);
    T* levels[kMaxLevels];
    std::int64_t lengths[kMaxLevels];
    const int level_count = layout<T>(carver, n, levels, lengths);

    // Up: scan the data into tile-local prefixes, then each level of totals in place.
    scan_tiles<T, Op>(in, out, level_count ? levels[0] : nullptr, n, kind == ScanKind::Exclusive, stream);
    for (int level = 0; level < level_count; ++level) {
      T* totals_above = level + 1 < level_count ? levels[level + 1] : nullptr;
      scan_tiles<T, Op>(levels[level], levels[level], totals_above, lengths[level], false, stream);
    }
    // Down: each level's scanned totals become the carry-ins of the level below.
    for (int level = level_count - 1; level >= 0; --level) {
      T* below = level == 0 ? out : levels[level - 1];
      const std::int64_t below_length = level == 0 ? n : lengths[level - 1];
      add_carry<T, Op>(below, levels[level], below_length, stream);
    }
  }

 private:
  static constexpr int kMaxLevels = 16;  // TileItems >= 32 and n < 2^63: at most 13 levels

  template <class T, class Op>
  static void scan_tiles(const T* in, T* out, T* totals, std::int64_t n, bool exclusive, cudaStream_t stream) {
    const std::int64_t tiles = ceil_div<std::int64_t>(n, kTile);
    hierarchy_scan_tiles<Policy, T, Op><<<static_cast<unsigned>(tiles), Policy::kThreads, 0, stream>>>(
        in, out, totals, n, exclusive);
    ZOO_CHECK_LAUNCH();
  }

  template <class T, class Op>
  static void add_carry(T* data, const T* scanned_totals, std::int64_t n, cudaStream_t stream) {
    if (n <= kTile) return;
    const std::int64_t chunks = ceil_div<std::int64_t>(n - kTile, kAddCarryChunk);
    hierarchy_add_carry<kTile, T, Op><<<static_cast<unsigned>(chunks), kAddCarryThreads, 0, stream>>>(
        data, scanned_totals, n);
    ZOO_CHECK_LAUNCH();
  }};

// The variant struct of a plain scan-then-add variant: everything comes from its tile policy.
// The tiles hold any element type; one whose shared memory would not hold a tile of 64-bit
// elements names the types that fit.
template <class Policy, class ElementTypes = AllTypes>
struct HierarchicalVariant : VariantDefaults, Hierarchy<Policy> {
  static constexpr std::int64_t kTileItems = Policy::kTileItems;
  using Types = ElementTypes;
  using Hierarchy<Policy>::workspace_bytes;
};

}  // namespace zoo
