// scan_zoo/detail/columns_kernel.cuh -- a scan along the middle axis of an [outer, length, inner]
// array with inner > 1: every column of each [length, inner] slab scanned on its own, down its
// rows (torch.cumsum(x, 0) of a matrix), in one launch.
//
// Idea: the memory runs along a row, the scan down a column. So a tile is a band of rows of a
// block of columns, copied into shared memory a row at a time (consecutive threads on
// consecutive bytes: whole sectors, and the whole tile contiguous when it spans the row), and
// each thread scans V columns down a chunk of rows of it, a serial scan per column, which is all
// the work there is. The chunks of a tile are combined in row order (shuffles between the lanes
// of the same columns, then one word per warp and column in shared memory), and the bands of a
// column block talk through a decoupled look-back (Merrill & Garland 2016) whose descriptor
// holds a value per column.
// Why shared memory: a tile staged with cp.async holds no register while its bytes travel, so
// 4 blocks an SM keep 192 KB of loads in flight, where tiles held in registers (this kernel
// up to f035df4) fitted 2 blocks and 64 KB and ran well below a copy
// (bench/NOTES.md, "Scans along an axis"); the chunk is read twice from shared memory, for its
// totals and for its results, and never held whole in registers. A tile spends most of its life
// in its look-back and its two passes, not in its loads, so its bytes count twice: tiles of 40 KB
// beat tiles of 32 KB at 8 to 64 float32 columns, and tiles of 48 KB (4 blocks still fit an SM's
// shared memory) beat 40 KB again from 2 to 64 columns (bench/NOTES.md, "Columns: the column
// kernel").
// (A probe that timed each tile's steps found it waiting in its look-back for about half of its
// life: the same section, "Where a tile's life goes".) The stage is dynamic shared memory, past
// 48 KB.
// The layout of the threads over a tile (ColumnGeometry): lanes in groups of `group_lanes` (at
// most kGroupLanes, 8), each lane V consecutive columns, so that a group spans the tile's `width` =
// group_lanes x V columns (32 float32, 128 bytes of a row: wider arrays have several column
// blocks, each its own chain of bands); a warp holds 32 / group_lanes groups, each scanning its
// own chunk of rows (192 bytes a thread of the wider of In and Acc: 12 rows of 4 float32, 48 of
// one, 12 rows of 2 doubles), so that narrow arrays (inner of 2, 3, 8) keep every lane busy.
// Chunk c of a tile covers its rows c x (rows a chunk) onwards, in scan order: warp-major, then
// group.
// Why narrow tiles: a window of the look-back reads a band's descriptor (a value per column) per
// chunk, so its bytes grow with the width while the bands it covers do not; 8-lane groups
// measured best beside 4 and 32 (bench/NOTES.md, "Scans along an axis").
//
// The kernel, top to bottom (columns_scan_kernel below):
//   1. stage the tile in shared memory: a tile that is one run of memory (one column block,
//      rows forward, 16-byte aligned: ColumnGeometry::flat) as the 16-byte pieces of its bytes,
//      piece p by thread p mod Threads; any other a row at a time, copy u of it (V columns of a
//      row, one vector where the columns allow: V divides inner) by thread u mod Threads (the
//      threads past the last whole round of rows sit out); a barrier;
//   2. each thread's totals of its columns down its chunk (read from the stage, In to Acc);
//   3. combine the chunks: the groups of a warp with shuffles (Kogge-Stone across groups), the
//      warps through shared memory (one barrier): each thread has the reduction of the rows
//      before its chunk in the tile, and the tile's total, per column;
//   4. warp 0's first group publishes the tile's totals (AGGREGATE; the first band INCLUSIVE,
//      with the initial value in front);
//   5. every thread looks back at once, a band above the tile a chunk (one round trip for a
//      window of as many bands as the tile has chunks), the window is reduced per column in band
//      order from its nearest INCLUSIVE band (a ballot finds it; the groups by a tree of
//      shuffles, the warps through shared memory), and the walk goes on up until every column
//      has met an INCLUSIVE band; warp 0's first group publishes the INCLUSIVE values, and a
//      barrier hands the carry-in to every thread (deterministic, ScanArgs::fixed_order(): one
//      window aligned at the column block's first band, in a fixed order, step 5 in the kernel);
//   6. each thread scans its chunk again from the stage, from the carry-in and the chunks before
//      it, and stores each row's V columns (one vector); the last band writes each column's total;
//   7. a tile narrower than a 32-byte sector (2 to 7 float32 columns: a lane group's row is then
//      part of a sector, and its chunks lie a sector or more apart) has written its results back
//      into the stage in step 6 instead, and stores them now with step 1's copies (its pieces,
//      when flat), a barrier between: whole sectors a warp (bench/NOTES.md, "Scans along an axis").
// Reverse scans run each column from its last row: the bands and chunks count rows from the end.
//
// The descriptor (ColumnTileState): per tile and column, the value in 64-bit words each beside
// the epoch-tagged status (grid/protocol.cuh), relaxed atomics on one word at a time (read two at
// once by 16-byte loads, each half a relaxed read, as the tuned scan's packed descriptors are):
// no fence, and one round trip for a value and its flag. A first
// version, a status word per tile and value slots ordered by release/acquire, read by warp 0
// alone, four bands' reads in flight per lane, ran at well under half a copy's speed
// (bench/NOTES.md, "Scans along an axis").
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
#include "grid/descriptors.cuh"
#include "tuned_kernel.cuh"
#include "vector_access.cuh"
#include "warp.cuh"
#include "indexed_elements.cuh"
#include "../operators.cuh"

