// scan_zoo/detail/rows_kernel.cuh -- a scan along the rows of a [rows, length] array (the last
// axis of a contiguous tensor: torch.cumsum(x, -1)), every row on its own, in one launch, for
// every row length.
//
// Idea: the rows laid end to end are one array of rows x length elements, and a scan of every
// row is a segmented scan of that array with a segment starting every `length` elements. A
// segmented scan is a plain scan under a lifted operator (Schwartz 1980; Blelloch 1990,
// "Prefix sums and their applications", section 1.5): pair each value with a flag "a row starts
// here" and combine (f1, v1) (+) (f2, v2) = (f1 | f2, f2 ? v2 : v1 op v2), which is associative
// whenever op is (and not commutative). So this is the tuned scan's kernel (tuned_kernel.cuh)
// over the flattened array, lifted where rows start, and tiles cut from the flattened
// array, not from each row: every tile but the last is whole and 16-byte aligned whatever the
// row length, so short rows (many to a tile), long rows (many tiles to a row) and everything
// between run the same code at the same vector width. No label is read: a row start is
// arithmetic, index % length == 0, tracked per thread by an increment.
//
// The look-back carries plain values: a tile that holds a row start has a total that depends on
// nothing before it (the reduction since its last row start), and publishes it INCLUSIVE at once
// (a "closed" tile, grid/lookback.cuh); a walk back therefore ends at the nearest tile with a row start,
// which is where the carry into a later tile begins. With rows shorter than a tile every tile is
// closed and no walk goes past its neighbour.
//
// What the lifting costs, and how little of it is paid. A pair per item would take twice the
// registers, and registers decide how many bytes an SM keeps in flight (RowsConfig): so the
// values stay plain, the flags are one bit an item in a 32-bit word, and pairs appear only where
// values cross threads (a vector's total in the warp's shuffles, a warp's total in the block's
// combine: RestartingWarpScan). A tile with no row start needs none of it (its items all continue
// the row of the tile before), and with rows longer than a tile nearly every tile is such a plain
// tile: it runs the tuned kernel's steps, and only the tiles holding a row start (and the last
// tile) take the lifted ones.
//
// The kernel, top to bottom (rows_scan_kernel below), the tuned kernel's steps:
//   1. load the tile; is there a row start in it (or the array's end just after it)?
//   Without: 2-6 as the tuned kernel, the tile published AGGREGATE then INCLUSIVE.
//   With, lifted: mark the items that start a row (a bit each) and put the initial value in front
//   of each row's first item; 2. scan each warp's run, restarting at the marks; 3. combine the
//   warp totals as pairs (one barrier); 4. warp 0 publishes the tile's total, INCLUSIVE at once
//   when a row starts in the tile (closed; the look-back then serves only the items before that
//   start, and a tile whose first item starts a row skips it), else AGGREGATE, looks back and
//   publishes INCLUSIVE; 5. a second barrier hands out the carry-in; 6. put the carry-in and the
//   warps before in front of every item that no row start precedes in its warp, and store; an
//   exclusive scan puts the initial value on each row's first item; the row totals go to
//   Options::total when asked.
// Deterministic (ScanArgs::fixed_order(): Determinism::RunToRun, or ChosenAtRunTime and asked):
// step 4 takes the fixed-order look-back (grid/lookback.cuh), its chain of windows starting at the
// tile where the row of the tile's first item starts (RowStarts::first_tile_of_row), so that rows
// shorter than a window wait as long as they do now, and a row of many windows waits window by
// window. Rows only: segments by offsets have no arithmetic for that tile.
// Where lines start is the kernel's Starts parameter: RowStarts (below: every `length`
// elements, by arithmetic) for the rows of axis.cuh, SegmentStarts (segment_starts.cuh: read
// from begin and end offsets, with gaps between segments left unwritten) for segmented.cuh.
// Reverse scans (suffix sums along each row) number the elements from the end of the array
// (TileOrder): the rows are whole, so in that order too a row starts every `length` elements.
//
// Work O(N); launches 1; global traffic 2 accesses per element plus one descriptor per tile:
// the bound is a copy of the same bytes. Forward progress as the tuned kernel (blocks dispatched
// in blockIdx.x order, a tile waits only on smaller ones).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "core.cuh"
#include "grid/lookback.cuh"
#include "register_tile.cuh"
#include "scratch.cuh"
#include "grid/descriptors.cuh"
#include "tuned_kernel.cuh"
#include "warp.cuh"
#include "../operators.cuh"

