// scan_zoo/detail/columns_kernel.cuh -- a scan along the middle axis of an [outer, length, inner]
// array with inner > 1: every column of each [length, inner] slab scanned on its own, down its
// rows (torch.cumsum(x, 0) of a matrix), in one launch.
//
// Idea: the memory runs along a row, the scan down a column. So a tile is a band of rows of a
// block of columns, loaded a row at a time (each lane V consecutive columns of it, a warp's
// lanes side by side: whole sectors), and each thread scans its columns down a chunk of rows in
// registers, a serial scan per column, which is all the work there is. The chunks of a tile are
// combined in row order (shuffles between the lanes of the same columns, then one word per warp
// and column in shared memory), and the bands of a column block talk through a decoupled
// look-back (Merrill & Garland 2016) whose descriptor holds a value per column.
//
// The layout of the threads over a tile (ColumnGeometry): lanes in groups of `group_lanes` (at
// most kGroupLanes, 8), each lane V consecutive columns, so that a group spans the tile's `width` =
// group_lanes x V columns (32 float32, 128 bytes of a row: wider arrays have several column
// blocks, each its own chain of bands); a warp holds 32 / group_lanes groups, each scanning its
// own chunk of rows (128 bytes of accumulators a thread: 8 rows of 4 float32, 32 of one), so
// that narrow arrays (inner of 2, 3, 8) keep every lane busy. Chunk c of a tile covers its rows
// c x (rows a chunk) onwards, in scan order: warp-major, then group.
// Why narrow tiles: a window of the look-back reads a band's descriptor (a value per column) per
// chunk, so its bytes grow with the width while the bands it covers do not; 8-lane groups
// measured best beside 4 and 32 (bench/NOTES.md, "Scans along an axis").
//
// The kernel, top to bottom (columns_scan_kernel below):
//   1. load the thread's chunk: a row at a time, V columns of it (one 16-byte vector where the
//      columns allow: V divides inner), each element converted from In to Acc;
//   2. scan each column down the chunk in registers (the thread's total per column);
//   3. combine the chunks: the groups of a warp with shuffles (Kogge-Stone across groups), the
//      warps through shared memory (one barrier): each thread has the reduction of the rows
//      before its chunk in the tile, and the tile's total, per column;
//   4. warp 0's first group publishes the tile's totals (AGGREGATE; the first band INCLUSIVE,
//      with the initial value in front);
//   5. every thread looks back at once, a band above the tile a chunk (one round trip for a
//      window of as many bands as the tile has chunks), the window is reduced per column in band
//      order as the chunks were in step 3, and the walk goes on up until every column has met an
//      INCLUSIVE band; warp 0's first group publishes the INCLUSIVE values, and a barrier hands
//      the carry-in to every thread;
//   6. put the carry-in and the chunks before in front of every item, and store; the last band
//      writes each column's total when asked.
// Reverse scans run each column from its last row: the bands and chunks count rows from the end.
//
// The descriptor (ColumnTileState): per tile and column, the value in 64-bit words each beside
// the epoch-tagged status (tile_state.cuh), relaxed atomics on one word at a time, as the tuned
// scan's packed descriptors are: no fence, and one round trip for a value and its flag. A first
// version, a status word per tile and value slots ordered by release/acquire, read by warp 0
// alone, four bands' reads in flight per lane, ran at 30-41% of copy (bench/NOTES.md, "Scans
// along an axis").
//
// Forward progress: a tile waits only on tiles with smaller indices (the bands above it, in the
// same slab and column block), relying on blocks being dispatched in blockIdx.x order, as the
// tuned scan does.
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstdint>

#include "core.cuh"
#include "scratch.cuh"
#include "tile_state.cuh"
#include "tuned_kernel.cuh"
#include "vector_access.cuh"
#include "warp.cuh"
#include "zip.cuh"