namespace scan_zoo::detail {

template <int Threads, int ChunkBytes, int GroupLanes, int BlocksPerSm>
struct ColumnsConfig {
  static constexpr int kThreads = Threads;
  static constexpr int kWarps = Threads / kWarpSize;
  static constexpr int kGroupLanes = GroupLanes;    // the most lanes a group: a tile is at most kGroupLanes x V wide
  static_assert(GroupLanes >= 1 && GroupLanes <= kWarpSize, "a group is at most a warp");
  static constexpr int kBlocksPerSm = BlocksPerSm;  // __launch_bounds__
  // A chunk's rows: ChunkBytes a thread of the wider of the input element and the accumulator
  // (counted as 4 bytes at least), so that a tile's staged input is at most Threads x ChunkBytes.
  __host__ __device__ static constexpr int rows_per_chunk(int vector, int element_bytes) {
    const int rows = ChunkBytes / (vector * (element_bytes < 4 ? 4 : element_bytes));
    return rows > 0 ? rows : 1;
  }
};

// The bytes an element counts for in a chunk (rows_per_chunk): the wider of In and Acc.
template <class In, class Acc>
inline constexpr int kColumnsElementBytes = int(sizeof(Acc) > sizeof(In) ? sizeof(Acc) : sizeof(In));

// 256 threads, 192 bytes a chunk (a 48 KB tile; 52 KB staged with the chunks' gaps, 4 blocks in
// an SM's 228 KB), groups of at most 8 lanes, 4 blocks an SM: bench/NOTES.md, "Scans along an axis".
using ColumnsDefaultConfig = ColumnsConfig<256, 192, 8, 4>;

// The bytes of a sector, the unit of an L2 access: a tile narrower than one stores its results
// through shared memory (step 7).
inline constexpr int kSectorBytes = 32;

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
  // Whether a tile's input (and a narrow tile's results, step 7) move as the 16-byte pieces of
  // its bytes, the tile being one run of memory: one column block (width = inner), rows forward,
  // every array 16-byte aligned at each tile (ColumnsScan::launch decides).
  bool flat = false;

  // element_bytes: the wider of In and Acc (rows_per_chunk).
  template <class Config>
  static ColumnGeometry make(std::int64_t outer, std::int64_t length, std::int64_t inner, int vector, int element_bytes) {
    ColumnGeometry g{outer, length, inner, vector, 0, 0, 0, 0, 0, 0};
    const std::int64_t vectors = ceil_div<std::int64_t>(inner, vector);
    g.group_lanes = static_cast<int>(vectors < Config::kGroupLanes ? vectors : Config::kGroupLanes);
    g.groups = kWarpSize / g.group_lanes;
    g.width = g.group_lanes * vector;
    g.tile_rows = std::int64_t(Config::kWarps) * g.groups * Config::rows_per_chunk(vector, element_bytes);
    g.bands = ceil_div<std::int64_t>(length, g.tile_rows);
    g.column_blocks = ceil_div<std::int64_t>(inner, g.width);
    return g;
  }
  std::int64_t tiles() const { return outer * bands * column_blocks; }
};

// The descriptors of the column scan: per tile and column, that column's value as kWords 32-bit
// pieces, each in a 64-bit word beside the tagged status (grid/descriptors.cuh's PackedTileStatePieces,
// for a value of any size). A reader believes a column's value only when the tags of its words
// agree (same status, same epoch: a tile publishes AGGREGATE once and INCLUSIVE once a run), so
// every access is a relaxed atomic on one word, the value travels with its flag, and a reader
// needs one round trip and no fence. Each column is published and read on its own: a reader may
// see one column of a tile INCLUSIVE while another is still AGGREGATE, and the look-back keeps a
// carry per column for that reason.
// Where the words lie: a lane of a group holds V columns, V x kWords words, which it reads in
// pairs (one 16-byte load, each 64-bit half a relaxed atomic read) where their count is even;
// pair p of every lane of the group lies side by side, then pair p + 1, so that the group's lanes
// read whole sectors together. (Word by word, column-major, the lanes of a group read each
// sector four times over at 4 float32 a lane: ncu counted three times the data's bytes in L2
// reads, bench/NOTES.md, "Scans along an axis".)
template <class T>
struct ColumnTileState {
  static constexpr int kWords = (int(sizeof(T)) + 3) / 4;
  unsigned long long* words = nullptr;
  int lanes = 0;  // lanes a group: a tile has lanes x V columns
  std::uint32_t epoch = 0;

  void layout(ScratchCarver& carver, std::int64_t tiles, int values_per_tile, int lanes_per_group) {
    lanes = lanes_per_group;
    words = carver.take<unsigned long long>(static_cast<std::size_t>(tiles) * values_per_tile * kWords);
  }
  // Word w of `lane`'s V columns of `tile` (w = column x kWords + piece), in pieces of P words.
  template <int V>
  __device__ unsigned long long* word_of(std::int64_t tile, int lane, int w) const {
    constexpr int kLaneWords = V * kWords;
    constexpr int P = kLaneWords % 2 == 0 ? 2 : 1;
    return words + tile * lanes * kLaneWords + (w / P) * lanes * P + lane * P + w % P;
  }
  template <int V>
  __device__ void publish(std::int64_t tile, std::uint32_t status, int lane, int column, const T& value) const {
    std::uint32_t pieces[kWords] = {};
    memcpy(pieces, &value, sizeof(T));
    const std::uint32_t tag = tagged_status(status, epoch);
#pragma unroll
    for (int k = 0; k < kWords; ++k)
      publish_word<Publish::Exchange>(*word_of<V>(tile, lane, column * kWords + k), tagged_word(tag, pieces[k]),
                                      cuda::memory_order_relaxed);
  }
  // The V columns of `lane` in `tile`, each INVALID unless the tags of its words agree.
  template <int V>
  __device__ void read(std::int64_t tile, int lane, TileView<T> (&views)[V]) const {
    constexpr int kLaneWords = V * kWords;
    unsigned long long word[kLaneWords];
    if constexpr (kLaneWords % 2 == 0) {
#pragma unroll
      for (int w = 0; w < kLaneWords; w += 2)
        asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                     : "=l"(word[w]), "=l"(word[w + 1])
                     : "l"(word_of<V>(tile, lane, w))
                     : "memory");
    } else {
#pragma unroll
      for (int w = 0; w < kLaneWords; ++w)
        word[w] = DeviceAtomic<unsigned long long>(*word_of<V>(tile, lane, w)).load(cuda::memory_order_relaxed);
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const std::uint32_t tag = static_cast<std::uint32_t>(word[j * kWords] >> 32);
      bool agree = true;
      std::uint32_t pieces[kWords];
#pragma unroll
      for (int k = 0; k < kWords; ++k) {
        agree = agree && static_cast<std::uint32_t>(word[j * kWords + k] >> 32) == tag;
        pieces[k] = static_cast<std::uint32_t>(word[j * kWords + k]);
      }
      views[j].status = agree ? status_in_epoch(tag, epoch) : std::uint32_t(kTileInvalid);
      memcpy(&views[j].value, pieces, sizeof(T));
    }
  }
};

