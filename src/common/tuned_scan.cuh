// tuned_scan.cuh -- the decoupled look-back scan with every implementation decision a
// compile-time parameter (TunedConfig), run in ONE launch. single_pass_scan_tuned picks a
// configuration per N from a measured table (tuned_table.cuh); the tuner (tune/) measures every
// configuration of the space (tune/space.cuh). This header includes no harness, so that the
// tuner can compile its configurations in many translation units.
//
// The parameters, and the building blocks they select:
//   Threads, Items      tile = Threads x Items elements, Items per thread in registers
//   VectorBytes         width of each global load/store: 4 (scalar), 8 or 16 (tile_io.cuh)
//   BlockScanKind       how the block scans its per-thread totals (block_scan.cuh):
//                       WarpScans (shuffle scan per warp, then of the warp totals), Raking
//                       (one warp rakes them serially), Blelloch (the shared-memory tree)
//   LookbackKind, Sleep serial or warp-window look-back, with or without the sleeping back-off
//                       (lookback.cuh)
//   DescriptorKind      Packed64 (status, epoch and value in one relaxed 64-bit word, one per
//                       32-byte sector) or TwoField (status word + value slots, release/acquire)
//                       (tile_state.cuh)
//   GridKind            TilePerBlock: one block per tile, tile = blockIdx.x (as CUB). Persistent:
//                       as many blocks as fit on the GPU at once, block b scanning tiles b,
//                       b + grid, b + 2 grid, ..., and issuing the loads of its NEXT tile before
//                       it waits in the look-back of the current one, so that memory stays busy
//                       while it waits (the look-back wait is what separates the per-tile kernel
//                       from memcpy: bench/NOTES.md).
//
// One launch: CUB, and the other single-pass variants, launch twice per scan: a kernel (or
// memset) that resets the tile descriptors, then the scan. Here every descriptor carries the
// run's epoch (tile_state.cuh), a number the host gives each run of a workspace (RunEpochs,
// tile_state.cuh), and a descriptor of another epoch reads as "not yet published": the previous run's
// leftovers need no reset. The workspace must be zero when first used (the harness zeroes it once
// at allocation, outside timing). A scan of one tile uses no descriptor: it is a plain block scan.
//
// No ticket: the zoo's other look-back scans number their tiles with an atomic ticket (a dynamic
// tile index, single_pass.cuh), which costs every block an atomic round trip before its first
// load. Measured on the H100 (bench/NOTES.md, "The tuned scan"), blockIdx.x instead saved about
// 0.4 us per scan at 2^13..2^16 and 2% of the time at 2^26.
//
// Forward progress: a tile waits only on tiles with smaller indices. TilePerBlock relies on the
// hardware dispatching blocks in blockIdx.x order, so that every block a running block waits on
// has been started (true of NVIDIA GPUs and relied on by CUB's scan; not a CUDA-language
// guarantee). Persistent relies on its grid (sized by the occupancy calculator) being resident
// at once, and each block finishes its current tile before it starts the next.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "block_scan.cuh"
#include "cuda_check.cuh"
#include "lookback.cuh"
#include "ops.cuh"
#include "smem_tree_scans.cuh"
#include "tile_policies.cuh"
#include "tile_state.cuh"
#include "warp_scan.cuh"

namespace zoo {

enum class BlockScanKind { WarpScans, Raking, Blelloch };
enum class LookbackKind { Serial, Warp };
enum class DescriptorKind { Packed64, TwoField };
enum class GridKind { TilePerBlock, Persistent };

// A carry-in source that first runs `before` (every thread) and then asks `inner`: the
// persistent grid issues the loads of its next tile there, after the block scan and before the
// look-back wait.
template <class Inner, class Before>
struct BeforeCarryIn {
  Inner inner;
  Before before;
  template <class T, class Op>
  __device__ T get(T total) const {
    before();
    return inner.template get<T, Op>(total);
  }
};

template <int Threads, int Items, int VectorBytes, BlockScanKind Scan, LookbackKind Lookback, bool Sleep,
          DescriptorKind Descriptor, GridKind Grid>
struct TunedConfig {
  static constexpr int kThreads = Threads;
  static constexpr int kItems = Items;
  static constexpr int kVectorBytes = VectorBytes;
  static constexpr std::int64_t kTileItems = std::int64_t(Threads) * Items;
  static constexpr BlockScanKind kBlockScan = Scan;
  static constexpr LookbackKind kLookback = Lookback;
  static constexpr bool kSleep = Sleep;
  static constexpr DescriptorKind kDescriptor = Descriptor;
  static constexpr GridKind kGrid = Grid;

