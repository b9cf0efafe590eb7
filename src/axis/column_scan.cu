// column_scan -- every column of a [rows, columns] array scanned on its own, down its rows, in one
// launch: the library's scan along the first (or a middle) axis (include/scan_zoo/axis.cuh),
// torch.cumsum(x, 0).
//
// Idea: memory runs along a row and the scan down a column, so a tile is a band of rows of a
// block of columns, copied into shared memory a row at a time, or as the 16-byte pieces of its
// bytes where it is one run of memory (cp.async, consecutive threads on consecutive bytes: whole
// sectors, with no register held while they travel), and each thread scans its columns down a
// chunk of rows there, a serial scan per column. The chunks of a tile meet in row order
// (shuffles between lanes of the same columns, then one word per warp and column in shared
// memory), and the bands of a column block talk through a decoupled look-back
// (Merrill & Garland 2016) whose descriptor holds a value per column beside its status in one
// word: the whole block reads a window of bands at once, a band a chunk, in one round trip
// (include/scan_zoo/detail/columns_kernel.cuh). A warp's lanes form groups of at most 8 (a tile
// is 32 float32 wide), each scanning its own chunk of rows.
//
// Work: O(N); depth: O(rows of a chunk) + O(log tiles of a band) + the look-back. Barriers: 3 per
// tile (4 where the tile is narrower than a 32-byte sector: its results go back through shared
// memory, to leave in whole sectors) and 2 per window of the look-back. Launches: 1. Global
// traffic: 2 accesses per element; the descriptors (a word per column and tile, published twice,
// and a window's words read from L2 by whole sectors, a quarter of the tile's bytes for float32)
// stay in L2: the bound is a copy of the same bytes, whatever the shape.
//
// Forward progress: a tile waits only on the bands above it, smaller tile indices (blocks
// dispatched in blockIdx.x order, as the tuned scan and CUB rely on).
//
// Two to four columns take another road in the library: each row is one item (8 to 16 bytes) of
// the 1-D kernel's scan, or for two columns of a middle axis the row kernel's
// (include/scan_zoo/detail/narrow_columns.cuh), the operator applied column by column, which moves
// whole vectors straight through registers where the column kernel would stage single elements
// (bench/NOTES.md, "Scans along an axis").
//
// Constraints: every type, operator and mode; any shape (N a whole number of rows: --columns C,
// default one column of N); in place. 16-byte vectors where C is a multiple of the vector's
// elements and leaves a lane group two lanes, else half of that where it does, else single
// elements (float32: 4 and 6 columns go by pairs, 3 one by one; 2 to 4 as row items where they can, above). One tile configuration
// (256 threads, 192 bytes a thread of the wider of input and accumulator, groups of at most 8
// lanes, 4 blocks an SM).
//
// In the charts: the columns sweep (% of a copy of the same bytes against the shape) beside one
// CUB scan per column (cub_column_scans) and torch.cumsum(x, 0) (bench/NOTES.md, "Scans along an
// axis").
//
// Run: make bin/column_scan && ./bin/column_scan 2^23 --columns 64   (131072 rows of 64)
#include <scan_zoo/axis.cuh>

#include "../harness/harness.cuh"
#include "axis_problem.cuh"

namespace {

struct ColumnScan : zoo::VariantDefaults {
  static constexpr bool kHandsOverAcrossTiles = true;
  template <class T, class Op>
  using Problem = zoo::ColumnsScanProblem<T, Op>;
  using Types = zoo::AllTypes;

  template <class T, class Op>
  static void run(const T* in, T* out, const scan_zoo::Shape& shape, zoo::ScanKind kind, zoo::Workspace,
                  cudaStream_t stream) {
    zoo::library_axis_scan<T, Op>(in, out, shape, kind, stream);
  }
};

}  // namespace

ZOO_MAIN(ColumnScan)