namespace scan_zoo::detail {

template <int Threads, int ChunkBytes, int GroupLanes, int BlocksPerSm>
struct ColumnsConfig {
  static constexpr int kThreads = Threads;
  static constexpr int kWarps = Threads / kWarpSize;
  static constexpr int kGroupLanes = GroupLanes;    // the most lanes a group: a tile is at most kGroupLanes x V wide
  static_assert(GroupLanes >= 1 && GroupLanes <= kWarpSize, "a group is at most a warp");
  static constexpr int kBlocksPerSm = BlocksPerSm;  // __launch_bounds__
  // A chunk's rows: ChunkBytes of accumulators a thread (32-bit ones counted as 4 bytes at least).
  __host__ __device__ static constexpr int rows_per_chunk(int vector, int acc_bytes) {
    const int rows = ChunkBytes / (vector * (acc_bytes < 4 ? 4 : acc_bytes));
    return rows > 0 ? rows : 1;
  }
};

// 256 threads, 128 bytes a chunk, groups of at most 8 lanes, 2 blocks a SM (the 32-bit tiles
// compile to 80-112 registers): the best of the variants in bench/NOTES.md, "Scans along an axis".
using ColumnsDefaultConfig = ColumnsConfig<256, 128, 8, 2>;

// How a tile's threads cover an [outer, length, inner] array (the top of this file).
struct ColumnGeometry {
  std::int64_t outer, length, inner;
  int vector;               // V: columns a lane loads at once
  int group_lanes;          // lanes a group, each V columns
  int groups;               // groups a warp, each its own chunk of rows
  int width;                // columns a tile: group_lanes x V
  std::int64_t tile_rows;   // rows a tile: warps x groups x rows a chunk
  std::int64_t bands;       // tiles down a slab
  std::int64_t column_blocks;  // tiles across a slab

  template <class Config>
  static ColumnGeometry make(std::int64_t outer, std::int64_t length, std::int64_t inner, int vector, int acc_bytes) {
    ColumnGeometry g{outer, length, inner, vector, 0, 0, 0, 0, 0, 0};
    const std::int64_t vectors = ceil_div<std::int64_t>(inner, vector);
    g.group_lanes = static_cast<int>(vectors < Config::kGroupLanes ? vectors : Config::kGroupLanes);
    g.groups = kWarpSize / g.group_lanes;
    g.width = g.group_lanes * vector;
    g.tile_rows = std::int64_t(Config::kWarps) * g.groups * Config::rows_per_chunk(vector, acc_bytes);
    g.bands = ceil_div<std::int64_t>(length, g.tile_rows);
    g.column_blocks = ceil_div<std::int64_t>(inner, g.width);
    return g;
  }
  std::int64_t tiles() const { return outer * bands * column_blocks; }
};

// The descriptors of the column scan: per tile and column, that column's value as kWords 32-bit
// pieces, each in a 64-bit word beside the tagged status (tile_state.cuh's PackedTileState128,
// for a value of any size). A reader believes a column's value only when the tags of its words
// agree (same status, same epoch: a tile publishes AGGREGATE once and INCLUSIVE once a run), so
// every access is a relaxed atomic on one word, the value travels with its flag, and a reader
// needs one round trip and no fence. Each column is published and read on its own: a reader may
// see one column of a tile INCLUSIVE while another is still AGGREGATE, and the look-back keeps a
// carry per column for that reason.
template <class T>
struct ColumnTileState {
  static constexpr int kWords = (int(sizeof(T)) + 3) / 4;
  unsigned long long* words = nullptr;
  int width = 0;
  std::uint32_t epoch = 0;

