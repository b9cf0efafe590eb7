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
// The layout of the threads over a tile (ColumnGeometry): lanes in groups of `group_lanes`, each
// lane V consecutive columns, so that a group spans the tile's `width` = group_lanes x V columns
// (at most a warp's 32 V: wider arrays have several column blocks); a warp holds 32 / group_lanes
// groups, each scanning its own chunk of kRowsPerChunk rows, so that narrow arrays (inner of 2,
// 3, 64) keep every lane busy. Chunk c of a tile covers its rows c x kRowsPerChunk onwards, in
// scan order: warp-major, then group.
//
// The kernel, top to bottom (columns_scan_kernel below):
//   1. load the thread's chunk: a row at a time, V columns of it (one 16-byte vector where the
//      columns allow: V divides inner), each element converted from In to Acc;
//   2. scan each column down the chunk in registers (the thread's total per column);
//   3. combine the chunks: the groups of a warp with shuffles (Kogge-Stone across groups), the
//      warps through shared memory (one barrier): each thread has the reduction of the rows
//      before its chunk in the tile, and the tile's total, per column;
//   4. warp 0's first group publishes the tile's totals (AGGREGATE; the first band INCLUSIVE,
//      with the initial value in front), looks back over the bands above (a window of 32 bands
//      a step: a lane polls each band's status, then the window's values are reduced per
//      column, four bands' reads in flight at a time), and publishes the INCLUSIVE values;
//      5. a barrier hands the carry-in to every thread;
//   6. put the carry-in and the chunks before in front of every item, and store; the last band
//      writes each column's total when asked.
// Reverse scans run each column from its last row: the bands and chunks count rows from the end.
//
// The descriptor (ColumnTileState): a status word per tile (epoch-tagged as in tile_state.cuh),
// then two slots of `width` values per tile, AGGREGATE and INCLUSIVE apart (with one slot, a
// reader that saw AGGREGATE could read the INCLUSIVE value written after it). The writers store
// their values and fence, the warp meets at __syncwarp, and lane 0 publishes the status with
// release; a reader's lane loads the status with acquire and the warp meets at __syncwarp
// before any lane loads the values (relaxed, at device scope).
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

template <int Threads, int RowsPerChunk>
struct ColumnsConfig {
  static constexpr int kThreads = Threads;
  static constexpr int kWarps = Threads / kWarpSize;
  static constexpr int kRowsPerChunk = RowsPerChunk;
};

// 256 threads, 8 rows a chunk: V x 8 items a thread (32 int32), a tile of 64 x group count rows.
// Until a sweep of the column shapes measures others (bench/NOTES.md, "Scans along an axis").
using ColumnsDefaultConfig = ColumnsConfig<256, 8>;

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
  static ColumnGeometry make(std::int64_t outer, std::int64_t length, std::int64_t inner, int vector) {
    ColumnGeometry g{outer, length, inner, vector, 0, 0, 0, 0, 0, 0};
    const std::int64_t vectors = ceil_div<std::int64_t>(inner, vector);
    g.group_lanes = static_cast<int>(vectors < kWarpSize ? vectors : kWarpSize);
    g.groups = kWarpSize / g.group_lanes;
    g.width = g.group_lanes * vector;
    g.tile_rows = std::int64_t(Config::kWarps) * g.groups * Config::kRowsPerChunk;
    g.bands = ceil_div<std::int64_t>(length, g.tile_rows);
    g.column_blocks = ceil_div<std::int64_t>(inner, g.width);
    return g;
  }
  std::int64_t tiles() const { return outer * bands * column_blocks; }
};

// The descriptors of the column scan: statuses, then the AGGREGATE and INCLUSIVE slots of
// `width` values each per tile.
template <class T>
struct ColumnTileState {
  std::uint32_t* status = nullptr;
  T* aggregate = nullptr;
  T* inclusive = nullptr;
  int width = 0;
  std::uint32_t epoch = 0;

  void layout(ScratchCarver& carver, std::int64_t tiles, int values_per_tile) {
    width = values_per_tile;
    status = carver.take<std::uint32_t>(static_cast<std::size_t>(tiles));
    aggregate = carver.take<T>(static_cast<std::size_t>(tiles) * values_per_tile);
    inclusive = carver.take<T>(static_cast<std::size_t>(tiles) * values_per_tile);
  }

