// row_scan -- every row of a [rows, length] array scanned on its own, in one launch, for any row
// length: the library's scan along the last axis (include/scan_zoo/axis.cuh), torch.cumsum(x, -1).
//
// Idea: the rows laid end to end are one array, and scanning each row is a segmented scan of it
// with a segment starting every `length` elements. A segmented scan is a plain scan under a
// lifted operator on (value, row-start flag) pairs (Schwartz 1980; Blelloch 1990, "Prefix sums
// and their applications", section 1.5), so the tuned scan's one-launch look-back runs over the
// flattened array, lifted in the tiles where a row starts (include/scan_zoo/detail/rows_kernel.cuh). Tiles
// are cut from the flattened array, not from each row: every tile is whole and 16-byte aligned
// whatever the row length, and a tile that holds a row start publishes INCLUSIVE at once, so the
// look-back never walks past the nearest row start. The row starts are arithmetic (an index
// modulo the length, kept by an increment): no label is read.
//
// Work: O(N); depth: O(log tile) + the look-back (none past a row start). Barriers: 2 per tile.
// Launches: 1. Global traffic: 2 accesses per element (plus one 8-byte descriptor per tile): the
// bound is a copy of the same bytes, whatever the shape. The cost against the 1-D scan, in the
// tiles where a row starts: a bit per item for the flags, two-word shuffles, and more registers
// (3 blocks an SM where the tuned kernel holds 4).
//
// Forward progress: a tile waits only on smaller tile indices (blocks dispatched in blockIdx.x
// order, as the tuned scan and CUB rely on).
//
// Constraints: every type, operator and mode; any shape (N a whole number of rows: --row-length
// L, default one row of N); in place. Tiles of 256 x 32 items of 32 bits, 256 x 12 of 64 bits.
//
// In the charts: the rows sweep (% of a copy of the same bytes against the shape) beside CUB's
// scan-by-key over row ids (cub_row_scan_by_key), one CUB scan per row (cub_row_scans) and
// torch.cumsum(x, -1) (bench/NOTES.md, "Scans along an axis").
//
// Run: make bin/row_scan && ./bin/row_scan 2^20 --row-length 131072   (8 rows of 131072)
#include <scan_zoo/axis.cuh>

#include "../harness/harness.cuh"
#include "axis_problem.cuh"

namespace {

struct RowScan : zoo::VariantDefaults {
  static constexpr bool kHandsOverAcrossTiles = true;
  template <class T, class Op>
  using Problem = zoo::RowsScanProblem<T, Op>;
  using Types = zoo::AllTypes;
  // The tile of 32-bit accumulators; 64-bit ones take half as many items (RowsConfig).
  static constexpr std::int64_t kTileItems = scan_zoo::detail::RowsScan<std::int32_t>::Config::kTileItems;

  template <class T, class Op>
  static void run(const T* in, T* out, const scan_zoo::Shape& shape, zoo::ScanKind kind, zoo::Workspace,
                  cudaStream_t stream) {
    zoo::library_axis_scan<T, Op>(in, out, shape, kind, stream);
  }
};

}  // namespace

ZOO_MAIN(RowScan)