namespace scan_zoo::detail {

// A value of the lifted scan: `head` says that a row starts at (or within the range of) it.
template <class T>
struct Headed {
  using Value = T;
  T value;
  std::uint32_t head;
};

// The lifted operator, with the scan's operator (and its state) inside. The later operand's
// flag discards everything to its left.
template <class Op>
struct RestartAtHeads {
  Op op;
  template <class P>
  __device__ __forceinline__ P operator()(const P& earlier, const P& later) const {
    return P{later.head ? later.value : op(earlier.value, later.value), earlier.head | later.head};
  }
  template <class P>
  __device__ __forceinline__ P identity() const {
    return P{op.template identity<typename P::Value>(), 0u};
  }
};

// The lifted scan of a warp's run without a pair per item: the items stay plain values and the
// row starts are one bit each in `heads` (bit k V + j: item j of round k), so a tile with row
// starts holds as many registers as a plain one. The steps are RegisterTile::scan_warp's (per
// round: a thread-serial scan of the vector, a shuffle scan of the 32 vector totals, the lanes
// and rounds before put in front), on pairs only where values cross threads: one (total, any
// start) pair per vector. Inclusive or exclusive as RegisterTile::scan_warp; returns the run's
// total pair to every lane. On return, bit i of `reached` says that a row starts in the warp's
// run before item i's value begins (at or before item i when inclusive, before it when
// exclusive): the items whose value owes nothing to the warps and tiles before.
template <class Tile, int V>
struct RestartingWarpScan {
  static constexpr int kItems = Tile::kItems;
  static_assert(kItems <= 32 && V < 32, "one bit an item in a 32-bit word");

  template <class Acc, class Op>
  __device__ static Headed<Acc> scan(Acc (&items)[kItems], std::uint32_t heads, bool exclusive, const Op& op,
                                     std::uint32_t& reached) {
    using Pair = Headed<Acc>;
    const RestartAtHeads<Op> lifted{op};
    ShuffleWarpScan::Storage<Pair> no_storage;
    Pair rounds_before = lifted.template identity<Pair>();
    reached = 0;
#pragma unroll
    for (int k = 0; k < kItems / V; ++k) {
      Acc* vector = &items[k * V];
      const std::uint32_t starts = (heads >> (k * V)) & ((1u << V) - 1);  // this vector's
#pragma unroll
      for (int j = 1; j < V; ++j)
        if (!((starts >> j) & 1u)) vector[j] = op(vector[j - 1], vector[j]);
      const Pair lanes_through_mine =
          ShuffleWarpScan::inclusive<Pair, RestartAtHeads<Op>>(Pair{vector[V - 1], starts != 0}, no_storage, lifted);
      const Pair before = lifted(rounds_before, exclusive_from_inclusive<Pair>(lanes_through_mine, lifted));
      if (exclusive) {
        // Item j takes item j - 1's inclusive value: complete in the vector if a row starts in
        // items 0 .. j - 1, else with `before` in front.
#pragma unroll
        for (int j = V - 1; j > 0; --j) {
          const bool started = (starts & ((1u << j) - 1)) != 0;
          vector[j] = started ? vector[j - 1] : op(before.value, vector[j - 1]);
          if (started || before.head) reached |= 1u << (k * V + j);
        }
        vector[0] = before.value;
        if (before.head) reached |= 1u << (k * V);
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j) {
          const bool started = (starts & ((2u << j) - 1)) != 0;
          if (!started) vector[j] = op(before.value, vector[j]);
          if (started || before.head) reached |= 1u << (k * V + j);
        }
      }
      rounds_before = lifted(rounds_before, shuffle_from(lanes_through_mine, kWarpSize - 1));
    }
    return rounds_before;
  }
};

