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
//   GridKind            TilePerBlock: one block per tile, tiles numbered by ticket. Persistent:
//                       as many blocks as fit on the GPU at once, each taking tickets until the
//                       tiles run out, and issuing the loads of its NEXT tile before it waits in
//                       the look-back of the current one, so that memory stays busy while it
//                       waits (the look-back wait is what separates the per-tile kernel from
//                       memcpy: bench/NOTES.md).
//
// One launch: CUB, and the other single-pass variants, launch twice per scan: a kernel (or
// memset) that resets the tile descriptors, then the scan. Here the descriptors carry the run's
// epoch (tile_state.cuh), and the ticket counter carries the epoch too (EpochTicket below): the
// block that takes the run's last ticket resets the counter and advances the epoch for the next
// run. The workspace must be zero when first used (the harness zeroes it once at allocation,
// outside timing); after that every run leaves it ready for the next. A scan of one tile uses
// neither: it is a plain block scan.
//
// Forward progress: as with every ticketed single-pass scan (single_pass.cuh): a tile waits only
// on tiles with smaller tickets, which running blocks hold; a persistent block finishes its
// current tile before it starts the next, and its prefetched ticket is larger than its current
// one. Assumes running blocks keep being scheduled (NVIDIA GPUs; not a CUDA-language guarantee).
#pragma once

#include <cuda/atomic>
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

// The ticket counter and the run's epoch in one 64-bit word (epoch high, ticket low), so that
// one fetch_add hands a block both. A run takes a known number of tickets; the block that takes
// the last one knows every other ticket of the run is taken (they come before it in the word's
// modification order), so it may store {epoch + 1, 0}: the next run (a later launch on the
// stream) starts from ticket 0 in a new epoch. Relaxed is enough: the word is the only thing
// communicated, and a store after one's own RMW on the same word is ordered after it.
struct EpochTicket {
  unsigned long long* word = nullptr;

  struct Taken {
    std::uint32_t epoch;
    std::uint32_t ticket;
  };

  __device__ Taken take(std::uint32_t tickets_in_run) const {
    DeviceAtomic<unsigned long long> counter(*word);
    const unsigned long long before = counter.fetch_add(1ull, cuda::memory_order_relaxed);
    const Taken taken{static_cast<std::uint32_t>(before >> 32), static_cast<std::uint32_t>(before)};
    if (taken.ticket == tickets_in_run - 1)
      counter.store(static_cast<unsigned long long>((taken.epoch + 1) & kEpochMask) << 32, cuda::memory_order_relaxed);
    return taken;
  }
};

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
                      EpochTicket ticket, std::uint32_t tiles) {
  using Tile = typename Config::Tile;
  using IO = typename Tile::template IO<T>;
  using State = typename Config::template State<T>;
  using Carry = typename Config::template Carry<State>;
  constexpr bool kPersistent = Config::kGrid == GridKind::Persistent;
  // A persistent block takes tickets until one is past the last tile: one extra ticket each.
  const std::uint32_t tickets_in_run = kPersistent ? tiles + gridDim.x : tiles;
  const auto tile_begin = [](std::uint32_t tile) { return std::int64_t(tile) * Config::kTileItems; };
  const auto tile_valid = [n](std::uint32_t tile) {
    return static_cast<int>(min(Config::kTileItems, n - std::int64_t(tile) * Config::kTileItems));
  };

  // A single tile has no predecessor and no successor: it needs no ticket, no epoch and no
  // descriptor, and leaves the workspace untouched. Saves an atomic round trip before the loads
  // at the sizes where that round trip is a large share of the run.
  if (tiles == 1) {
    Tile::template scan_tile<T, Op>(in, out, static_cast<int>(n), exclusive);
    return;
  }

  __shared__ EpochTicket::Taken taken[2];  // double-buffered: the persistent loop takes one ahead
  if (threadIdx.x == 0) taken[0] = ticket.take(tickets_in_run);
  __syncthreads();
  state.epoch = taken[0].epoch;
  std::uint32_t tile = taken[0].ticket;

  if constexpr (!kPersistent) {
    Tile::template scan_tile<T, Op>(in + tile_begin(tile), out + tile_begin(tile), tile_valid(tile), exclusive,
                                    Carry{state, tile});
  } else {
    if (tile >= tiles) return;
    typename IO::Fetched current = IO::fetch(in + tile_begin(tile), tile_valid(tile), Op::template identity<T>());
    for (int slot = 1;; slot ^= 1) {
      // Thread 0 takes the next ticket now; the block reads it after the barriers of the tile
      // scan (every block scan has some before it returns). taken[slot] was last read two tiles
      // ago, with barriers since.
      if (threadIdx.x == 0) taken[slot] = ticket.take(tickets_in_run);
      typename IO::Fetched next;
      std::uint32_t next_tile = tiles;
      const auto prefetch_next = [&] {
        next_tile = taken[slot].ticket;
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
  static typename Config::template State<T> layout(WorkspaceCarver& carver, std::int64_t n, EpochTicket& ticket) {
    ticket.word = carver.take<unsigned long long>(1);
    typename Config::template State<T> state;
    state.layout(carver, ceil_div<std::int64_t>(n, Config::kTileItems));
    return state;
  }

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    WorkspaceCarver counter;
    EpochTicket ticket;
    layout<T>(counter, n, ticket);
    return counter.bytes();
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
    WorkspaceCarver carver(workspace.data);
    EpochTicket ticket;
    const auto state = layout<T>(carver, n, ticket);
    const std::int64_t tiles = ceil_div<std::int64_t>(n, Config::kTileItems);
    const std::int64_t grid = Config::kGrid == GridKind::Persistent ? std::min(tiles, resident_blocks<T, Op>()) : tiles;
    tuned_scan_kernel<Config, T, Op><<<static_cast<unsigned>(grid), Config::kThreads, 0, stream>>>(
        in, out, n, kind == ScanKind::Exclusive, state, ticket, static_cast<std::uint32_t>(tiles));
    ZOO_CHECK_LAUNCH();
  }
};

}  // namespace zoo