// Count elements of T from global to shared memory, the copy left in flight: cp.async (sm_80
// on) holds no register while its bytes travel, so a thread issues every copy of its share of
// the tile before waiting, and the SM's loads in flight are bounded by shared memory, not by
// registers. A plain copy where cp.async cannot (before sm_80; sizes other than 4, 8, 16 bytes).
template <class T, int Count>
__device__ __forceinline__ void copy_to_shared(T* to, const T* from) {
  constexpr int kBytes = Count * int(sizeof(T));
  using Vec = VectorOf<T, kBytes>;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (kBytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(to))),
                 "l"(from)
                 : "memory");
  } else if constexpr (kBytes == 4 || kBytes == 8) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(to))),
                 "l"(from), "n"(kBytes)
                 : "memory");
  } else {
    Vec::store(to, 0, Vec::load(from, 0));
  }
#else
  Vec::store(to, 0, Vec::load(from, 0));
#endif
}
// The first `bytes` (at most 16) of 16 bytes to shared memory, the rest of them zeros: a piece of
// a tile's bytes that runs past the array's end reads only what is there (cp.async's source size).
__device__ __forceinline__ void copy_piece_to_shared(void* to, const void* from, int bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(to))),
               "l"(from), "r"(bytes)
               : "memory");
#else
  for (int b = 0; b < 16; ++b)
    static_cast<unsigned char*>(to)[b] = b < bytes ? static_cast<const unsigned char*>(from)[b] : 0;
#endif
}
// Until this thread's copies have landed (a barrier then shows them to the block).
__device__ __forceinline__ void wait_for_shared_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

// The `columns` first of a row's V results to `at` (shared or global memory): one vector when
// they are all there, one element at a time at the array's edge (and for V = 1).
template <class Out, int V>
__device__ __forceinline__ void store_row(Out* at, int columns, const Out (&results)[V]) {
  using Vec = VectorOf<Out, V * sizeof(Out)>;
  if (V > 1 && columns == V) {
    typename Vec::Chunk chunk;
#pragma unroll
    for (int j = 0; j < V; ++j) chunk.item[j] = results[j];
    Vec::store(at, 0, chunk);
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j)
      if (j < columns) at[j] = results[j];
  }
}

// A split output's row (indexed_elements.cuh): the values and the indices, each array by the form
// above.
template <class T, class I, int V>
__device__ __forceinline__ void store_row(SplitPointer<T, I> at, int columns, const Split<T, I> (&results)[V]) {
  T values[V];
  I indices[V];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    values[j] = results[j].value;
    indices[j] = results[j].index;
  }
  store_row(at.values, columns, values);
  if (at.indices) store_row(at.indices, columns, indices);
}

// The chunk of a flat tile's element e (ColumnGeometry::flat): e / (the elements of a chunk), by
// a multiplication with the divisor's reciprocal, taken once a thread (exact while e x divisor <
// 2^32: a tile holds at most 2^15 elements).
struct ChunkOf {
  unsigned reciprocal;
  __device__ explicit ChunkOf(unsigned chunk_elements) : reciprocal(0xFFFFFFFFu / chunk_elements + 1) {}
  __device__ int operator()(int element) const {
    return static_cast<int>(__umulhi(static_cast<unsigned>(element), reciprocal));
  }
};

