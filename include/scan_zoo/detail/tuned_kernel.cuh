// scan_zoo/detail/tuned_kernel.cuh -- the library's scan: a one-launch decoupled look-back over
// register-resident tiles, with every decision that the measurements left open a compile-time
// parameter (TunedConfig). The library (scan.cuh) picks a configuration per GPU and per N from a
// measured table (tuned_table.cuh, tuned_dispatch.cuh); the zoo's tuner (tune/) measures every
// configuration of the space (tuned_space.cuh), compiled in many translation units.
//
// The kernel, top to bottom (tuned_scan_kernel below):
//   1. load the tile into registers, warp-contiguous vectors of up to 16 bytes, each element
//      converted from In to Acc (register_tile.cuh);
//   2. scan each warp's run with thread-serial steps and shuffles;
//   3. combine the warp totals through shared memory: one barrier, and the tile total is known;
//   4. warp 0 publishes the AGGREGATE, looks back over the predecessors' descriptors and
//      publishes the INCLUSIVE value (grid/lookback.cuh, grid/descriptors.cuh); a deterministic scan
//      (ScanArgs::fixed_order()) looks back in a fixed order instead, so that a floating-point
//      scan gives the same bits every run;
//   5. a second barrier hands the carry-in to every thread;
//   6. put the carry-in and the warps before in front of every item, and store, each converted
//      from Acc to Out; the last tile writes the grand total when the caller asked for it.
// The scan's types and form travel as one kernel argument, ScanArgs (below): In, Out and Acc,
// the operator by value (its state reaches every thread), whether the scan is exclusive, what
// stands in front of element 0, and the direction: a reverse scan numbers its tiles from the end
// of the array and reads and writes each tile backwards (TileOrder, register_tile.cuh), so that
// steps 2-6 are the same code.
//
// The parameters:
//   Threads, Items   the tile: Threads x Items elements, Items per thread in registers
//   How              the publish instruction: Store, Exchange, ExchangeFence (grid/protocol.cuh)
//   Stride           64-bit words from one descriptor to the next: 1 (dense, four to a 32-byte
//                    sector) or 4 (each in its own sector)
//   PerLane          descriptors each lane of the look-back warp reads per poll: 1 (a window of
//                    32 tiles) or 2 (64)
//   SleepNs          the back-off: 0 spins; otherwise sleep SleepNs before the first poll and
//                    SleepNs / 2 between polls (grid/lookback.cuh)
//   When             when the aggregate is published. AfterScan: steps 1-6 as above. Early:
//                    each warp first only reduces its run (a shuffle reduction per round,
//                    cheaper than the scan), the aggregate goes out after the first barrier,
//                    and the other warps scan their runs while warp 0 looks back; warp 0 scans
//                    its own run afterwards.
// What is no longer a parameter, and why (measured in the space before this one, bench/NOTES.md
// "The tuned scan, first space"): one tile per block (a persistent grid lost at every N from 2^16
// on), the warp window (the serial walk lost), the packed 64-bit descriptor (the two-field one
// lost), and the tile's arrangement (the zoo's transposing blocked tiles, src/blocks/tile_io.cuh,
// slower than register-resident ones at every N in the same look-back: bench/NOTES.md,
// "Register-resident tiles").
//
// One launch: CUB, and the other single-pass variants, launch twice per scan: a kernel (or
// memset) that resets the tile descriptors, then the scan. Here every descriptor carries the
// run's epoch (grid/epochs.cuh), a number the host gives each run of a workspace (the library's
// scan_zoo::Workspace keeps it; the zoo's harness, RunEpochs), and a descriptor of
// another epoch reads as "not yet published": the previous run's leftovers need no reset. The
// workspace must be zero when first used. A scan of one tile uses no descriptor.
//
// No ticket: tiles are numbered by blockIdx.x, as in CUB; an atomic ticket costs every block a
// round trip before its first load (bench/NOTES.md, "The tuned scan, first space").
//
// Forward progress: a tile waits only on tiles with smaller indices, and relies on the hardware
// dispatching blocks in blockIdx.x order, so that every block a running block waits on has been
// started (true of NVIDIA GPUs and relied on by CUB's scan; not a CUDA-language guarantee).
//
// Memory model: for 32-bit values the descriptor is one 64-bit word (status, epoch, value)
// written and read with relaxed atomics, whichever the publish instruction: a reader sees a whole
// word, and a tile's output depends only on its input and the words it read. Values of 8 to 32
// bytes in 4-byte pieces take a word a piece, each with the whole tag, believed only when the
// tags agree. Any other T uses the two-field descriptor: value slots, then a status word
// published with release and polled with acquire (grid/descriptors.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core.cuh"
#include "grid/epochs.cuh"
#include "grid/lookback.cuh"
#include "register_tile.cuh"
#include "scratch.cuh"
#include "grid/descriptors.cuh"
#include "warp.cuh"