// Where a thread's items fall in their rows. The items of round k lie at scan-order index
// first + 32 V k + j (j < V: RegisterTile's layout); `position` is index % length of the round's
// first item and `row` its row. The divisions happen once, when a thread makes its cursor; after
// that, no item and no round divides:
// - rows of V elements or more hold at most one start or end in a vector: a comparison per item;
// - shorter rows (at most 15 elements) read a 32-bit mask of the positions below 2 V that start
//   a row (bit i: i % length == 0), shifted by the item's position; the rows an item is past are
//   the mask's bits up to it;
// - a round moves the position by 32 V = step_rows rows and step_rest elements: an addition and
//   at most one wrap.
template <int V>
struct RowCursor {
  static_assert(V >= 1 && V <= 16, "the short-row mask holds positions below 2 V <= 32");
  static constexpr int kStep = kWarpSize * V;  // from one round's first item to the next's

  std::int64_t length;
  std::int64_t position;
  std::int64_t row;
  int step_rows, step_rest;  // kStep = step_rows x length + step_rest
  std::uint32_t short_row_starts = 0;

  __host__ __device__ RowCursor(std::int64_t first, std::int64_t row_length)
      : length(row_length),
        position(first % row_length),
        row(first / row_length),
        step_rows(row_length > kStep ? 0 : int(kStep / row_length)),
        step_rest(row_length > kStep ? kStep : int(kStep % row_length)) {
    if (length < V)
      for (int i = 0; i < 2 * V; i += int(length)) short_row_starts |= 1u << i;
  }

  __host__ __device__ __forceinline__ bool starts_row(int j) const {
    if (length >= V) return position + j == 0 || position + j == length;
    return (short_row_starts >> (int(position) + j)) & 1u;
  }
  __host__ __device__ __forceinline__ bool ends_row(int j) const {
    if (length >= V) return position + j + 1 == length;
    return (short_row_starts >> (int(position) + j + 1)) & 1u;
  }
  __host__ __device__ __forceinline__ std::int64_t row_of(int j) const {
    if (length >= V) return row + (position + j >= length ? 1 : 0);
    return row + ones(short_row_starts & ((2u << (int(position) + j)) - 1)) - 1;  // bit 0 is the round's own row
  }
  // On to the next round's first item.
  __host__ __device__ __forceinline__ void next_round() {
    position += step_rest;
    row += step_rows;
    if (position >= length) {
      position -= length;
      ++row;
    }
  }

 private:
  __host__ __device__ static int ones(std::uint32_t bits) {
#ifdef __CUDA_ARCH__
    return __popc(bits);
#else
    return __builtin_popcount(bits);
#endif
  }
};

// Where lines start, for the kernel below: the rows of the array, one every `length` elements,
// found by arithmetic. (segment_starts.cuh has the other kind: segments given by offsets.) A
// Starts type gives each tile an InTile: `plain` (no line starts in the tile: the tuned kernel's
// steps serve it), a cursor over the thread's items (starts_row(j), next_round(); with
// kLineTotals also ends_row(j) and row_of(j) for Options::total), and the tile's store.
// LineTotals: the scan writes each row's total (Options::total). A compile-time choice, so that the
// kernel of the common call, without totals, carries none of their registers (RowsConfig).
template <bool LineTotals>
struct RowStarts {
  static constexpr bool kLineTotals = LineTotals;
  std::int64_t length;

  struct InTile {
    std::int64_t begin;
    std::int64_t length;
    bool plain;