// A tile's input in shared memory, for each array of it (one; a zipped input's two, zip.cuh):
// row-major [tile rows][width] (scan-order rows) with a 16-byte gap after each chunk of Rows rows,
// copied in with copy_to_shared and read back as V columns of a row converted to Acc. The gap
// puts the chunks that the groups of a warp read at once in different banks (chunks of whole
// 128-byte lines would all start in bank 0). Room for Threads chunks of Rows x V elements: the
// most a tile has (every lane a chunk).
template <class T, int Threads, int Rows, int V, int Gap>
struct StagedArray {
  static constexpr int kBytes = (Threads * (Rows * V + Gap) * int(sizeof(T)) + 15) / 16 * 16;
  T* values;
  __device__ void copy(int index, const T* from) const { copy_to_shared<T, V>(values + index, from); }
  // A flat tile's `count` elements from `from` in 16-byte pieces, piece p by thread p mod
  // Threads, element e to e + (its chunk) x Gap; the last piece may run past the array's end.
  static constexpr int kPiece = 16 / int(sizeof(T));  // elements a piece (where 16 % sizeof(T) == 0)
  __device__ void copy_flat(const T* from, int count, ChunkOf chunk_of) const {
    for (int e = static_cast<int>(threadIdx.x) * kPiece; e < count; e += Threads * kPiece)
      copy_piece_to_shared(values + e + chunk_of(e) * Gap, from + e, (count - e < kPiece ? count - e : kPiece) * int(sizeof(T)));
  }
  template <class Acc>
  __device__ void read(int index, int columns, const Acc& identity, Acc (&out)[V]) const {
    const T* at = values + index;
    if (columns == V) {
      using Vec = VectorOf<T, V * sizeof(T)>;
      const typename Vec::Chunk chunk = Vec::load(at, 0);
#pragma unroll
      for (int j = 0; j < V; ++j) out[j] = static_cast<Acc>(chunk.item[j]);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) out[j] = j < columns ? static_cast<Acc>(at[j]) : identity;
    }
  }
  // Results written in place of the input they came from (Out as wide as T, so that a result
  // lies on its own input's bytes and no other thread's: kResultsFitStage), by the thread that
  // has just read it; then, after a barrier, moved out V columns at a time with the staging's
  // copy pattern.
  template <class Out>
  __device__ void write_results(int index, int columns, const Out (&results)[V]) const {
    store_row(reinterpret_cast<Out*>(values) + index, columns, results);
  }
  template <class Out>
  __device__ void store_results(int index, Out* to) const {
    using Vec = VectorOf<Out, V * sizeof(Out)>;
    Vec::store(to, 0, Vec::load(reinterpret_cast<const Out*>(values) + index, 0));
  }
  // A flat tile's results, the pieces of copy_flat (the last one element by element).
  template <class Out>
  __device__ void store_flat(Out* to, int count, ChunkOf chunk_of) const {
    using Vec = VectorOf<Out, 16>;
    for (int e = static_cast<int>(threadIdx.x) * kPiece; e < count; e += Threads * kPiece) {
      const Out* at = reinterpret_cast<const Out*>(values) + e + chunk_of(e) * Gap;
      if (count - e >= kPiece) {
        Vec::store(to + e, 0, Vec::load(at, 0));
      } else {
        for (int j = 0; j < count - e; ++j) to[e + j] = at[j];
      }
    }
  }
};
// Where element (row, column) of a tile lies in each array of the stage: the gap is 16 bytes of
// the input's wider array (VectorUnit), in elements, the same in both arrays of a zip.
template <class In, int Rows>
struct StageIndex {
  using Unit = typename VectorUnit<In>::type;
  static constexpr int kGap = sizeof(Unit) >= 16 ? 1 : 16 / int(sizeof(Unit));
  __device__ static int index(int row, int column, int width) { return row * width + column + row / Rows * kGap; }
};
template <class In, int Threads, int Rows, int V>
struct StagedInput : StageIndex<In, Rows>, StagedArray<In, Threads, Rows, V, StageIndex<In, Rows>::kGap> {
  __device__ explicit StagedInput(unsigned char* memory)
      : StagedArray<In, Threads, Rows, V, StageIndex<In, Rows>::kGap>{reinterpret_cast<In*>(memory)} {}
};
template <class A, class B, int Threads, int Rows, int V>
struct StagedInput<Zip<A, B>, Threads, Rows, V> : StageIndex<Zip<A, B>, Rows> {
  static constexpr int kGap = StageIndex<Zip<A, B>, Rows>::kGap;
  StagedArray<A, Threads, Rows, V, kGap> first;
  StagedArray<B, Threads, Rows, V, kGap> second;
  static constexpr int kBytes = decltype(first)::kBytes + decltype(second)::kBytes;
  __device__ explicit StagedInput(unsigned char* memory)
      : first{reinterpret_cast<A*>(memory)}, second{reinterpret_cast<B*>(memory + decltype(first)::kBytes)} {}
  __device__ void copy(int index, ZipPointer<A, B> from) const {
    first.copy(index, from.first);
    second.copy(index, from.second);
  }
  __device__ void copy_flat(ZipPointer<A, B> from, int count, ChunkOf chunk_of) const {
    first.copy_flat(from.first, count, chunk_of);
    second.copy_flat(from.second, count, chunk_of);
  }
  template <class Acc>
  __device__ void read(int index, int columns, const Acc& identity, Acc (&out)[V]) const {
    A firsts[V];
    B seconds[V];
    first.read(index, columns, A{}, firsts);
    second.read(index, columns, B{}, seconds);
#pragma unroll
    for (int j = 0; j < V; ++j) out[j] = j < columns ? static_cast<Acc>(Zip<A, B>{firsts[j], seconds[j]}) : identity;
  }
  // Results go in place of the first array's input (StagedArray::write_results).
  template <class Out>
  __device__ void write_results(int index, int columns, const Out (&results)[V]) const {
    first.write_results(index, columns, results);
  }
  template <class Out>
  __device__ void store_results(int index, Out* to) const {
    first.store_results(index, to);
  }
  template <class Out>
  __device__ void store_flat(Out* to, int count, ChunkOf chunk_of) const {
    first.store_flat(to, count, chunk_of);
  }
};

// Whether a tile of In may move flat (ColumnGeometry::flat), as far as the types say: whole
// elements in a 16-byte piece, and the gap after a chunk a whole number of pieces in every array.
template <class T, int Gap>
inline constexpr bool kPiecesFit = 16 % sizeof(T) == 0 && Gap * sizeof(T) % 16 == 0;
template <class In>
inline constexpr bool kFlatFits = kPiecesFit<In, StageIndex<In, 1>::kGap>;
template <class A, class B>
inline constexpr bool kFlatFits<Zip<A, B>> = kPiecesFit<A, StageIndex<Zip<A, B>, 1>::kGap> &&
                                             kPiecesFit<B, StageIndex<Zip<A, B>, 1>::kGap>;