namespace scan_zoo::detail {

enum class Aggregate { AfterScan, Early };

template <int Threads, int Items, Publish How, int Stride, int PerLane, int SleepNs, Aggregate When>
struct TunedConfig {
  static constexpr int kThreads = Threads;
  static constexpr int kItems = Items;
  static constexpr std::int64_t kTileItems = std::int64_t(Threads) * Items;
  static constexpr Publish kPublish = How;
  static constexpr int kDescriptorStride = Stride;
  static constexpr int kPerLane = PerLane;
  static constexpr int kSleepNs = SleepNs;
  static constexpr Aggregate kAggregate = When;

  using Tile = RegisterTile<Threads, Items>;
  // 32-bit values share one 64-bit word with their status; values of 8 to 32 bytes in 4-byte
  // pieces (int64, double, a row of a few floats) take one such word a piece; any other T (a
  // user's struct) gets the two-field descriptor, a status word and value slots (grid/descriptors.cuh).
  template <class T>
  using State = std::conditional_t<
      sizeof(T) == 4, PackedTileState64<T, Stride, How>,
      std::conditional_t<kTaggedWords<T>, PackedTileStatePieces<T, Stride, How>, TwoFieldTileState<T, How>>>;
  using Backoff = SleepBackoff<SleepNs, SleepNs / 2>;
  template <class T>
  using Lookback = WarpLookback<State<T>, Backoff, PerLane>;
};

// What stands in front of element 0: `initial` (the identity, or the caller's initial value),
// or, when `initial_in_memory` is set, the value there, read when the scan runs (written by an
// earlier kernel in the same stream); then the totals of `earlier_count` arrays scanned before
// this one, in their order. The sharded scan (include/scan_zoo/multi_gpu.cuh) passes the totals
// of the earlier GPUs' shards, gathered into device memory by NCCL, so that no host round trip
// sits between the exchange and the scan and the carry costs no pass of its own: tile 0 folds it
// while it loads.
template <class T>
struct ScanFront {
  T initial;
  const T* earlier_totals = nullptr;
  std::uint32_t earlier_count = 0;
  const T* initial_in_memory = nullptr;

  template <class Op>
  __device__ T fold(const Op& op) const {
    T value = initial_in_memory ? *initial_in_memory : initial;
#pragma unroll 1  // a few totals, once per scan: unrolled, the loop cost the 64-bit tiles a spill
    for (std::uint32_t i = 0; i < earlier_count; ++i) value = op(value, earlier_totals[i]);
    return value;
  }
};

// One scan as the kernel sees it. In, Out: the element types in memory; Acc: the type the scan
// computes in (registers and descriptors; the loads convert In to Acc, the stores Acc to Out);
// Op: the operator, copied to the kernel by value with its state; Reverse: a suffix scan (the
// elements are read and written from the end, TileOrder in register_tile.cuh); Order: which
// look-back (grid/lookback.cuh: the nearest-INCLUSIVE one, the fixed-order one that gives the
// same bits in every run, or both with `fixed_at_run` choosing). Both are compile-time, so that
// the default kernel carries nothing of the other forms. `total`, when set, receives the
// reduction of everything (the front included) as an Out.
template <class In, class Out, class Acc, class Op, bool Reverse = false, LookbackOrder Order = LookbackOrder::Nearest>
struct ScanArgs {
  using InT = In;
  using OutT = Out;
  using AccT = Acc;
  using OpT = Op;
  static constexpr bool kReverse = Reverse;
  static constexpr LookbackOrder kOrder = Order;

  typename InputPointer<In>::type in;    // const In*, or two arrays read as one (zip.cuh)
  typename OutputPointer<Out>::type out;  // Out*, or a value and an index array (indexed_elements.cuh)
  std::int64_t n;
  bool exclusive;
  ScanFront<Acc> front;
  Op op;
  Out* total = nullptr;
  bool fixed_at_run = false;  // under LookbackOrder::ChosenAtRun: the fixed-order look-back this launch

