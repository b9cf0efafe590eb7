// single_pass.cuh -- the single-pass scan kernel and variant struct shared by the domino chains
// and the decoupled look-back scans. One launch scans every tile (plus one memset that zeroes
// the tile state, both inside the timed run): each block scans its tile with a tile policy
// (tile_policies.cuh), obtains the tile's carry-in from the tile descriptors (the grid layer:
// include/scan_zoo/detail/grid/, src/grid/), and writes its output once. Global traffic: 2
// accesses per element plus a few bytes of descriptor per tile: the bound is memcpy.
//
// The kernel's steps, in the order the body does them (the tuned kernel's, tuned_kernel.cuh),
// for tile t and the decoupled look-back (Merrill & Garland 2016):
//   0. take the tile's number (TileOrder, below);
//   1. load the tile (the policy's Scan::load, tile_policies.cuh);
//   2. scan it on its own, and know its total (Scan::scan);
//   3. warp 0 publishes the total as AGGREGATE in descriptor t, at once, so that later tiles
//      may use it before t knows what comes before it (tile 0 has nothing before it and
//      publishes INCLUSIVE instead; the descriptor's word and its memory order, grid/protocol.cuh);
//   4. warp 0 looks back over descriptors t-1, t-2, ...: waits while one is INVALID, combines
//      the AGGREGATEs in order, stops at the first INCLUSIVE, whose value covers everything
//      before it (ChainedCarry: src/grid/chained_carry.cuh; SerialLookback one at a time: the
//      serial variant; WarpLookback 32 per step: grid/lookback.cuh);
//   5. warp 0 publishes carry-in op total as INCLUSIVE in descriptor t, ending the walks of later
//      tiles there, and a barrier hands the carry-in to the block (steps 3-5 are the carry
//      source's get(), one call);
//   6. put the carry-in in front of every element of the tile and store it
//      (Scan::prepend_and_store).
// The domino chains (ChainedCarry) skip step 3 and wait in step 4 for t-1's INCLUSIVE alone.
//
// Tile order (which tile a block scans) decides forward progress:
//   TileOrder::BlockIndex  tile = blockIdx.x. A tile waits on lower tiles, which the hardware is
//                          not obliged to have started: if every resident block waits on a block
//                          that is not resident, nothing moves. It works in practice because
//                          NVIDIA GPUs dispatch the blocks of a 1-D grid in increasing order.
//   TileOrder::Ticket      tile = a ticket taken from a global counter when the block starts.
//                          Tile k - 1's ticket was taken earlier, so its block is already
//                          running; it waits only on tiles below it, so by induction on the
//                          ticket, every tile finishes, given that running blocks keep being
//                          scheduled (true of NVIDIA GPUs; not a CUDA-language guarantee).
#pragma once

#include <scan_zoo/detail/grid/lookback.cuh>
#include <cuda/atomic>

#include <cstdint>

#include "../blocks/block_scan.cuh"
#include "../blocks/tile_policies.cuh"
#include "../blocks/warp_scan.cuh"
#include "../core/cuda_check.cuh"
#include "../core/test_hooks.cuh"
#include "../core/variant.cuh"
#include "../grid/chained_carry.cuh"
#include "../grid/run_epochs.cuh"

