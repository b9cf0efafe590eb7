// scan_zoo/linear_recurrence.cuh -- the first-order linear recurrence h[t] = a[t] * h[t - 1] + b[t]
// along one axis of a batched array (the state update of a diagonal state-space model, an
// exponential moving average, a discounted return), at the speed of a scan. Header-only, like
// scan.cuh; a preview, as axis.cuh is (outside version 1.0's promise, CHANGELOG.md).
//
//   #include <scan_zoo/linear_recurrence.cuh>
//
//   scan_zoo::Workspace workspace;
//   // along the last axis of [batch, channels, length] float tensors a, b, h:
//   cudaError_t e = scan_zoo::linear_recurrence(d_a, d_b, d_h, scan_zoo::Shape{batch * channels, length},
//                                               workspace, stream);
//   // along the middle axis of [batch, length, channels]:
//   e = scan_zoo::linear_recurrence(d_a, d_b, d_h, scan_zoo::Shape{batch, length, channels}, workspace, stream);
//
// Idea (Blelloch 1990, "Prefix sums and their applications", section 1.4): the step
// h -> a h + b is an affine map, and maps compose associatively (not commutatively):
// (a1, b1) then (a2, b2) is h -> a2 (a1 h + b1) + b2 = (a1 a2, a2 b1 + b2). So h[t] is the
// inclusive scan of the maps (a[0], b[0]) .. (a[t], b[t]) under composition, applied to h[-1],
// and the library's scans along an axis (axis.cuh: rows, columns, middle axes, one launch) run
// it unchanged with the map as their accumulator, Affine<State>, and ComposeAffine as their
// operator. a and b are read as one input, each array with its own vector loads
// (detail/zip.cuh): nothing is interleaved in memory, and the traffic is the three arrays' bytes.
//
//   linear_recurrence(a, b, h, shape, workspace, stream = 0, h_before = 0)
//       along every line of shape ([outer, length, inner], axis.cuh): h[t] = a[t] h[t - 1] + b[t],
//       h[-1] = h_before.
//   reverse_linear_recurrence(a, b, h, shape, workspace, stream = 0, h_after = 0)
//       from each line's end: h[t] = a[t] h[t + 1] + b[t], h[length] = h_after.
//   linear_recurrence_backward(a, h, dh, da, db, shape, workspace, stream = 0, h_before = 0)
//   reverse_linear_recurrence_backward(..., h_after = 0)
//       the backward pass of each, given h and dh = dL/dh: da = dL/da and db = dL/db, in one
//       launch along rows (inner = 1; another axis returns cudaErrorNotSupported in this
//       preview). The loss reaches h[t] directly and through the steps after it, so
//       g[t] = dh[t] + a[t + 1] g[t + 1] (a[t - 1] g[t - 1] reversed), db[t] = g[t] and
//       da[t] = g[t] h[t - 1] (h[t + 1] reversed), h_before (h_after) at a line's first step.
//       Read shifted, a would cost the tiles their aligned vectors; so the kernel scans the
//       maps (a[t], a[t] dh[t]) of v[t] = a[t] g[t] = a[t] (dh[t] + v[t + 1]) from each line's
//       end, exclusive, which leaves v[t + 1] at t, and its store (RecurrenceGradientsOutput)
//       makes g[t] = dh[t] + v[t + 1] and both gradients, reading dh again and h, whose one
//       shifted element a vector comes from the neighbouring lane. Traffic: a, dh and h read,
//       da and db written. da may be a, and db may be dh when B and H have one size (in
//       place); no other output on an input (h is read across the tiles' edges).
//
// Types: a of A, b of B, h of H. The state, and every product and sum, is State =
// accumulator_t<UseDefault, H> (scan.cuh): float for H = __half or __nv_bfloat16 (and float), H
// otherwise. Name it first to choose (linear_recurrence<double>(...)). h may be b (in place) when
// H and B have one size.
// Errors: as axis.cuh (cudaErrorInvalidValue for a bad shape, a null pointer with elements to
// scan, h == a or h == b of another element size; the backward's da or db on h);
// everything returned, nothing printed.
// Rounding: the scan groups the products differently from the sequential loop (a tree inside
// each tile, tiles in the order the look-back meets them), so a float result matches the loop
// to rounding, not bit for bit; with integer-valued maps that stay below 2^24 it is exact.
// Forward progress: as scan.cuh.
#pragma once