// Whether results of Out may go out through the stage (steps 6-7 below): in place of the input's
// (first) array, as wide as Out, and only for Out under half a sector, since a tile has two
// columns or more and only a tile narrower than a sector takes that way.
template <class In, class Out>
inline constexpr bool kResultsFitStage = sizeof(Out) == sizeof(In) && 2 * sizeof(Out) < kSectorBytes;
template <class A, class B, class Out>
inline constexpr bool kResultsFitStage<Zip<A, B>, Out> = kResultsFitStage<A, Out>;

// A kernel instance's stage, in dynamic shared memory: 48 KB or more needs the kernel's consent,
// which ColumnsScan::launch_kernel asks at every launch (a host call, no work on the stream), since
// the device a caller launches on may change between calls.
template <class Config, int V, class Args>
using ColumnsStage = StagedInput<typename Args::InT, Config::kThreads,
                                 Config::rows_per_chunk(V, kColumnsElementBytes<typename Args::InT, typename Args::AccT>), V>;

// Blocks an SM (__launch_bounds__): the configuration's, except a zipped input's, 2 (its two
// arrays' stage and the pair its accumulator usually is: at 3 blocks, 80 registers, the linear
// recurrence's narrow kernel spilled with chunks of 192 bytes), and for LogSumExp accumulators at
// most 3, or 2 for 16-bit inputs (their vectors of 8 columns) and complex128 ones (32-byte
// accumulators): at 4 blocks (64 registers) the float kernel spilled 4 bytes, at 3 (80) the 16-bit
// ones 16 and complex128's 8.
template <class In>
inline constexpr int kLogSumExpColumnsBlocks = sizeof(In) < 4 || sizeof(In) > 8 ? 2 : 3;
template <class In, class Acc, class Config>
inline constexpr int kColumnsBlocksPerSm =
    kIsLogSumExp<Acc> && Config::kBlocksPerSm > kLogSumExpColumnsBlocks<In> ? kLogSumExpColumnsBlocks<In>
                                                                            : Config::kBlocksPerSm;
template <class A, class B, class Acc, class Config>
inline constexpr int kColumnsBlocksPerSm<Zip<A, B>, Acc, Config> = 2;

// ResultsThroughStage: the tile is narrower than a sector, and its results go out through the
// stage (steps 6-7); a kernel of its own, so that the other keeps its registers.
template <class Config, int V, bool ResultsThroughStage, class Args>
__global__ void __launch_bounds__(Config::kThreads,
                                  kColumnsBlocksPerSm<typename Args::InT, typename Args::AccT, Config>)
    columns_scan_kernel(Args args, ColumnGeometry g, ColumnTileState<typename Args::AccT> state) {
  using In = typename Args::InT;
  using Acc = typename Args::AccT;
  using Out = typename Args::OutT;
  static_assert(!ResultsThroughStage || kResultsFitStage<In, Out>, "the results must fit the stage");
  constexpr int kRows = Config::rows_per_chunk(V, kColumnsElementBytes<In, Acc>);
  constexpr int kWidth = Config::kGroupLanes * V;  // the most columns a tile has
  using Stage = ColumnsStage<Config, V, Args>;
  const auto& op = args.op;
  const Acc identity = op.template identity<Acc>();
  const int lane = lane_id();
  const int warp = warp_id();
  const int group = lane / g.group_lanes;
  const bool in_group = group < g.groups;  // lanes past the last whole group sit out
  const int lane_in_group = lane % g.group_lanes;
  const int first_column_in_tile = lane_in_group * V;
  const int width = static_cast<int>(g.width);

  // Which tile: column block fastest, then band, then slab (32-bit divisions: the grid has fewer
  // than 2^31 tiles).
  const unsigned column_blocks = static_cast<unsigned>(g.column_blocks);
  const unsigned bands = static_cast<unsigned>(g.bands);
  const unsigned rest = column_blocks == 1 ? blockIdx.x : blockIdx.x / column_blocks;
  const std::int64_t column_block = blockIdx.x - rest * column_blocks;
  const std::int64_t band = rest % bands;
  const std::int64_t slab = rest / bands;
  const std::int64_t tile = blockIdx.x;
  const std::int64_t first_column = column_block * g.width;  // the tile's
  const std::int64_t column = first_column + first_column_in_tile;  // this thread's first
  const std::int64_t left = g.inner - column;
  const int columns = in_group && left > 0 ? static_cast<int>(left < V ? left : V) : 0;
  const int chunk = warp * g.groups + group;
  const std::int64_t tile_first_row = band * g.tile_rows;  // in scan order
  const int tile_rows_here = static_cast<int>(g.length - tile_first_row < g.tile_rows ? g.length - tile_first_row : g.tile_rows);
  const int first_row_in_tile = chunk * kRows;
  const std::int64_t slab_begin = slab * g.length * g.inner;
  // The first element of scan-order row s of the slab.
  const auto row_begin = [&](std::int64_t s) {
    const std::int64_t row = Args::kReverse ? g.length - 1 - s : s;
    return slab_begin + row * g.inner;
  };

  // 1. Stage the tile: its rows one after another, V columns a copy (the tile's `width` columns
  // a row, group_lanes copies), copy u of the tile by thread u mod (Threads rounded down to whole
  // rows): consecutive threads take consecutive bytes of a row, and of the whole tile when it
  // spans the row (inner <= 8 V).
  extern __shared__ uint4 stage_memory[];  // Stage::kBytes, 16-byte aligned as uint4 is
  const Stage stage(reinterpret_cast<unsigned char*>(stage_memory));
  // The tile's copies, each handed its place in the stage and its first element's in the array:
  // thread t takes the V columns from (t mod group_lanes) x V for good, and rows t / group_lanes,
  // + Threads / group_lanes, ... (threads past the last whole round of rows sit out), so that a
  // copy costs an add, not a division (a division a copy was a quarter of the kernel's instructions
  // at 8 columns: bench/NOTES.md, "Scans along an axis"). A flat tile (ColumnGeometry::flat) goes
  // as the 16-byte pieces of its bytes instead: 4-byte copies of a row of 3 columns took 28
  // instructions each, a quarter of the kernel's (ncu; the same section).
  const auto for_each_copy = [&](auto&& move) {
    const int rows_a_round = Config::kThreads / g.group_lanes;
    const int column_in_tile = static_cast<int>(threadIdx.x) % g.group_lanes * V;
    if (static_cast<int>(threadIdx.x) >= rows_a_round * g.group_lanes || first_column + column_in_tile >= g.inner)
      return;  // past the last round, or past the last column (V = 1 there)
    int row = static_cast<int>(threadIdx.x) / g.group_lanes;
    std::int64_t element = row_begin(tile_first_row + row) + first_column + column_in_tile;
    const std::int64_t step = (Args::kReverse ? -rows_a_round : rows_a_round) * g.inner;
    for (; row < tile_rows_here; row += rows_a_round, element += step) move(Stage::index(row, column_in_tile, width), element);
  };
  const std::int64_t tile_begin = slab_begin + tile_first_row * g.inner;  // a flat tile's first element
  const int tile_elements = tile_rows_here * width;                        // ... and its count
  const auto copy_rows = [&] {
    for_each_copy([&](int index, std::int64_t element) { stage.copy(index, args.in + element); });
  };
  if constexpr (kFlatFits<In>) {
    if (g.flat)
      stage.copy_flat(args.in + tile_begin, tile_elements, ChunkOf(kRows * width));
    else
      copy_rows();
  } else {
    copy_rows();
  }
  wait_for_shared_copies();
  __syncthreads();
  // Row k of this thread's chunk, its V columns (the identity past the edges).
  const int rows_in_chunk = tile_rows_here - first_row_in_tile;  // those of the array (may be <= 0)
  const int chunk_index = Stage::index(first_row_in_tile, first_column_in_tile, width);
  const auto read_row = [&](int k, Acc (&row)[V]) {
    if (k < rows_in_chunk) {
      stage.read(chunk_index + k * width, columns, identity, row);
      if constexpr (kNumbered<In>) {  // each element's index along its column: its row (indexed_elements.cuh)
        const std::int64_t scan_row = tile_first_row + first_row_in_tile + k;
        const std::int64_t index = Args::kReverse ? g.length - 1 - scan_row : scan_row;
#pragma unroll
        for (int j = 0; j < V; ++j)
          if (j < columns) assign_index(row[j], index);
      }
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) row[j] = identity;
    }
  };

  // 2. Each column down the chunk: the thread's totals.
  Acc total[V];