  void layout(ScratchCarver& carver, std::int64_t tiles, int values_per_tile) {
    width = values_per_tile;
    words = carver.take<unsigned long long>(static_cast<std::size_t>(tiles) * values_per_tile * kWords);
  }
  __device__ void publish(std::int64_t tile, std::uint32_t status, int column, const T& value) const {
    std::uint32_t pieces[kWords] = {};
    memcpy(pieces, &value, sizeof(T));
    const unsigned long long tag = static_cast<unsigned long long>(tagged_status(status, epoch)) << 32;
    unsigned long long* at = words + (tile * width + column) * kWords;
#pragma unroll
    for (int k = 0; k < kWords; ++k) publish_word<Publish::Exchange>(at[k], tag | pieces[k], cuda::memory_order_relaxed);
  }
  __device__ TileView<T> read(std::int64_t tile, int column) const {
    unsigned long long* at = words + (tile * width + column) * kWords;
    unsigned long long word[kWords];
#pragma unroll
    for (int k = 0; k < kWords; ++k) word[k] = DeviceAtomic<unsigned long long>(at[k]).load(cuda::memory_order_relaxed);
    const std::uint32_t tag = static_cast<std::uint32_t>(word[0] >> 32);
    bool agree = true;
    std::uint32_t pieces[kWords];
#pragma unroll
    for (int k = 0; k < kWords; ++k) {
      agree = agree && static_cast<std::uint32_t>(word[k] >> 32) == tag;
      pieces[k] = static_cast<std::uint32_t>(word[k]);
    }
    TileView<T> view;
    view.status = agree ? status_in_epoch(tag, epoch) : std::uint32_t(kTileInvalid);
    memcpy(&view.value, pieces, sizeof(T));
    return view;
  }
};

// V columns of one row, converted to Acc, with one vector load (or one per array of a zipped
// input, zip.cuh); `at` is aligned to the vector.
template <class In, class Acc, int V>
__device__ __forceinline__ void load_columns(const In* at, Acc (&row)[V]) {
  using Vec = VectorOf<In, V * sizeof(In)>;
  const typename Vec::Chunk chunk = Vec::load(at, 0);
#pragma unroll
  for (int j = 0; j < V; ++j) row[j] = static_cast<Acc>(chunk.item[j]);
}
template <class A, class B, class Acc, int V>
__device__ __forceinline__ void load_columns(ZipPointer<A, B> at, Acc (&row)[V]) {
  A firsts[V];
  B seconds[V];
  load_columns(at.first, firsts);
  load_columns(at.second, seconds);
#pragma unroll
  for (int j = 0; j < V; ++j) row[j] = static_cast<Acc>(Zip<A, B>{firsts[j], seconds[j]});
}

// The blocks a SM said outright (Config::kBlocksPerSm): without a bound ptxas held some instances
// (64-bit V = 1) to 64 registers and spilled.
template <class Config, int V, class Args>
__global__ void __launch_bounds__(Config::kThreads, Config::kBlocksPerSm)
    columns_scan_kernel(Args args, ColumnGeometry g, ColumnTileState<typename Args::AccT> state) {
  using Acc = typename Args::AccT;
  using Out = typename Args::OutT;
  constexpr int kRows = Config::rows_per_chunk(V, sizeof(Acc));
  constexpr int kWidth = Config::kGroupLanes * V;  // the most columns a tile has
  const auto& op = args.op;
  const Acc identity = op.template identity<Acc>();
  const int lane = lane_id();
  const int warp = warp_id();
  const int group = lane / g.group_lanes;
  const bool in_group = group < g.groups;  // lanes past the last whole group sit out
  const int first_column_in_tile = (lane % g.group_lanes) * V;

  // Which tile: column block fastest, then band, then slab.
  std::int64_t rest = blockIdx.x;
  const std::int64_t column_block = rest % g.column_blocks;
  rest /= g.column_blocks;
  const std::int64_t band = rest % g.bands;
  const std::int64_t slab = rest / g.bands;
  const std::int64_t tile = blockIdx.x;
  const std::int64_t column = column_block * g.width + first_column_in_tile;
  const std::int64_t left = g.inner - column;
  const int columns = in_group && left > 0 ? static_cast<int>(left < V ? left : V) : 0;
  const std::int64_t chunk = std::int64_t(warp) * g.groups + group;
  const std::int64_t first_row = band * g.tile_rows + chunk * kRows;  // in scan order
  const std::int64_t slab_begin = slab * g.length * g.inner;
  // Element (scan-order row s, column c + j) of the slab.
  const auto at = [&](std::int64_t s) {
    const std::int64_t row = Args::kReverse ? g.length - 1 - s : s;
    return slab_begin + row * g.inner + column;
  };

  // 1. Load the chunk.
  Acc items[kRows][V];
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    const std::int64_t s = first_row + k;
    const bool row_here = s < g.length;
    if constexpr (V > 1) {
      if (row_here && columns == V) {
        load_columns(args.in + at(s), items[k]);
        continue;
      }
    }
#pragma unroll
    for (int j = 0; j < V; ++j) items[k][j] = row_here && j < columns ? static_cast<Acc>(args.in[at(s) + j]) : identity;
  }