    // The cursor of the thread whose first item is `offset` in the tile.
    template <class Tile, int V>
    __device__ RowCursor<V> cursor(int offset) const {
      return RowCursor<V>(begin + offset, length);
    }
    template <class Tile, class Order, class OutPointer, class Acc, int Items>
    __device__ void store(OutPointer at, int valid, const Acc (&items)[Items]) const {
      Tile::store(at, valid, items, Order{});
    }
  };

  // No row starts at begin .. begin + valid: the element after the tile counted, so that a row
  // ending on the tile's last item (whose total the lifted steps write) is never plain.
  template <class Config>
  __device__ InTile at_tile(std::int64_t begin, int valid) const {
    const std::int64_t past_row_start = begin % length;
    return {begin, length, past_row_start != 0 && length - past_row_start > valid};
  }

  // The tile where the row of element `index` (in scan order) starts: the first tile of the chain
  // that the fixed-order look-back walks for it (grid/lookback.cuh). Segments (segment_starts.cuh)
  // have no such arithmetic, and no fixed-order look-back.
  template <class Config>
  __device__ std::int64_t first_tile_of_row(std::int64_t index) const {
    return index / length * length / Config::kTileItems;
  }
};

// A numbered input's items (indexed_elements.cuh) get their index along their row: the element
// at memory position p (of the flattened array) has index p mod length. One 64-bit division a
// thread, for the tile's first item; each item is then an offset of less than a tile from it, so
// a row longer than a tile wraps at most once, and a shorter one (under 2^15 elements) takes a
// 32-bit remainder. A 32-bit index (lines under 2^31 elements, extremes.cuh's Position) wraps in
// 32-bit arithmetic: first + offset stays below 2^31 + a tile, inside an unsigned word.
template <class Tile, int V, bool Reverse, class Acc, int Items>
__device__ void number_items(Acc (&items)[Items], std::int64_t begin, int valid, std::int64_t n, std::int64_t length) {
  const std::int64_t first = (Reverse ? n - 1 - begin : begin) % length;  // item 0's index
#pragma unroll
  for (int k = 0; k < Items / V; ++k)
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const int offset = Tile::template offset<V>(k, j);
      if (offset >= valid) continue;  // the padding stays the identity
      std::int64_t index;
      if (kIndexBytes<Acc> <= 4 && length > Tile::kTileItems) {
        const std::uint32_t length32 = static_cast<std::uint32_t>(length), first32 = static_cast<std::uint32_t>(first);
        std::uint32_t wrapped = Reverse ? first32 - offset + (first32 < std::uint32_t(offset) ? length32 : 0u)
                                        : first32 + offset;
        if (wrapped >= length32) wrapped -= length32;
        index = wrapped;
      } else if (length > Tile::kTileItems) {
        index = Reverse ? first - offset : first + offset;
        if (index < 0) index += length;
        if (index >= length) index -= length;
      } else {
        const int wrapped = (Reverse ? int(first) - offset : int(first) + offset) % int(length);
        index = wrapped < 0 ? wrapped + length : wrapped;
      }
      assign_index(items[k * V + j], index);
    }
}