  // Whether this launch looks back in the fixed order: a constant unless Order is ChosenAtRun.
  __host__ __device__ constexpr bool fixed_order() const {
    return Order == LookbackOrder::Fixed || (Order == LookbackOrder::ChosenAtRun && fixed_at_run);
  }
};

// The carry-in goes into tile 0's carry and into the inclusive value tile 0 publishes.
template <class Config, class Args>
__global__ void __launch_bounds__(Config::kThreads)
    tuned_scan_kernel(Args args, typename Config::template State<typename Args::AccT> state, std::uint32_t tiles) {
  using Tile = typename Config::Tile;
  using Acc = typename Args::AccT;
  using Op = typename Args::OpT;
  using Order = TileOrder<Tile::template kVectorOfBoth<typename Args::InT, typename Args::OutT>, Args::kReverse>;
  constexpr int V = Order::kVector;
  constexpr bool kEarly = Config::kAggregate == Aggregate::Early;
  const Op& op = args.op;
  const std::uint32_t tile = blockIdx.x;
  const std::int64_t begin = std::int64_t(tile) * Config::kTileItems;
  const int valid = tile_extent(begin, args.n, Config::kTileItems);
  // Forward, the tile starts at element `begin`; reversed, it ends where element n - 1 - begin is.
  const std::int64_t at = Args::kReverse ? args.n - begin : begin;
  Acc items[Config::kItems];

  // 1-3. Load, scan each warp's run (Early: only reduce it for now), combine the warp totals.
  Tile::load(args.in + at, valid, items, op.template identity<Acc>(), Order{});
  const Acc warp_total = kEarly ? Tile::template reduce_warp<Acc, Op, V>(items, op)
                                : Tile::template scan_warp<Acc, Op, V>(items, args.exclusive, op);
  const typename Tile::template BlockTotals<Acc> totals = Tile::template combine_warps<Acc, Op>(warp_total, op);

  // 4-5. Publish the aggregate, look back, publish the inclusive value (warp 0; a single tile has
  // no one to tell and nothing before it), and hand the carry-in to the block.
  Acc carry = op.template identity<Acc>();
  if (tiles > 1) {
    __shared__ Acc shared_carry;
    if (warp_id() == 0) {
      const Acc first = tile == 0 ? args.front.fold(op) : carry;
      const Acc published = tile == 0 ? op(first, totals.tile) : totals.tile;
      const typename Config::template Lookback<Acc> lookback{state, tile};
      const Acc prefix = lookback.template get_in_warp0<Acc, Op>(published, op, args.fixed_order());
      if (lane_id() == 0) shared_carry = tile == 0 ? first : prefix;
    }
    if constexpr (kEarly) Tile::template scan_warp<Acc, Op, V>(items, args.exclusive, op);  // warp 0 after its look-back
    __syncthreads();
    carry = shared_carry;
  } else {
    carry = args.front.fold(op);
    if constexpr (kEarly) Tile::template scan_warp<Acc, Op, V>(items, args.exclusive, op);
  }

  // 6. Everything before this thread's items in front of them, and out; the last tile also
  // writes the grand total when asked.
  Tile::template prepend<Acc, Op>(items, op(carry, totals.before_warp), op);
  Tile::store(args.out + at, valid, items, Order{});
  if (args.total && tile == tiles - 1 && threadIdx.x == 0)
    *args.total = static_cast<typename Args::OutT>(op(carry, totals.tile));
}

// One configuration's scratch memory and launch.
template <class Config>
struct TunedScan {
  template <class Acc>
  using Descriptors = EpochTileState<typename Config::template State<Acc>>;

  template <class Acc>
  static std::size_t workspace_bytes(std::int64_t n) {
    return Descriptors<Acc>::workspace_bytes(ceil_div<std::int64_t>(n, Config::kTileItems));
  }

  // One scan with the epoch the caller chose for this run of the workspace (one no descriptor
  // in it holds; unused when the scan fits one tile); returns the launch's error.
  template <class Args>
  static cudaError_t launch(const Args& args, Scratch scratch, std::uint32_t epoch, cudaStream_t stream) {
    if (args.n == 0) return cudaSuccess;  // nothing to scan, and a grid of zero blocks is a launch error
    const std::int64_t tiles = ceil_div<std::int64_t>(args.n, Config::kTileItems);
    const auto state = Descriptors<typename Args::AccT>::for_run(scratch, tiles, epoch);
    tuned_scan_kernel<Config, Args><<<static_cast<unsigned>(tiles), Config::kThreads, 0, stream>>>(
        args, state, static_cast<std::uint32_t>(tiles));
    return cudaGetLastError();
  }
};

}  // namespace scan_zoo::detail