  // 2. Each column down the chunk: the thread's inclusive (or exclusive) scan, and its total.
  Acc total[V];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    Acc running = identity;
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      const Acc before = running;
      running = op(running, items[k][j]);
      items[k][j] = args.exclusive ? before : running;
    }
    total[j] = running;
  }

  // 3. The chunks before this one in the tile, per column: the groups of the warp (a scan over
  // groups, lanes group_lanes apart), then the warps (one word per warp and column), put in front
  // of the chunk's items at once (the registers are then free for the look-back).
  __shared__ Acc warp_totals[Config::kWarps][kWidth];
  Acc before_chunk[V];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    Acc through_group = total[j];
    for (int offset = 1; offset < g.groups; offset *= 2) {
      const Acc earlier = shuffle_up(through_group, offset * g.group_lanes);
      if (group >= offset) through_group = op(earlier, through_group);
    }
    const Acc before_group = shuffle_up(through_group, g.group_lanes);
    before_chunk[j] = group > 0 ? before_group : identity;
    if (group == g.groups - 1) warp_totals[warp][first_column_in_tile + j] = through_group;
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < V; ++j) {
    Acc before_warp = identity;
    for (int w = 0; w < warp; ++w) before_warp = op(before_warp, warp_totals[w][first_column_in_tile + j]);
    before_chunk[j] = op(before_warp, before_chunk[j]);
#pragma unroll
    for (int k = 0; k < kRows; ++k) items[k][j] = op(before_chunk[j], items[k][j]);
  }
  // The tile's total of column j, from the warps' totals (wanted by warp 0's first group only).
  const auto tile_total = [&](int j) {
    Acc all = identity;
    for (int w = 0; w < Config::kWarps; ++w) all = op(all, warp_totals[w][first_column_in_tile + j]);
    return all;
  };

  // 4-5. The carry-in of the tile's columns. The first band starts with the initial value and
  // publishes INCLUSIVE; any other publishes its totals as AGGREGATE and looks back over the bands
  // above, every thread at once: a window of as many bands as the tile has chunks, chunk c reading
  // band (window end - chunks + c), its own columns, so the window costs one round trip to L2.
  // The window is reduced per column in band order, from the nearest INCLUSIVE band on, with the
  // same two steps as the chunks in step 3 (groups by shuffles, warps through shared memory), and
  // the walk goes on above it until every column has met an INCLUSIVE band (band 0 is one, and
  // so rank the bands above the top). Warp 0's first group holds every column of the tile: it
  // publishes, and it keeps the carries.
  __shared__ Acc shared_carry[kWidth];
  __shared__ Acc window_values[Config::kWarps][kWidth];  // per warp and column, its bands reduced
  __shared__ bool window_inclusive[Config::kWarps][kWidth];  // ... and whether they hold an INCLUSIVE one
  const bool holder = warp == 0 && group == 0;
  Acc* const carry = shared_carry + first_column_in_tile;  // the holder's columns
  if (band == 0) {
    const Acc initial = args.front.fold(op);
    if (holder) {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        carry[j] = initial;
        if (j < columns && g.bands > 1) state.publish(tile, kTileInclusive, first_column_in_tile + j, op(initial, tile_total(j)));
      }
    }
  } else {
    unsigned open = 0;  // the holder's columns that have not yet met an INCLUSIVE band, a bit each
    if (holder) {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        carry[j] = identity;
        if (j < columns) {
          open |= 1u << j;
          state.publish(tile, kTileAggregate, first_column_in_tile + j, tile_total(j));
        }
      }
    }
    const std::int64_t window = std::int64_t(Config::kWarps) * g.groups;
    for (std::int64_t window_end = band;; window_end -= window) {
      // This thread's band of the window, and its columns there: (value, INCLUSIVE?). Lanes past
      // the last whole group, and columns past the edge, read nothing and hold (identity, no),
      // which the reduction passes over; bands above the top hold (identity, INCLUSIVE).
      const std::int64_t above = window_end - window + chunk;
      const std::int64_t above_tile = tile - (band - above) * g.column_blocks;
      TileView<Acc> view[V];
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const bool reads = in_group && j < columns && above >= 0;
        view[j] = reads ? state.read(above_tile, first_column_in_tile + j)
                        : TileView<Acc>{in_group && above < 0 ? std::uint32_t(kTileInclusive) : std::uint32_t(kTileAggregate), identity};
      }
#pragma unroll
      for (int j = 0; j < V; ++j)
        while (view[j].status == kTileInvalid) view[j] = state.read(above_tile, first_column_in_tile + j);
      // Reduced in band order: a band that is INCLUSIVE replaces what came before it.
#pragma unroll
      for (int j = 0; j < V; ++j) {
        Acc value = view[j].value;
        bool inclusive = view[j].status == kTileInclusive;
        for (int offset = 1; offset < g.groups; offset *= 2) {
          const Acc earlier = shuffle_up(value, offset * g.group_lanes);
          const bool earlier_inclusive = __shfl_up_sync(kFullMask, inclusive, offset * g.group_lanes);
          if (group >= offset && !inclusive) {
            value = op(earlier, value);
            inclusive = earlier_inclusive;
          }
        }
        if (group == g.groups - 1) {
          window_values[warp][first_column_in_tile + j] = value;
          window_inclusive[warp][first_column_in_tile + j] = inclusive;
        }
      }
      __syncthreads();
      if (holder) {
#pragma unroll
        for (int j = 0; j < V; ++j) {
          if (!(open >> j & 1u)) continue;
          Acc value = identity;
          bool inclusive = false;
          for (int w = 0; w < Config::kWarps; ++w) {
            const Acc later = window_values[w][first_column_in_tile + j];
            const bool later_inclusive = window_inclusive[w][first_column_in_tile + j];
            value = later_inclusive ? later : op(value, later);
            inclusive = inclusive || later_inclusive;
          }
          carry[j] = op(value, carry[j]);
          if (inclusive) open &= ~(1u << j);
        }
      }
      if (!__syncthreads_or(open != 0)) break;  // also: the window's values read before the next writes
    }
    if (holder) {
#pragma unroll
      for (int j = 0; j < V; ++j)
        if (j < columns) state.publish(tile, kTileInclusive, first_column_in_tile + j, op(carry[j], tile_total(j)));
    }
  }
  __syncthreads();

  // 6. Everything before each item in front of it, and out; the last band writes the column totals.
  Acc carry_in[V];