#include <cuda_runtime.h>

#include "axis.cuh"
#include "detail/zip.cuh"

namespace scan_zoo {

// The map h -> a h + b.
template <class T>
struct Affine {
  using Value = T;
  T a;
  T b;

  Affine() = default;
  __host__ __device__ constexpr Affine(T multiplier, T addend) : a(multiplier), b(addend) {}
  // From one element of the zipped input (a[t], b[t]), converted to the state's type.
  template <class A, class B>
  __host__ __device__ explicit Affine(const detail::Zip<A, B>& step)
      : a(static_cast<T>(step.first)), b(static_cast<T>(step.second)) {}
  // What the composed maps make of a zero state: the maps from a line's first element (the one
  // before it folded in) to element t, applied to h[-1], leave h[t] here.
  template <class U>
  __host__ __device__ explicit operator U() const {
    return static_cast<U>(b);
  }
};

// The backward's map, made from (a[t], dh[t]): v -> a (dh + v), which is the affine map
// (a, a dh). It is an Affine in all but its making from the zipped input.
template <class T>
struct AdjointAffine : Affine<T> {
  using Affine<T>::Affine;
  AdjointAffine() = default;
  template <class A, class G>
  __host__ __device__ explicit AdjointAffine(const detail::Zip<A, G>& step)
      : Affine<T>(static_cast<T>(step.first), static_cast<T>(step.first) * static_cast<T>(step.second)) {}
};

// Composition, the earlier map applied first: (a1, b1) then (a2, b2) = (a1 a2, a2 b1 + b2).
// Identity: (1, 0). Map: Affine<T> or AdjointAffine<T>.
struct ComposeAffine {
  template <class Map>
  __host__ __device__ Map operator()(const Map& earlier, const Map& later) const {
    return Map(earlier.a * later.a, later.a * earlier.b + later.b);
  }
  template <class U>
  __host__ __device__ static U identity() {
    return U(typename U::Value(1), typename U::Value(0));
  }
};

namespace detail {

template <class StateChoice, bool Reverse, class A, class B, class H>
cudaError_t linear_recurrence(const A* a, const B* b, H* h, const Shape& shape, Workspace& workspace,
                              cudaStream_t stream, accumulator_t<StateChoice, H> h_outside) {
  using State = accumulator_t<StateChoice, H>;
  using Map = Affine<State>;
  // h[-1] (h[length] reversed) in front of every line: the constant map to it.
  return scan_along<Map, Reverse, Zip<A, B>, LineTotals::Never>(ZipPointer<A, B>{a, b}, h, shape, ScanKind::Inclusive,
                                                                Map(State(0), h_outside), ComposeAffine{}, workspace,
                                                                stream, Options<H>{});
}

// The backward's output element: da[t] and db[t], written to two arrays, never as a pair
// (RecurrenceGradientsOutput). State: the recurrence's; ForwardInTime: the recurrence runs from
// each line's start (so its adjoint from the end).
template <class A, class B, class H, class State, bool ForwardInTime>
struct RecurrenceGradients {
  A da;
  B db;
};

// Where the backward writes, and what it reads at the store: its tiles' items hold v[t + 1]
// (v[t] = a[t] dL/dh[t], the reverse recurrence's value one step later in time), and the store
// makes the gradients from them, dL/dh[t] = dh[t] + v[t + 1], db[t] = dL/dh[t] and
// da[t] = dL/dh[t] h[t - 1], reading dh again (the tile loaded it a moment before: from L2) and
// h. h[t - 1] is the item after in the scan's order, whichever way the recurrence runs (its
// adjoint runs the other way): the thread's next item, else the next lane's first (a shuffle),
// else the next round's (a shuffle from lane 0), and after a warp's run one scalar load, which
// the next warp's vector load of the same sector meets in cache. At a line's first step in time
// h[t - 1] is h_outside. The pointer moves as an Out* does (args.out + offset), `at` counting
// where it stands.
template <class A, class B, class H, class State, bool ForwardInTime>
struct RecurrenceGradientsOutput {
  using StoresItsOwnTiles = void;
  A* da;
  B* db;
  const H* dh;
  const H* h;
  std::int64_t at;
  std::int64_t n;
  std::int64_t length;
  State h_outside;

