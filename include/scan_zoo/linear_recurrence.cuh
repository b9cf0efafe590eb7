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
//       from each line's end: h[t] = a[t] h[t + 1] + b[t], h[length] = h_after (the form a
//       backward pass runs).
//
// Types: a of A, b of B, h of H. The state, and every product and sum, is State =
// accumulator_t<UseDefault, H> (scan.cuh): float for H = __half or __nv_bfloat16 (and float), H
// otherwise. Name it first to choose (linear_recurrence<double>(...)). h may be b (in place) when
// H and B have one size.
// Errors: as axis.cuh (cudaErrorInvalidValue for a bad shape, a null pointer with elements to
// scan, h == a or h == b of another element size); everything returned, nothing printed.
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

// Composition, the earlier map applied first: (a1, b1) then (a2, b2) = (a1 a2, a2 b1 + b2).
// Identity: (1, 0).
struct ComposeAffine {
  template <class T>
  __host__ __device__ Affine<T> operator()(const Affine<T>& earlier, const Affine<T>& later) const {
    return Affine<T>(earlier.a * later.a, later.a * earlier.b + later.b);
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

}  // namespace scan_zoo