// The row configuration: the tuned space's 256-thread tile, exchange, dense descriptors, a
// window of 32, spinning, aggregate after the scan, with 128 bytes of accumulators per thread:
// 32 items of 32 bits, 16 of 64 bits or more. What a block keeps in flight decides the speed
// along long rows (bench/NOTES.md, "Scans along an axis"): with 256 x 16 and 69 registers (3
// blocks an SM) the row kernel drew clearly less DRAM bandwidth at 2^26 than the tuned scan's
// 256 x 32 (58 registers, 4 blocks) (ncu). So the tile is the tuned one's, the lifted scan keeps
// no pair per item (RestartingWarpScan), and the kernel says how many blocks an SM must hold
// (kRowsBlocksPerSm): three of 32-bit values (at most 80 registers; four, 64, spilled), two when
// the kernel also writes row totals (three spilled). 64-bit values (the linear recurrence's maps)
// take 12 items at three blocks: of 8, 12, 16 and 24 items at 4, 3, 1 and 2 blocks, 12 ran the
// recurrence fastest (bench/NOTES.md, "Scans along an axis"). Wider values one block, said
// outright: without it ptxas held the 2x2 matrix product's kernel (pairs of 16-byte values) below
// what it needs, and spilled.
// A type may ask for another tile (narrow_columns.cuh) by specializing RowsTile, and for other
// blocks an SM (extremes.cuh) by specializing kRowsBlocksPerSm.
template <class Acc>
struct RowsTile {
  static constexpr int kThreads = 256;
  static constexpr int kItems = sizeof(Acc) <= 4 ? 32 : sizeof(Acc) <= 8 ? 12 : 16;
};
template <class Acc>
using RowsConfig = TunedConfig<RowsTile<Acc>::kThreads, RowsTile<Acc>::kItems, Publish::Exchange, 1, 1, 0,
                               Aggregate::AfterScan>;
// An operator of exponentials and logarithms (LogAddExp) needs the registers of two blocks: at
// three (80 registers) ptxas spilled its float kernel.
template <class Op>
inline constexpr bool kCallsTranscendentals = std::is_same_v<Op, LogAddExp>;
template <class Acc, class Op, bool LineTotals>
inline constexpr int kRowsBlocksPerSm = sizeof(Acc) > 8 ? 1 : LineTotals || kCallsTranscendentals<Op> ? 2 : 3;

// The first tile of the fixed-order look-back's chain for the items from element `index` (scan
// order) on: where that element's row starts (RowStarts::first_tile_of_row). Only rows have one:
// segmented.cuh's scans always take the nearest-INCLUSIVE look-back, so the call below is
// compiled for RowStarts alone.
template <class Config, class Args, class Starts>
__device__ std::int64_t fixed_chain_start(const Starts& starts, std::int64_t index) {
  static_assert(Args::kOrder != LookbackOrder::Nearest, "only a kernel with the fixed-order look-back asks");
  return starts.template first_tile_of_row<Config>(index);
}