  __host__ __device__ RecurrenceGradientsOutput operator+(std::int64_t offset) const {
    RecurrenceGradientsOutput moved = *this;
    moved.at += offset;
    return moved;
  }
  __host__ __device__ RecurrenceGradientsOutput operator-(std::int64_t offset) const { return *this + -offset; }

  // The tile's gradients from its items (RegisterTile::store's form for an output that stores
  // its own tiles), by the tile's own vector loads and stores (Order: the scan's direction).
  template <class Tile, class Acc, int Items, class Order>
  __device__ void store_tile(int valid, const Acc (&items)[Items], Order order) const {
    constexpr int V = Order::kVector;
    constexpr int kRounds = Items / V;
    static_assert(Order::kReverse == ForwardInTime, "the adjoint runs against the recurrence's time");
    H dhs[Items], hs[Items];
    Tile::load(dh + at, valid, dhs, H{}, order);
    Tile::load(h + at, valid, hs, H{}, order);
    State before[Items];  // h[t - 1]: the state of the item after in scan order
#pragma unroll
    for (int i = 0; i < Items; ++i) before[i] = static_cast<State>(hs[i]);
    const int lane = static_cast<int>(lane_id());
#pragma unroll
    for (int k = 0; k < kRounds; ++k) {
      const State next_lane = __shfl_down_sync(kFullMask, before[k * V], 1);
      const State next_round = __shfl_sync(kFullMask, before[(k + 1 < kRounds ? k + 1 : k) * V], 0);
#pragma unroll
      for (int j = 0; j < V - 1; ++j) before[k * V + j] = before[k * V + j + 1];
      before[k * V + V - 1] = lane < kWarpSize - 1 ? next_lane : next_round;
    }
    if (lane == kWarpSize - 1) {  // after the warp's run: the next warp's first item, or the next tile's
      const int after = Tile::template offset<V>(kRounds - 1, V - 1) + 1;
      const std::int64_t index = Order::kReverse ? at - 1 - after : at + after;
      if (index >= 0 && index < n) before[Items - 1] = static_cast<State>(h[index]);
    }
    // A line's first step in time takes h_outside: one remainder a vector (its items are
    // consecutive in memory, descending when the scan runs in reverse).
#pragma unroll
    for (int k = 0; k < kRounds; ++k) {
      const int first = Tile::template offset<V>(k, 0);
      if (first >= valid) continue;
      const std::int64_t index = Order::kReverse ? at - 1 - first : at + first;
      const std::int64_t r = index % length;
#pragma unroll
      for (int j = 0; j < V; ++j) {
        bool line_start;
        if constexpr (ForwardInTime)  // element index - j, a start where its remainder is 0
          line_start = length >= V ? r == j : (int(r) - j) % int(length) == 0;
        else  // element index + j, a start (in time) where its remainder is length - 1
          line_start = length >= V ? r + j == length - 1 : (int(r) + j) % int(length) == int(length) - 1;
        if (line_start) before[k * V + j] = h_outside;
      }
    }
    A grad_a[Items];
    B grad_b[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const State grad_h = static_cast<State>(dhs[i]) + static_cast<State>(items[i]);  // dL/dh[t], all paths
      grad_b[i] = static_cast<B>(grad_h);
      grad_a[i] = static_cast<A>(grad_h * before[i]);
    }
    Tile::store(db + at, valid, grad_b, order);
    Tile::store(da + at, valid, grad_a, order);
  }
};

template <class A, class B, class H, class State, bool ForwardInTime>
struct OutputPointer<RecurrenceGradients<A, B, H, State, ForwardInTime>> {
  using type = RecurrenceGradientsOutput<A, B, H, State, ForwardInTime>;
};
// Counted in the widest of the arrays it moves, as a zip's loads are.
template <class A, class B, class H, class State, bool ForwardInTime>
struct VectorUnit<RecurrenceGradients<A, B, H, State, ForwardInTime>> {
  using Wider = typename std::conditional<(sizeof(A) >= sizeof(B)), A, B>::type;
  using type = typename std::conditional<(sizeof(Wider) >= sizeof(H)), Wider, H>::type;
};

template <class StateChoice, bool Reverse, class A, class B, class H>
cudaError_t linear_recurrence_backward(const A* a, const H* h, const H* dh, A* da, B* db, const Shape& shape,
                                       Workspace& workspace, cudaStream_t stream,
                                       accumulator_t<StateChoice, H> h_outside) {
  using State = accumulator_t<StateChoice, H>;
  using Map = AdjointAffine<State>;
  using Gradients = RecurrenceGradients<A, B, H, State, !Reverse>;
  const std::int64_t n = element_count(shape);
  if (n < 0) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  if (a == nullptr || h == nullptr || dh == nullptr || da == nullptr || db == nullptr) return cudaErrorInvalidValue;
  const auto same = [](const void* x, const void* y) { return x == y; };
  if (same(da, h) || same(db, h) || same(da, db) || same(da, dh) || same(db, a))
    return cudaErrorInvalidValue;  // h is read across tiles while they store; the rest, no pairing
  if (same(db, dh) && sizeof(B) != sizeof(H))
    return cudaErrorInvalidValue;
  if (shape.inner != 1) return cudaErrorNotSupported;
  // The reverse exclusive scan (forward, for a reverse recurrence) of the maps (a, a dh) from
  // each line's end, the constant map to v = 0 in front: item t holds v[t + 1].
  const ScanArgs<Zip<A, H>, Gradients, Map, ComposeAffine, !Reverse, LookbackOrder::Nearest> args{
      ZipPointer<A, H>{a, dh},
      RecurrenceGradientsOutput<A, B, H, State, !Reverse>{da, db, dh, h, 0, n, shape.length, h_outside},
      n,
      true,
      front_of<Map>(Map(State(0), State(0)), ComposeAffine{}),
      ComposeAffine{}};
  return scan_rows<LineTotals::Never>(args, shape.length, workspace, stream);
}

}  // namespace detail

template <class StateChoice = UseDefault, class A, class B, class H>
cudaError_t linear_recurrence(const A* a, const B* b, H* h, const Shape& shape, Workspace& workspace,
                              cudaStream_t stream = 0, accumulator_t<StateChoice, H> h_before = 0) {
  return detail::linear_recurrence<StateChoice, false>(a, b, h, shape, workspace, stream, h_before);
}

template <class StateChoice = UseDefault, class A, class B, class H>
cudaError_t reverse_linear_recurrence(const A* a, const B* b, H* h, const Shape& shape, Workspace& workspace,
                                      cudaStream_t stream = 0, accumulator_t<StateChoice, H> h_after = 0) {
  return detail::linear_recurrence<StateChoice, true>(a, b, h, shape, workspace, stream, h_after);
}

// The gradients of linear_recurrence's h with respect to a and b, given h and dh = dL/dh (the
// backward pass), in one launch: da[t] = g[t] h[t - 1] and db[t] = g[t], where
// g[t] = dL/dh[t] in all = dh[t] + a[t + 1] g[t + 1] (h[-1] = h_before).
template <class StateChoice = UseDefault, class A, class B, class H>
cudaError_t linear_recurrence_backward(const A* a, const H* h, const H* dh, A* da, B* db, const Shape& shape,
                                       Workspace& workspace, cudaStream_t stream = 0,
                                       accumulator_t<StateChoice, H> h_before = 0) {
  return detail::linear_recurrence_backward<StateChoice, false>(a, h, dh, da, db, shape, workspace, stream, h_before);
}

// reverse_linear_recurrence's: g[t] = dh[t] + a[t - 1] g[t - 1], da[t] = g[t] h[t + 1]
// (h[length] = h_after), db[t] = g[t].
template <class StateChoice = UseDefault, class A, class B, class H>
cudaError_t reverse_linear_recurrence_backward(const A* a, const H* h, const H* dh, A* da, B* db, const Shape& shape,
                                               Workspace& workspace, cudaStream_t stream = 0,
                                               accumulator_t<StateChoice, H> h_after = 0) {
  return detail::linear_recurrence_backward<StateChoice, true>(a, h, dh, da, db, shape, workspace, stream, h_after);
}

}  // namespace scan_zoo