#pragma unroll
  for (int j = 0; j < V; ++j) total[j] = identity;
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    Acc row[V];
    read_row(k, row);
#pragma unroll
    for (int j = 0; j < V; ++j) total[j] = op(total[j], row[j]);
  }

  // 3. The chunks before this one in the tile, per column: the groups of the warp (a scan over
  // groups, lanes group_lanes apart), then the warps (one word per warp and column).
  __shared__ Acc warp_totals[Config::kWarps][kWidth];
  Acc before_chunk[V];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    Acc through_group = total[j];
#pragma unroll  // at most 5 steps (32 groups), each a shuffle, not a loop's counting and branch
    for (int offset = 1; offset < kWarpSize; offset *= 2) {
      if (offset >= g.groups) break;
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
  // The window is reduced per column in band order, from the nearest INCLUSIVE band on, in two
  // steps as the chunks are in step 3 (groups by shuffles, warps through shared memory), and
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
        if (j < columns && g.bands > 1) state.template publish<V>(tile, kTileInclusive, lane_in_group, j, op(initial, tile_total(j)));
      }
    }
  } else {
    // The fixed order (args.fixed_order(): the same bits in every run), grid/lookback.cuh's
    // fixed_order_in_warp0 for bands: the bands of a column block fall into aligned windows of
    // `window`, and a band's carry-in is the INCLUSIVE value of the last band of the window before
    // its own (the identity in the first window) followed by the AGGREGATEs of the bands of its
    // own window before it, reduced by the steps below, whose grouping depends on positions only.
    // A window's last band publishes INCLUSIVE and no AGGREGATE, every other band its AGGREGATE
    // alone (band 0 its INCLUSIVE value, as always): every descriptor read holds one value.
    const bool fixed = args.fixed_order();
    const std::int64_t window = std::int64_t(Config::kWarps) * g.groups;
    const bool window_last = fixed && (band + 1) % window == 0;
    unsigned open = 0;  // the holder's columns that have not yet met an INCLUSIVE band, a bit each
    if (holder) {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        carry[j] = identity;
        if (j < columns) {
          open |= 1u << j;
          if (!window_last) state.template publish<V>(tile, kTileAggregate, lane_in_group, j, tile_total(j));
        }
      }
    }
    const unsigned same_column_lanes = __match_any_sync(kFullMask, lane_in_group);  // the lanes of this lane's columns
    for (std::int64_t window_end = fixed ? band / window * window - 1 + window : band;; window_end -= window) {
      // This thread's band of the window, and its columns there: (value, INCLUSIVE?). Lanes past
      // the last whole group, and columns past the edge, read nothing and hold (identity, no),
      // which the reduction passes over; bands above the top hold (identity, INCLUSIVE), and so
      // do, in the fixed order, the bands from this one on. A band read waits until it is
      // published; in the fixed order, chunk 0 (the window's base) until it is INCLUSIVE.
      const std::int64_t above = window_end - window + chunk;
      const std::int64_t above_tile = tile - (band - above) * g.column_blocks;
      TileView<Acc> view[V];
      const bool reads = columns > 0 && above >= 0 && above < band;
      const std::uint32_t needed = fixed && chunk == 0 ? kTileInclusive : kTileAggregate;
      if (reads) {
        for (bool valid = false; !valid;) {  // until each of its columns is
          state.read(above_tile, lane_in_group, view);
          valid = true;
#pragma unroll
          for (int j = 0; j < V; ++j) valid = valid && (j >= columns || view[j].status >= needed);
        }
      }
#pragma unroll
      for (int j = 0; j < V; ++j)
        if (!reads || j >= columns)
          view[j] = {in_group && above < 0 ? std::uint32_t(kTileInclusive) : std::uint32_t(kTileAggregate), identity};
      // Reduced in band order from the nearest INCLUSIVE band, which replaces what came before
      // it: the lanes of a column find it by one ballot, and the groups from there on are reduced
      // into group 0 in order, neighbours first (group g takes g + offset where 2 x offset
      // divides g). (A scan over the groups that shuffled the flag beside the value was the
      // kernel's largest share of instructions at 8 columns: bench/NOTES.md, "Scans along an axis".)
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const unsigned inclusive_lanes = __ballot_sync(kFullMask, view[j].status == kTileInclusive) & same_column_lanes;
        const int nearest = inclusive_lanes != 0 ? kWarpSize - 1 - __clz(inclusive_lanes) : 0;  // a lane
        Acc value = lane >= nearest ? view[j].value : identity;
#pragma unroll
        for (int offset = 1; offset < kWarpSize; offset *= 2) {
          if (offset >= g.groups) break;
          const Acc later = shuffle_down(value, offset * g.group_lanes);
          if ((group & (2 * offset - 1)) == 0 && group + offset < g.groups) value = op(value, later);
        }
        if (group == 0) {
          window_values[warp][first_column_in_tile + j] = value;
          window_inclusive[warp][first_column_in_tile + j] = inclusive_lanes != 0;
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
    if (holder && (!fixed || window_last)) {
#pragma unroll
      for (int j = 0; j < V; ++j)
        if (j < columns) state.template publish<V>(tile, kTileInclusive, lane_in_group, j, op(carry[j], tile_total(j)));
    }
  }
  __syncthreads();

  // 6. The chunk again from shared memory, scanned down each column from everything before it
  // (the bands above, then the chunks above in the tile), and out; the last band writes each
  // column's total. A tile narrower than a sector (ResultsThroughStage) writes its results back
  // into the stage instead, for step 7.
  Acc running[V];
#pragma unroll
  for (int j = 0; j < V; ++j) running[j] = op(shared_carry[first_column_in_tile + j], before_chunk[j]);
  auto to = args.out + (row_begin(tile_first_row + first_row_in_tile) + column);  // row by row: +-inner
  const std::int64_t row_step = Args::kReverse ? -g.inner : g.inner;
#pragma unroll 8  // 8 rows at a time: 32 rows of one column unrolled whole spilled at 64 registers
  for (int k = 0; k < kRows; ++k, to = to + row_step) {
    if (k >= rows_in_chunk || columns == 0) continue;
    Acc row[V];
    read_row(k, row);
    Out results[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const Acc through = op(running[j], row[j]);
      results[j] = static_cast<Out>(args.exclusive ? running[j] : through);
      running[j] = through;
    }
    if constexpr (ResultsThroughStage)
      stage.write_results(chunk_index + k * width, columns, results);
    else
      store_row(to, columns, results);
  }
  // 7. A narrow tile's results out of the stage with step 1's copies: a warp's stores then fill
  // whole sectors, where step 6's (a row of a chunk a lane group, the chunks a sector or more
  // apart) fill a part of one each (bench/NOTES.md, "Scans along an axis").
  if constexpr (ResultsThroughStage) {
    __syncthreads();
    const auto store_rows = [&] {
      for_each_copy([&](int index, std::int64_t element) { stage.store_results(index, args.out + element); });
    };
    if constexpr (kFlatFits<In>) {
      if (g.flat)
        stage.store_flat(args.out + tile_begin, tile_elements, ChunkOf(kRows * width));
      else
        store_rows();
    } else {
      store_rows();
    }
  }
  if (args.total && band == g.bands - 1 && warp == 0 && group == 0) {
#pragma unroll
    for (int j = 0; j < V; ++j)
      if (j < columns) args.total[slab * g.inner + column + j] = static_cast<Out>(op(shared_carry[first_column_in_tile + j], tile_total(j)));
  }
}