template <class Config, class Args, class Starts>
__global__ void __launch_bounds__(Config::kThreads,
                                  kRowsBlocksPerSm<typename Args::AccT, typename Args::OpT, Starts::kLineTotals>)
    rows_scan_kernel(Args args, Starts starts, typename Config::template State<typename Args::AccT> state,
                     std::uint32_t tiles) {
  using Tile = typename Config::Tile;
  using Acc = typename Args::AccT;
  using Op = typename Args::OpT;
  using Pair = Headed<Acc>;
  using Lifted = RestartAtHeads<Op>;
  using Lookback = typename Config::template Lookback<Acc>;
  using Order = TileOrder<Tile::template kVectorOfBoth<typename Args::InT, typename Args::OutT>, Args::kReverse>;
  constexpr int V = Order::kVector;
  constexpr int kRounds = Config::kItems / V;
  const Op& op = args.op;
  const Lifted lifted{op};
  const std::uint32_t tile = blockIdx.x;
  const std::int64_t begin = std::int64_t(tile) * Config::kTileItems;
  const int valid = tile_extent(begin, args.n, Config::kTileItems);
  const std::int64_t at = Args::kReverse ? args.n - begin : begin;
  std::int64_t rows = 0;  // with line totals
  if constexpr (Starts::kLineTotals) rows = args.n / starts.length;
  Acc items[Config::kItems];

  // 1. Load (and number a numbered input's items: indexed_elements.cuh).
  Tile::load(args.in + at, valid, items, op.template identity<Acc>(), Order{});
  if constexpr (kNumbered<typename Args::InT>)
    number_items<Tile, V, Args::kReverse>(items, begin, valid, args.n, starts.length);

  // 2-6 for a plain tile: no line starts in it (Starts::at_tile says; uniform in the block).
  // Lines longer than a tile make nearly every tile plain, and a plain tile is the tuned
  // kernel's (tuned_kernel.cuh): plain values, a walk that ends at the nearest closed tile, the
  // carry in front.
  const auto lines = starts.template at_tile<Config>(begin, valid);
  if (lines.plain) {
    const Acc warp_total = Tile::template scan_warp<Acc, Op, V>(items, args.exclusive, op);
    const typename Tile::template BlockTotals<Acc> totals = Tile::template combine_warps<Acc, Op>(warp_total, op);
    __shared__ Acc plain_carry;
    if (warp_id() == 0) {
      const Lookback lookback{state, tile};
      Acc prefix = op.template identity<Acc>();
      if constexpr (Args::kOrder != LookbackOrder::Nearest)
        if (args.fixed_order())  // the chain from the tile where this row starts
          prefix = lookback.template fixed_order_in_warp0<Acc, Op>(totals.tile, op,
                                                                   fixed_chain_start<Config, Args>(starts, begin));
      if (!args.fixed_order()) prefix = lookback.template get_in_warp0<Acc, Op>(totals.tile, op, false);
      if (lane_id() == 0) plain_carry = prefix;
    }
    __syncthreads();
    Tile::template prepend<Acc, Op>(items, op(plain_carry, totals.before_warp), op);
    Tile::store(args.out + at, valid, items, Order{});
    return;
  }

  // 2-6 for a tile with a row start, lifted. Mark the row starts (a bit an item), and put the
  // initial value in front of each row.
  const Acc initial = args.front.fold(op);
  std::uint32_t heads = 0;
  {
    auto cursor = lines.template cursor<Tile, V>(Tile::template offset<V>(0, 0));
#pragma unroll
    for (int k = 0; k < kRounds; ++k) {
#pragma unroll
      for (int j = 0; j < V; ++j)
        // Not the padding past the last element: a start there would cut the last row's total.
        if (Tile::template offset<V>(k, j) < valid && cursor.starts_row(j)) {
          items[k * V + j] = op(initial, items[k * V + j]);
          heads |= 1u << (k * V + j);
        }
      cursor.next_round();
    }
  }

  // Scan each warp's run, restarting at the marks; combine the warp totals as pairs.
  std::uint32_t reached;
  const Pair warp_total = RestartingWarpScan<Tile, V>::scan(items, heads, args.exclusive, op, reached);
  const typename Tile::template BlockTotals<Pair> totals = Tile::template combine_warps<Pair, Lifted>(warp_total, lifted);

  // Publish (a tile with a row start is closed: INCLUSIVE at once), look back, hand out the
  // carry-in. Tile 0 starts with a row, so its carry-in is the identity, and so is that of any
  // tile whose first item starts a row (rows of 1024 make every tile such a tile): it publishes
  // and skips the walk, waiting on no one. Except where an exclusive scan writes row totals: the
  // total of the row before is what that first item holds before the initial value replaces it,
  // which is the carry-in.
  Acc carry = op.template identity<Acc>();
  if (tiles > 1) {
    __shared__ Acc shared_carry;
    if (warp_id() == 0) {
      const bool needs_carry_for_total = Starts::kLineTotals && args.total && args.exclusive;
      const bool opens_with_start =
          !needs_carry_for_total && __shfl_sync(kFullMask, heads & 1u, 0) != 0;  // lane 0 holds item 0
      const bool closed = totals.tile.head != 0;
      const Lookback lookback{state, tile};
      Acc prefix = op.template identity<Acc>();
      // The fixed order's chain: from where the row of item 0 starts (where the row before
      // starts when item 0 opens a row and that row's total is wanted).
      if constexpr (Args::kOrder != LookbackOrder::Nearest)
        if (args.fixed_order()) {
          const std::int64_t from = needs_carry_for_total && begin % starts.length == 0 ? begin - 1 : begin;
          prefix = lookback.template fixed_order_in_warp0<Acc, Op>(totals.tile.value, op,
                                                                   fixed_chain_start<Config, Args>(starts, from), closed);
        }
      if (!args.fixed_order())
        prefix = look_back_in_warp0<Acc, Op, typename Config::Backoff>(
            state, tile, totals.tile.value, closed,
            [&] { return opens_with_start ? op.template identity<Acc>() : lookback.template walk<Acc, Op>(op); }, op);
      if (lane_id() == 0) shared_carry = prefix;
    }
    __syncthreads();
    carry = shared_carry;
  }

  // The carry-in and the warps before in front of every item that no row start in its warp
  // precedes (`reached`); the values out. An exclusive scan's row starts hold the reduction of
  // the row before: the initial value replaces it. Row totals, when asked: an inclusive scan's
  // are the values at the rows' last items; an exclusive scan's total of row r - 1 is what its
  // row-r start held, and the last row's the tile's total.
  const Acc in_front = lifted(Pair{carry, 0u}, totals.before_warp).value;
#pragma unroll
  for (int i = 0; i < Config::kItems; ++i)
    if (!((reached >> i) & 1u)) items[i] = op(in_front, items[i]);
  {
    auto cursor = lines.template cursor<Tile, V>(Tile::template offset<V>(0, 0));  // for the row totals only
#pragma unroll
    for (int k = 0; k < kRounds; ++k) {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const Acc value = items[k * V + j];
        const bool head = (heads >> (k * V + j)) & 1u;
        if constexpr (Starts::kLineTotals) {
          if (args.total && Tile::template offset<V>(k, j) < valid) {
            const std::int64_t row = cursor.row_of(j);  // in scan order
            if (!args.exclusive && cursor.ends_row(j))
              args.total[Args::kReverse ? rows - 1 - row : row] = static_cast<typename Args::OutT>(value);
            if (args.exclusive && head && row > 0)
              args.total[Args::kReverse ? rows - row : row - 1] = static_cast<typename Args::OutT>(value);
          }
        }
        if (args.exclusive && head) items[k * V + j] = initial;
      }
      if constexpr (Starts::kLineTotals) cursor.next_round();
    }
  }
  lines.template store<Tile, Order>(args.out + at, valid, items);
  if constexpr (Starts::kLineTotals)
    if (args.exclusive && args.total && tile == tiles - 1 && threadIdx.x == 0)
      args.total[Args::kReverse ? 0 : rows - 1] =
          static_cast<typename Args::OutT>(lifted(Pair{carry, 0u}, totals.tile).value);
}