namespace zoo {

enum class TileOrder { BlockIndex, Ticket };

// The tile of every decoupled look-back variant, so that they differ only in the look-back and
// the descriptor: 128 threads x 24 items (3072), the shape CUB tunes for 4-byte scans on sm_90.
// 48 registers with tile_io.cuh's opaque thread index (72 without it), 10 blocks a SM (the
// serial look-back is bound to 12 with 40: see its file). On the H100 it beat 256 x 16 at 2^28
// with the same back-off (the warp window; bench/NOTES.md, "The single-pass family").
using LookbackTile = CoarsenedTile<128, 24, WarpBlockScan<128, ShuffleWarpScan>>;

// MinBlocksPerSm: __launch_bounds__'s second argument, 0 (none) but for the serial look-back
// (see its file).
template <class Tile, template <class> class State, template <class> class CarrySource, TileOrder Order,
          int MinBlocksPerSm, class T, class Op>
__global__ void __launch_bounds__(Tile::kThreads, MinBlocksPerSm)
    single_pass_scan_kernel(const T* in, T* out, std::int64_t n, bool exclusive, State<T> state,
                            unsigned* ticket) {
  // 0. The tile's number.
  std::int64_t tile = blockIdx.x;
  if constexpr (Order == TileOrder::Ticket) {
    __shared__ unsigned taken;
    if (threadIdx.x == 0) taken = DeviceAtomic<unsigned>(*ticket).fetch_add(1u, cuda::memory_order_relaxed);
    __syncthreads();
    tile = taken;
  }
  if (tile == g_silent_tile) return;  // test-only (--inject-hang): never publishes
  const std::int64_t tile_begin = tile * Tile::kTileItems;
  const int valid = tile_extent(tile_begin, n, Tile::kTileItems);
  const T* tile_in = in + tile_begin;
  T* tile_out = out + tile_begin;

  // 1-2. Load the tile and scan it on its own.
  typename Tile::template Scan<T, Op> block;
  block.load(tile_in, valid);
  const T total = block.scan(exclusive);

  // 3-5. Publish the aggregate, look back, publish the inclusive value; the carry-in to all.
  const T carry = CarrySource<State<T>>{state, tile}.template get<T, Op>(total);

  // 6. The carry-in in front of every element, and out.
  block.prepend_and_store(carry, exclusive, tile_out, valid);
}

template <class Tile, template <class> class State, template <class> class CarrySource, TileOrder Order,
          int MinBlocksPerSm = 0>
struct SinglePassVariant : VariantDefaults {
  static constexpr std::int64_t kTileItems = Tile::kTileItems;
  // Every element type the descriptor can carry: any (the two-field descriptor), the 32-bit ones
  // (the packed 64-bit word), or the defaults (the 30-bit word, which then waives float itself).
  using Types = std::conditional_t<State<std::int64_t>::kUnsupported == nullptr, AllTypes,
                                   std::conditional_t<State<std::uint32_t>::kUnsupported == nullptr,
                                                      ThirtyTwoBitTypes, DefaultTypes>>;
  static constexpr bool kHasSilentTile = true;
  static constexpr bool kHandsOverAcrossTiles = true;

  template <class T, class Op>
  static const char* unsupported_reason(ScanKind) { return State<T>::kUnsupported; }

  // The whole workspace is tile state: the ticket, then the descriptors. Zeroed in every run.
  template <class T>
  static State<T> layout(WorkspaceCarver& carver, std::int64_t n, unsigned*& ticket) {
    ticket = carver.take<unsigned>(1);
    State<T> state;
    state.layout(carver, ceil_div<std::int64_t>(n, kTileItems));
    return state;
  }

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return bytes_of_layout([&](WorkspaceCarver& counter) {
      unsigned* ticket;
      layout<T>(counter, n, ticket);
    });
  }

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, ScanKind kind, Workspace workspace, cudaStream_t stream) {
    WorkspaceCarver carver(workspace.data);
    unsigned* ticket;
    const State<T> state = layout<T>(carver, n, ticket);
    ZOO_CUDA(cudaMemsetAsync(workspace.data, 0, workspace.bytes, stream));
    const std::int64_t tiles = ceil_div<std::int64_t>(n, kTileItems);
    single_pass_scan_kernel<Tile, State, CarrySource, Order, MinBlocksPerSm, T, Op>
        <<<static_cast<unsigned>(tiles), Tile::kThreads, 0, stream>>>(in, out, n, kind == ScanKind::Exclusive,
                                                                      state, ticket);
    ZOO_CHECK_LAUNCH();
  }

  template <class T, class Op>
  static const char* refusal_after_run(std::int64_t n, Workspace workspace, cudaStream_t stream) {
    WorkspaceCarver carver(workspace.data);
    unsigned* ticket;
    return descriptor_refusal_after_run(layout<T>(carver, n, ticket), stream);
  }
};

}  // namespace zoo