// The column scan's scratch memory and launch. V: the columns a lane loads at once, the vector
// of the wider of In and Out, or half of it, the wider of them that divides inner (every row's
// columns then start aligned) and leaves a lane group two lanes or more, else 1: 6 float32
// columns go by pairs, 4 by pairs on two lanes, 2 one by one on two lanes (groups of one lane
// ran slower with chunks of 160 bytes: bench/NOTES.md, "Scans along an axis").
template <class Config = ColumnsDefaultConfig>
struct ColumnsScan {
  // The most elements of T, a power of two, in 16 bytes (one for larger T); of the wider of In and Out.
  template <class T>
  static constexpr int kVectorOf = [] {
    int count = 1;
    while (2 * count * int(sizeof(T)) <= 16) count *= 2;
    return count;
  }();
  // A zipped input (zip.cuh) counts as its wider array, a split output (indexed_elements.cuh) as
  // its wider array too, and each of their arrays must be aligned. A scan whose accumulator is
  // wider than its element (a numbered input's pairs or words, 16-bit floats summed in float,
  // int8 in int32) holds at most 16 bytes of accumulators a lane: at a vector of int8's 16
  // columns, pairs of 8 bytes spilled 2 KB, and int32 sums of int8 260-290 bytes; bfloat16
  // summed in float spilled 4 at 8 columns (nvcc 13.0), and capped it runs 1.3-1.8x faster
  // (bench/NOTES.md, "torch's scan ops: split stores, the values alone, widening columns").
  template <class In, class Out, class Acc>
  static constexpr int kVector = [] {
    constexpr int widest = kVectorOf<typename VectorUnit<In>::type> < kVectorOf<typename VectorUnit<Out>::type>
                               ? kVectorOf<typename VectorUnit<In>::type>
                               : kVectorOf<typename VectorUnit<Out>::type>;
    return sizeof(Acc) > sizeof(In) && widest > kVectorOf<Acc> ? kVectorOf<Acc> : widest;
  }();

