// cub_scan -- NVIDIA CUB's cub::DeviceScan: the production scan the zoo measures itself against.
//
// Idea: CUB (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
// NVIDIA 2016) runs a single-pass scan: each block scans its tile in registers and shared
// memory, publishes its aggregate, and looks back over its predecessors' published state to find
// its prefix without waiting for a global barrier. Tile shapes are tuned per architecture.
//
// Work: O(N); depth: O(log tile) inside a block plus the look-back. Launches: 2 (a small kernel
// initialises the tile-state array, then the scan kernel). Global traffic: 2 accesses per element
// (plus a few bytes of tile state per tile), so its bound is memcpy (how near it comes, per GPU:
// bench/<gpu>/timing.txt).
//
// To give CUB its best path, sum maps to InclusiveSum / ExclusiveSum and max / min to CUB's own
// cuda::maximum / cuda::minimum (its tuning recognises those operators). The temporary storage
// size is queried and allocated by the harness outside the timed region (workspace_bytes).
//
// Constraints: every type/operator/mode of the harness; 64-bit N.
//
// In the charts: the dashed reference line; "ratio to CUB" in every table divides by this row.
//
// Run: make bin/cub_scan && ./bin/cub_scan 2^28
#include "../harness/harness.cuh"
#include "cub_reference.cuh"

// The harness's defaults, with CUB's workspace query and run, for every element type (the
// reference row of the 64-bit sweeps too).
struct CubVariant : zoo::VariantDefaults, CubScan {
  using Types = zoo::AllTypes;
  using CubScan::run;
  using CubScan::workspace_bytes;
};

ZOO_MAIN(CubVariant)
