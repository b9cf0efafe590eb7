// hierarchical_warp_smem -- the CUDA Handbook's shared-memory warp scan with identity padding,
// made correct for independent thread scheduling, as the block scan of the hierarchy.
//
// Idea (Wilt, "The CUDA Handbook", 2013, section 13.5): before warp shuffles existed, a warp
// scanned 32 values in shared memory: in step k lane i adds slot i - 2^k. Placing 16 identity
// slots in front of each warp's 32 lets every lane read slot i - 2^k unconditionally (the lanes
// below 2^k read the identity: zero for a sum), which removes the `lane >= offset` branches.
// What the original relied on: a warp executing in lockstep, accessed through a volatile
// pointer, so that all 32 reads of a step happen before any write. Since Volta, independent
// thread scheduling lets lanes of one warp drift apart, and that code races. What changed here:
// each step reads into a register, meets the warp at __syncwarp(), writes, and meets it again
// (zoo::SmemWarpScan in src/blocks/warp_scan.cuh); and the padding holds the operator's identity,
// not zero, so max and min work too. Otherwise this is hierarchical_warp_shuffle with the
// shuffles replaced: one 16-byte vector per thread, warp 0 scans the warp totals.
//
// Cost per 1024-element tile (256 threads x 4): 2 x 1024 serial combines + 2 x 5 warp steps,
// each two shared-memory accesses and two __syncwarp; 2 barriers. Launches: 5 at N = 2^28.
// Global traffic: 4 accesses per element: at best 50% of memcpy bandwidth.
//
// Constraints: any N, every type/operator/mode. Tile = 4 x 256 items.
// Pieces: zoo::CoarsenedTile, zoo::WarpBlockScan + zoo::SmemWarpScan.
//
// In the charts: on top of hierarchical_warp_shuffle at large N (both are memory-bound); the
// shared-memory steps show only where the kernel is latency-bound.
//
// Run: make bin/hierarchical_warp_smem && ./bin/hierarchical_warp_smem 2^28
#include "../blocks/tile_policies.cuh"
#include "../harness/harness.cuh"
#include "hierarchy.cuh"

using WarpSmemTile = zoo::CoarsenedTile<256, 4, zoo::WarpBlockScan<256, zoo::SmemWarpScan>>;

ZOO_MAIN(zoo::HierarchicalVariant<WarpSmemTile>)