  // Called by every lane of a warp: the lanes that hold columns store theirs (`count` values for
  // columns `first` onwards of the tile), then lane 0 publishes the status.
  template <int V>
  __device__ void publish(std::int64_t tile, std::uint32_t new_status, int first, int count, const T (&values)[V]) const {
    T* slot = (new_status == kTileInclusive ? inclusive : aggregate) + tile * width + first;
#pragma unroll
    for (int j = 0; j < V; ++j)
      if (j < count) store_value(slot[j], values[j]);
    __threadfence();
    __syncwarp();
    if (lane_id() == 0)
      DeviceAtomic<std::uint32_t>(status[tile]).store(tagged_status(new_status, epoch), cuda::memory_order_release);
  }
  __device__ std::uint32_t read_status(std::int64_t tile) const {
    return status_in_epoch(DeviceAtomic<std::uint32_t>(status[tile]).load(cuda::memory_order_acquire), epoch);
  }
  // A value whose status the warp has seen (read_status, then __syncwarp).
  __device__ T read_value(std::int64_t tile, std::uint32_t seen_status, int column) const {
    T* slot = (seen_status == kTileInclusive ? inclusive : aggregate) + tile * width + column;
    return load_value(*slot);
  }
  // `value`, then the AGGREGATE values of `column` in `count` tiles `stride` apart from `tile` on,
  // reduced in that order; the reads go out four at a time, as they depend on nothing.
  template <class Op>
  __device__ T reduce_aggregates(T value, std::int64_t tile, std::int64_t stride, int count, int column,
                                 const Op& op) const {
    T* slot = aggregate + tile * width + column;
    const std::int64_t step = stride * width;
#pragma unroll 4
    for (int i = 0; i < count; ++i, slot += step) value = op(value, load_value(*slot));
    return value;
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

// At least one block a SM, said outright: without it ptxas held some instances (64-bit V = 1) to
// 64 registers and spilled.
template <class Config, int V, class Args>
__global__ void __launch_bounds__(Config::kThreads, 1)
    columns_scan_kernel(Args args, ColumnGeometry g, ColumnTileState<typename Args::AccT> state) {
  using Acc = typename Args::AccT;
  using Out = typename Args::OutT;
  constexpr int kRows = Config::kRowsPerChunk;
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
  // groups, lanes group_lanes apart), then the warps (one word per warp and column).
  __shared__ Acc warp_totals[Config::kWarps][kWarpSize * V];
  Acc before_chunk[V], tile_total[V];
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
    Acc before_warp = identity, all = identity;
    for (int w = 0; w < Config::kWarps; ++w) {
      if (w == warp) before_warp = all;
      all = op(all, warp_totals[w][first_column_in_tile + j]);
    }
    before_chunk[j] = op(before_warp, before_chunk[j]);
    tile_total[j] = all;
  }

  // 4-5. The carry-in of the tile's columns: the first band starts with the initial value; the
  // others look back over the bands above. Warp 0's first group holds every column of the tile.
  __shared__ Acc shared_carry[kWarpSize * V];
  __shared__ Acc window_by_column[kWarpSize * V];  // the look-back's window, reduced per column
  if (warp == 0) {
    const bool holder = group == 0;
    Acc carry[V];
    if (band == 0) {
      const Acc initial = args.front.fold(op);
      Acc inclusive[V];
#pragma unroll
      for (int j = 0; j < V; ++j) {
        carry[j] = initial;
        inclusive[j] = op(initial, tile_total[j]);
      }
      if (g.bands > 1) state.template publish<V>(tile, kTileInclusive, first_column_in_tile, holder ? columns : 0, inclusive);
    } else {
      state.template publish<V>(tile, kTileAggregate, first_column_in_tile, holder ? columns : 0, tile_total);
      // The walk: windows of 32 bands upwards, lane i polling band window_end - 32 + i. Once a
      // window's statuses are in, its values are reduced per column, lane l the columns l,
      // l + 32, ..., with four bands' reads in flight at a time: eight round trips to L2 per 32
      // columns and window, where reading band after band took 32. The first group
      // takes the results per column from shared memory.
#pragma unroll
      for (int j = 0; j < V; ++j) carry[j] = identity;
      for (std::int64_t window_end = band;; window_end -= kWarpSize) {
        const std::int64_t first_band = window_end - kWarpSize;
        const std::int64_t my_band = first_band + lane;
        const std::int64_t my_tile = tile - (band - my_band) * g.column_blocks;
        std::uint32_t status = my_band >= 0 ? state.read_status(my_tile) : std::uint32_t(kTileInclusive);
        while (__any_sync(kFullMask, status == kTileInvalid)) {
          if (status == kTileInvalid) status = state.read_status(my_tile);
        }
        const unsigned inclusive_lanes = __ballot_sync(kFullMask, status == kTileInclusive);
        // From the nearest INCLUSIVE band on (the bands after it are AGGREGATE); a window without
        // one is taken whole, and the walk goes on above it (the window of band 0 always has one).
        const int nearest = inclusive_lanes ? kWarpSize - 1 - __clz(inclusive_lanes) : 0;
        __syncwarp();
#pragma unroll 1
        for (int in_tile = lane; in_tile < g.width; in_tile += kWarpSize) {
          Acc reduced = identity;
          if (column_block * g.width + in_tile < g.inner) {
            // The bands from the nearest INCLUSIVE one on, in order: it, then the AGGREGATEs
            // after it. None of them lies above band 0: band 0 is INCLUSIVE, and so rank the
            // lanes past the top, which come before it.
            const std::int64_t nearest_tile = tile - (band - first_band - nearest) * g.column_blocks;
            reduced = state.read_value(nearest_tile, inclusive_lanes ? kTileInclusive : kTileAggregate, in_tile);
            reduced = state.reduce_aggregates(reduced, nearest_tile + g.column_blocks, g.column_blocks,
                                              kWarpSize - 1 - nearest, in_tile, op);
          }
          window_by_column[in_tile] = reduced;
        }
        __syncwarp();
        if (holder) {
#pragma unroll
          for (int j = 0; j < V; ++j)
            if (j < columns) carry[j] = op(window_by_column[first_column_in_tile + j], carry[j]);
        }
        __syncwarp();  // read before the next window writes
        if (inclusive_lanes) break;
      }
      Acc inclusive[V];
#pragma unroll
      for (int j = 0; j < V; ++j) inclusive[j] = op(carry[j], tile_total[j]);
      state.template publish<V>(tile, kTileInclusive, first_column_in_tile, holder ? columns : 0, inclusive);
    }
    if (holder) {
#pragma unroll
      for (int j = 0; j < V; ++j) shared_carry[first_column_in_tile + j] = carry[j];
    }
  }
  __syncthreads();

  // 6. Everything before each item in front of it, and out; the last band writes the column totals.
  Acc prefix[V];
#pragma unroll
  for (int j = 0; j < V; ++j) prefix[j] = op(shared_carry[first_column_in_tile + j], before_chunk[j]);
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    const std::int64_t s = first_row + k;
    if (s >= g.length || columns == 0) continue;
    if constexpr (V > 1) {
      using Vec = VectorOf<Out, V * sizeof(Out)>;
      if (columns == V) {
        typename Vec::Chunk chunk_of_row;
#pragma unroll
        for (int j = 0; j < V; ++j) chunk_of_row.item[j] = static_cast<Out>(op(prefix[j], items[k][j]));
        Vec::store(args.out + at(s), 0, chunk_of_row);
        continue;
      }
    }
#pragma unroll
    for (int j = 0; j < V; ++j)
      if (j < columns) args.out[at(s) + j] = static_cast<Out>(op(prefix[j], items[k][j]));
  }
  if (args.total && band == g.bands - 1 && warp == 0 && group == 0) {
#pragma unroll
    for (int j = 0; j < V; ++j)
      if (j < columns) args.total[slab * g.inner + column + j] = static_cast<Out>(op(shared_carry[first_column_in_tile + j], tile_total[j]));
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