#pragma unroll
  for (int j = 0; j < V; ++j) carry_in[j] = shared_carry[first_column_in_tile + j];
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    const std::int64_t s = first_row + k;
    if (s >= g.length || columns == 0) continue;
    if constexpr (V > 1) {
      using Vec = VectorOf<Out, V * sizeof(Out)>;
      if (columns == V) {
        typename Vec::Chunk chunk_of_row;
#pragma unroll
        for (int j = 0; j < V; ++j) chunk_of_row.item[j] = static_cast<Out>(op(carry_in[j], items[k][j]));
        Vec::store(args.out + at(s), 0, chunk_of_row);
        continue;
      }
    }
#pragma unroll
    for (int j = 0; j < V; ++j)
      if (j < columns) args.out[at(s) + j] = static_cast<Out>(op(carry_in[j], items[k][j]));
  }
  if (args.total && band == g.bands - 1 && warp == 0 && group == 0) {
#pragma unroll
    for (int j = 0; j < V; ++j)
      if (j < columns) args.total[slab * g.inner + column + j] = static_cast<Out>(op(shared_carry[first_column_in_tile + j], tile_total(j)));
  }
}

// The column scan's scratch memory and launch. V: the columns a lane loads at once, the vector
// of the wider of In and Out where V divides inner (every row's columns then start aligned), else 1.
template <class Config = ColumnsDefaultConfig>
struct ColumnsScan {
  // The most elements of T, a power of two, in 16 bytes (one for larger T); of the wider of In and Out.
  template <class T>
  static constexpr int kVectorOf = [] {
    int count = 1;
    while (2 * count * int(sizeof(T)) <= 16) count *= 2;
    return count;
  }();
  // A zipped input (zip.cuh) counts as its wider array, and both its arrays must be aligned.
  template <class In, class Out>
  static constexpr int kVector = kVectorOf<typename LoadUnit<In>::type> < kVectorOf<Out>
                                     ? kVectorOf<typename LoadUnit<In>::type>
                                     : kVectorOf<Out>;

  template <class In, class Out>
  static int vector_for(std::int64_t inner, typename InputPointer<In>::type in, const Out* out) {
    constexpr int V = kVector<In, Out>;
    return inner % V == 0 && aligned(in, V) && aligned(out, V) ? V : 1;
  }

 private:
  template <class T>
  static bool aligned(const T* pointer, int vector) {
    return reinterpret_cast<std::uintptr_t>(pointer) % (vector * sizeof(T)) == 0;
  }
  template <class A, class B>
  static bool aligned(ZipPointer<A, B> pointer, int vector) {
    return aligned(pointer.first, vector) && aligned(pointer.second, vector);
  }

 public:

  template <class Acc>
  static std::size_t workspace_bytes(const ColumnGeometry& g) {
    return bytes_of_layout([&](ScratchCarver& counter) { ColumnTileState<Acc>{}.layout(counter, g.tiles(), g.width); });
  }

  // args.n = outer x length x inner elements; the geometry made with the vector vector_for gave.
  template <class Args>
  static cudaError_t launch(const Args& args, const ColumnGeometry& g, Scratch scratch, std::uint32_t epoch,
                            cudaStream_t stream) {
    if (args.n == 0) return cudaSuccess;
    ScratchCarver carver(scratch.data);
    ColumnTileState<typename Args::AccT> state;
    state.layout(carver, g.tiles(), g.width);
    state.epoch = epoch;
    const auto blocks = static_cast<unsigned>(g.tiles());
    constexpr int V = kVector<typename Args::InT, typename Args::OutT>;
    if (g.vector == V)
      columns_scan_kernel<Config, V, Args><<<blocks, Config::kThreads, 0, stream>>>(args, g, state);
    else
      columns_scan_kernel<Config, 1, Args><<<blocks, Config::kThreads, 0, stream>>>(args, g, state);
    return cudaGetLastError();
  }
};

}  // namespace scan_zoo::detail
