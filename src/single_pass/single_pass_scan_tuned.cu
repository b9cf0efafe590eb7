// single_pass_scan_tuned -- the zoo's fastest scan: a one-launch decoupled look-back over
// register-resident tiles, its open decisions tuned per GPU and per input size.
//
// Idea: single_pass_scan_decoupled_lookbacks_register_tile (the tile in registers from load to
// store, two barriers per tile) with the look-back's decisions left to measurement. Following the
// ScanBox thesis (Contini 2025: a tunable, portable decoupled look-back scan, tuned exhaustively
// per device and per input size) and CUB's per-architecture tuning policies, zoo::TunedConfig
// (include/scan_zoo/detail/tuned_kernel.cuh) makes them template parameters: the tile (threads x items), the
// publish instruction (store, exchange, exchange + fence), the descriptor stride (dense or one
// per 32-byte sector), descriptors per lane per poll, the back-off (spin or sleep), and whether
// the aggregate goes out before the warps scan (early: warp 0 looks back while the others scan)
// or after. The tuner (tune/, `make tune`) measures all 864 configurations of tuned_space.cuh at
// every power of two 2^10..2^30 on the GPU it runs on; tune/tune_select.py keeps, per GPU, the
// smallest set with one within 1% of the fastest at each N and writes the tables this binary
// dispatches on (include/scan_zoo/detail/tuned_table.cuh, bench/<gpu>/TUNING.md).
//
// Which table: this GPU's by device name; a GPU nobody measured borrows the table of a measured
// GPU with the same compute capability and the nearest SM count and memory bandwidth; any other
// GPU runs the fallback configuration, the one with the best worst case over every N of every
// measured GPU among those never slower than CUB there (tuned_dispatch.cuh).
//
// One launch: every tile descriptor carries the run's epoch, a number the host gives each run of
// a workspace (scan_zoo::Workspace, include/scan_zoo/scan.cuh); a descriptor left by an earlier run reads as not
// yet published, so no reset kernel or memset runs before the scan, where CUB launches two
// kernels. A scan that fits in one tile uses no descriptor at all. Tiles are numbered by
// blockIdx.x, as in CUB: no atomic ticket before the first load.
//
// Work: O(N); depth: O(log tile) + the look-back. Barriers: 2 per tile. Launches: 1. Global
// traffic: 2 accesses per element, plus one 8-byte descriptor per tile (16 bytes for 64-bit
// elements): the bound is memcpy.
//
// Forward progress: a tile waits only on smaller tile indices, and relies on the hardware
// dispatching blocks in blockIdx.x order (NVIDIA GPUs do; CUB relies on it too).
//
// Constraints: any N (up to 2^31 - 1 tiles, the grid's limit); every type, operator and mode
// (32-bit elements use the packed descriptor, elements of 8 to 32 bytes one packed word a
// 4-byte piece, others the two-field one). This binary is a thin
// user of the library API, include/scan_zoo/scan.cuh: it times what a user's call runs.
//
// In the charts: the zoo's fastest variant, against CUB and memcpy on each GPU (the README's
// table, docs/results.md; bench/NOTES.md, "Register-resident tiles" and "What limits the
// tuned scan"). The tuning charts (bench/<gpu>/tuning_*.png) show how the configurations spread.
// Run: make bin/single_pass_scan_tuned && ./bin/single_pass_scan_tuned 2^28
#include <scan_zoo/scan.cuh>

#include "../harness/harness.cuh"
#include "../single_pass/tuned_scan.cuh"

// A thin user of the library (include/scan_zoo/scan.cuh), so that the binary times what a user's
// call runs. The library keeps its own workspace (one per element type and operator, grown on the
// first, untimed verified run of a larger N); the harness's is not needed.
struct TunedVariant : zoo::VariantDefaults {
  static constexpr bool kHandsOverAcrossTiles = true;
  using Types = zoo::AllTypes;  // the library takes any element type
  static constexpr std::int64_t kTileItems = zoo::TunedDispatch::kTileItems;
  // No kHasSilentTile: the library's kernel carries no test hook, so --inject-hang hangs the
  // harness's stand-in kernel in front of the scan.

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, zoo::ScanKind kind, zoo::Workspace, cudaStream_t stream) {
    static scan_zoo::Workspace workspace;
    ZOO_CUDA(kind == zoo::ScanKind::Inclusive
                 ? scan_zoo::inclusive_scan(in, out, n, Op{}, workspace, stream)
                 : scan_zoo::exclusive_scan(in, out, n, Op::template identity<T>(), Op{}, workspace, stream));
  }
};

ZOO_MAIN(TunedVariant)