  using BlockScan = std::conditional_t<
      Scan == BlockScanKind::WarpScans, WarpBlockScan<Threads, ShuffleWarpScan>,
      std::conditional_t<Scan == BlockScanKind::Raking, RakingBlockScan<Threads>,
                         TreeBlockScan<Threads, BlellochTree<true>>>>;
  using Tile = CoarsenedTile<Threads, Items, BlockScan, VectorBytes>;
  template <class T>
  using State = std::conditional_t<Descriptor == DescriptorKind::Packed64, PackedTileState64<T>, TwoFieldTileState<T>>;
  using Backoff = std::conditional_t<Sleep, LookbackBackoff, NoBackoff>;
  template <class S>
  using Carry = std::conditional_t<Lookback == LookbackKind::Serial, SerialLookback<S, Backoff>, WarpLookback<S, Backoff>>;

  // E.g. "128x24.v16.warpscans.warp.sleep.packed64.pertile": the row name in bench/tuning.txt.
  static std::string name() {
    static const char* const scans[] = {"warpscans", "raking", "blelloch"};
    return std::to_string(Threads) + "x" + std::to_string(Items) + ".v" + std::to_string(VectorBytes) + "." +
           scans[static_cast<int>(Scan)] + "." + (Lookback == LookbackKind::Serial ? "serial" : "warp") + "." +
           (Sleep ? "sleep" : "nosleep") + "." + (Descriptor == DescriptorKind::Packed64 ? "packed64" : "twofield") +
           "." + (Grid == GridKind::TilePerBlock ? "pertile" : "persistent");
  }
};

template <class Config, class T, class Op>
__global__ void __launch_bounds__(Config::kThreads)
    tuned_scan_kernel(const T* in, T* out, std::int64_t n, bool exclusive, typename Config::template State<T> state,
                      std::uint32_t tiles) {
  using Tile = typename Config::Tile;
  using IO = typename Tile::template IO<T>;
  using Carry = typename Config::template Carry<typename Config::template State<T>>;
  const auto tile_begin = [](std::uint32_t tile) { return std::int64_t(tile) * Config::kTileItems; };
  const auto tile_valid = [n](std::uint32_t tile) {
    return static_cast<int>(min(Config::kTileItems, n - std::int64_t(tile) * Config::kTileItems));
  };

  // A single tile has no predecessor and no successor: no descriptor, no look-back.
  if (tiles == 1) {
    Tile::template scan_tile<T, Op>(in, out, static_cast<int>(n), exclusive);
    return;
  }

  std::uint32_t tile = blockIdx.x;
  if constexpr (Config::kGrid == GridKind::TilePerBlock) {
    Tile::template scan_tile<T, Op>(in + tile_begin(tile), out + tile_begin(tile), tile_valid(tile), exclusive,
                                    Carry{state, tile});
  } else {
    typename IO::Fetched current = IO::fetch(in + tile_begin(tile), tile_valid(tile), Op::template identity<T>());
    for (;;) {
      const std::uint32_t next_tile = tile + gridDim.x;
      typename IO::Fetched next;
      const auto prefetch_next = [&] {
        if (next_tile < tiles) next = IO::fetch(in + tile_begin(next_tile), tile_valid(next_tile), Op::template identity<T>());
      };
      Tile::template scan_fetched<T, Op>(current, out + tile_begin(tile), tile_valid(tile), exclusive,
                                         BeforeCarryIn<Carry, decltype(prefetch_next)>{Carry{state, tile}, prefetch_next});
      if (next_tile >= tiles) break;
      tile = next_tile;
      current = next;
    }
  }
}

// The variant-shaped driver of one configuration (harness contract: workspace_bytes and run).
template <class Config>
struct TunedScan {
  template <class T>
  using Descriptors = EpochTileState<typename Config::template State<T>>;

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return Descriptors<T>::workspace_bytes(ceil_div<std::int64_t>(n, Config::kTileItems));
  }

  // Blocks of this kernel that fit on the whole GPU at once: the persistent grid.
  template <class T, class Op>
  static std::int64_t resident_blocks() {
    static const std::int64_t blocks = [] {
      int device = 0, sms = 0, per_sm = 0;
      ZOO_CUDA(cudaGetDevice(&device));
      ZOO_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
      ZOO_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tuned_scan_kernel<Config, T, Op>,
                                                             Config::kThreads, 0));
      return std::int64_t(std::max(1, per_sm)) * sms;
    }();
    return blocks;
  }

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, ScanKind kind, Workspace workspace, cudaStream_t stream) {
    const std::int64_t tiles = ceil_div<std::int64_t>(n, Config::kTileItems);
    const auto state = Descriptors<T>::for_run(workspace, tiles, stream);
    const std::int64_t grid = Config::kGrid == GridKind::Persistent ? std::min(tiles, resident_blocks<T, Op>()) : tiles;
    tuned_scan_kernel<Config, T, Op><<<static_cast<unsigned>(grid), Config::kThreads, 0, stream>>>(
        in, out, n, kind == ScanKind::Exclusive, state, static_cast<std::uint32_t>(tiles));
    ZOO_CHECK_LAUNCH();
  }
};

}  // namespace zoo
