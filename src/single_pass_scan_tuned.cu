// single_pass_scan_tuned -- decoupled look-back with every implementation decision a parameter,
// auto-tuned per input size on the GPU it runs on, in one launch per scan.
//
// Idea: the look-back scans of this zoo each fix one tile shape, one look-back and one
// descriptor, and each is best somewhere and worse elsewhere. Following the ScanBox thesis
// (Contini 2025: a tunable, portable decoupled look-back scan, tuned exhaustively per device and
// per input size) and CUB's per-architecture tuning policies, zoo::TunedConfig makes every
// decision a template parameter: threads per block, items per thread, vector width of global
// accesses, the block-level scan (warp scans, raking, Blelloch), the look-back (serial or warp
// window, with or without back-off), the descriptor (packed 64-bit or two-field) and the grid
// (one tile per block, or persistent with the next tile prefetched during the look-back). The
// tuner (tune/, `make tune`) measures all 1152 configurations at every power of two 2^10..2^30;
// scripts/tune_select.py keeps the smallest set with one within 1% of the fastest at each N and
// writes the table this binary dispatches on (src/common/tuned_table.cuh, bench/TUNING.md).
//
// One launch: every tile descriptor carries the run's epoch, a number the host gives each run of
// a workspace (zoo::RunEpochs, tuned_scan.cuh); a descriptor left by an earlier run reads as not
// yet published, so no reset kernel or memset runs before the scan, where CUB launches two
// kernels. A scan that fits in one tile uses no descriptor at all. Tiles are numbered by
// blockIdx.x, as in CUB: no atomic ticket before the first load.
//
// Work: O(N); depth: O(log tile) + the look-back. Launches: 1. Global traffic:
// 2 accesses per element, plus one 8-byte descriptor (in its own 32-byte sector) per tile:
// the bound is memcpy.
//
// Forward progress: a tile waits only on smaller tile indices. One tile per block relies on the
// hardware dispatching blocks in blockIdx.x order (NVIDIA GPUs do; CUB relies on it too); the
// persistent grid, on all of its blocks being resident at once (it is sized by the occupancy
// calculator).
//
// Constraints: any N (up to 2^31 - 1 tiles, the grid's limit); every type/operator/mode of 32-bit elements (the
// packed descriptor). The table is keyed by GPU name: measured on the NVIDIA H100 80GB HBM3;
// every other GPU gets the fallback configuration (best worst-case ratio to the ideal on the
// H100), until `make tune` is run there. The workspace must be zero before its first use (the
// harness zeroes it once, at allocation).
//
// In the charts: the zoo's fastest variant at every size of the sweep. On the H100 (51ec95a):
// faster than CUB at every power of two (CUB / this 1.13..1.75); 0.57..0.60 x CUB's time at
// 2^10..2^12 (one tile: one block's load, scan and store, one launch), 0.64..0.69 x at
// 2^13..2^16; 90.9% of memcpy at 2^26 and 92.3% at 2^28 (CUB 81%), where the look-back wait is
// what is left (bench/NOTES.md). The tuning charts (bench/tuning_*.png) show how the 1152
// configurations spread.
// Run: make bin/single_pass_scan_tuned && ./bin/single_pass_scan_tuned 2^28
#include "common/harness.cuh"
#include "common/tuned_dispatch.cuh"

// The harness's defaults, with the table-driven dispatch (tuned_dispatch.cuh).
struct TunedVariant : zoo::VariantDefaults, zoo::TunedDispatch {
  using TunedDispatch::kTileItems;
  using TunedDispatch::run;
  using TunedDispatch::workspace_bytes;
};

ZOO_MAIN(TunedVariant)