// The row scan's scratch memory (the tuned scan's, for its configuration) and launch, for
// accumulators of type Acc.
template <class Acc>
struct RowsScan {
  using Config = RowsConfig<Acc>;
  using Descriptors = typename TunedScan<Config>::template Descriptors<Acc>;

  static std::size_t workspace_bytes(std::int64_t n) {
    return Descriptors::workspace_bytes(ceil_div<std::int64_t>(n, Config::kTileItems));
  }

  // args.n elements, their lines where `starts` says (RowStarts: rows x length elements);
  // returns the launch's error.
  template <class Args, class Starts>
  static cudaError_t launch(const Args& args, const Starts& starts, Scratch scratch, std::uint32_t epoch,
                            cudaStream_t stream) {
    static_assert(std::is_same_v<typename Args::AccT, Acc>, "the configuration is chosen for the accumulator");
    if (args.n == 0) return cudaSuccess;
    const std::int64_t tiles = ceil_div<std::int64_t>(args.n, Config::kTileItems);
    const auto state = Descriptors::for_run(scratch, tiles, epoch);
    rows_scan_kernel<Config, Args, Starts><<<static_cast<unsigned>(tiles), Config::kThreads, 0, stream>>>(
        args, starts, state, static_cast<std::uint32_t>(tiles));
    return cudaGetLastError();
  }
};

}  // namespace scan_zoo::detail