  template <class In, class Out, class Acc>
  static int vector_for(std::int64_t inner, typename InputPointer<In>::type in, typename OutputPointer<Out>::type out) {
    constexpr int V = kVector<In, Out, Acc>;
    for (const int vector : {V, V / 2})
      if (vector > 1 && inner % vector == 0 && inner / vector >= 2 && aligned(in, vector) && aligned(out, vector))
        return vector;
    return 1;
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
  template <class T, class I>
  static bool aligned(SplitPointer<T, I> pointer, int vector) {
    return aligned(pointer.values, vector) && aligned(pointer.indices, vector);  // null is aligned
  }

  // Whether the tiles move flat (ColumnGeometry::flat): one column block, rows forward, and every
  // tile of every array 16-byte aligned: the pointer, a chunk's bytes (rows a chunk x width
  // elements) and a slab's (length x inner elements, where there are several).
  template <class Args>
  static bool flat_fits(const Args& args, const ColumnGeometry& g) {
    using In = typename Args::InT;
    if constexpr (kFlatFits<In>) {
      if (Args::kReverse || g.width != g.inner) return false;
      const std::int64_t chunk = Config::rows_per_chunk(g.vector, kColumnsElementBytes<In, typename Args::AccT>) * g.width;
      return pieces_aligned(args.in, chunk, g) && pieces_aligned(args.out, chunk, g);
    } else {
      return false;
    }
  }
  template <class T>
  static bool pieces_aligned(const T* pointer, std::int64_t chunk, const ColumnGeometry& g) {
    const auto whole_pieces = [](std::int64_t elements) { return elements * std::int64_t(sizeof(T)) % 16 == 0; };
    return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0 && whole_pieces(chunk) &&
           (g.outer == 1 || whole_pieces(g.length * g.inner));
  }
  template <class A, class B>
  static bool pieces_aligned(ZipPointer<A, B> pointer, std::int64_t chunk, const ColumnGeometry& g) {
    return pieces_aligned(pointer.first, chunk, g) && pieces_aligned(pointer.second, chunk, g);
  }
  template <class T, class I>
  static bool pieces_aligned(SplitPointer<T, I> pointer, std::int64_t chunk, const ColumnGeometry& g) {
    return pieces_aligned(pointer.values, chunk, g) && pieces_aligned(pointer.indices, chunk, g);
  }

 public:

  template <class Acc>
  static std::size_t workspace_bytes(const ColumnGeometry& g) {
    return bytes_of_layout(
        [&](ScratchCarver& counter) { ColumnTileState<Acc>{}.layout(counter, g.tiles(), g.width, g.group_lanes); });
  }

  // args.n = outer x length x inner elements; the geometry made with the vector vector_for gave.
  template <class Args>
  static cudaError_t launch(const Args& args, const ColumnGeometry& g, Scratch scratch, std::uint32_t epoch,
                            cudaStream_t stream) {
    if (args.n == 0) return cudaSuccess;
    ScratchCarver carver(scratch.data);
    ColumnTileState<typename Args::AccT> state;
    state.layout(carver, g.tiles(), g.width, g.group_lanes);
    state.epoch = epoch;
    ColumnGeometry geometry = g;
    geometry.flat = flat_fits(args, g);
    constexpr int V = kVector<typename Args::InT, typename Args::OutT, typename Args::AccT>;
    if (g.vector == V) return launch_kernel<V>(args, geometry, state, stream);
    if constexpr (V / 2 > 1) {
      if (g.vector == V / 2) return launch_kernel<V / 2>(args, geometry, state, stream);
    }
    return launch_kernel<1>(args, geometry, state, stream);
  }

 private:
  template <int V, class Args>
  static cudaError_t launch_kernel(const Args& args, const ColumnGeometry& g, const ColumnTileState<typename Args::AccT>& state,
                                   cudaStream_t stream) {
    using Out = typename Args::OutT;
    const auto blocks = static_cast<unsigned>(g.tiles());
    constexpr int kStageBytes = ColumnsStage<Config, V, Args>::kBytes;
    const auto run = [&](auto kernel) {
      if constexpr (kStageBytes >= 48 * 1024) {
        if (const cudaError_t error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kStageBytes);
            error != cudaSuccess)
          return error;
      }
      kernel<<<blocks, Config::kThreads, kStageBytes, stream>>>(args, g, state);
      return cudaGetLastError();
    };
    if constexpr (kResultsFitStage<typename Args::InT, Out>) {
      if (g.width * int(sizeof(Out)) < kSectorBytes) return run(columns_scan_kernel<Config, V, true, Args>);
    }
    return run(columns_scan_kernel<Config, V, false, Args>);
  }
};

}  // namespace scan_zoo::detail
