// scan_ops.cuh -- what the four self-tests of the scans torch has beside the sum share
// (scan_ops_*_selftest.cu): the shapes every check runs, a shape's lines walked in scan order
// (where the CPU references step), the names of a shape and of a place in it, cummax and cummin
// checked against torch's CPU loop (the extremes of narrow and of 16-byte pairs), and one scan
// along an axis with its output poisoned (the products and logcumsumexp).
//
// Four programs, not one: each (element, position, operator) pair compiles the row and column
// kernels in their configurations, and one program holding every check was, with the forms'
// value with holes, the last of a GPU machine's build to finish, one core busy while the others
// waited (bench/NOTES.md, "The scan ops' self-test in four programs"). Split by op, they compile
// side by side.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <scan_zoo/extremes.cuh>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "selftest.cuh"

namespace scan_ops {

using namespace selftest;

// Rows: one element, shorter than a vector, than a tile, a tile and a bit, many tiles; 1-D.
// Then columns and a middle axis ([batch, length, channels]).
inline const std::vector<scan_zoo::Shape> kShapes = {
    {1, 1}, {5, 3}, {33, 31}, {3, 4095}, {3, 4097}, {2, 3 * 4096 + 5}, {8, 131072}, {4096, 7}, {1, 1000003},
    {1, 1000, 4}, {1, 16384, 64}, {2, 40000, 3}, {3, 500, 7}, {2, 1000, 128}};

inline std::int64_t elements(const scan_zoo::Shape& s) { return s.outer * s.length * s.inner; }

inline std::string shape_name(const scan_zoo::Shape& s) {
  return " [" + std::to_string(s.outer) + ", " + std::to_string(s.length) + ", " + std::to_string(s.inner) + "]";
}

inline std::string where(std::int64_t i, const scan_zoo::Shape& s) {
  const std::int64_t slab = s.length * s.inner;
  return "[" + std::to_string(i / slab) + ", " + std::to_string(i % slab / s.inner) + ", " +
         std::to_string(i % s.inner) + "]";
}

// Calls fn(step, t, at) for every line of s: `step` counts along the line in scan order, `t` is
// the element's position on its line, `at` its place in the array.
template <class Fn>
void for_each_line(const scan_zoo::Shape& s, bool reverse, Fn&& fn) {
  for (std::int64_t o = 0; o < s.outer; ++o)
    for (std::int64_t i = 0; i < s.inner; ++i)
      for (std::int64_t step = 0; step < s.length; ++step) {
        const std::int64_t t = reverse ? s.length - 1 - step : step;
        fn(step, t, (o * s.length + t) * s.inner + i);
      }
}

// ---- cummax and cummin ----

// Host arrays of any T (std::vector<bool> holds bits, not bools).
template <class T>
using HostArray = std::unique_ptr<T[]>;

template <class T>
float as_float(T x) { return static_cast<float>(x); }

template <class T>
bool is_nan(T x) {
  const float f = as_float(x);
  return f != f;
}

// torch's CPU loop (cummax_cummin_helper): the current element replaces the running one when it
// is NaN, or when neither is NaN and it is >= (cummax) or <= (cummin) the running one.
template <class T>
void reference_extremes(const T* x, const scan_zoo::Shape& s, bool max, bool reverse, T* values,
                        std::int64_t* indices) {
  T best{};
  std::int64_t best_index = 0;
  for_each_line(s, reverse, [&](std::int64_t step, std::int64_t t, std::int64_t at) {
    const T current = x[at];
    const float c = as_float(current), b = as_float(best);
    if (step == 0 || is_nan(current) || (!is_nan(best) && (max ? c >= b : c <= b))) {
      best = current;
      best_index = t;
    }
    values[at] = best;
    indices[at] = best_index;
  });
}

template <class T>
bool same_value(T a, T b) {
  return is_nan(a) ? is_nan(b) : same(a, b);
}

// Both operators, forward, and reversed where `reverse_too` says; each with indices and with
// null indices (the values alone).
template <class Position, class T>
void check_extremes(const char* type, const HostArray<T>& x, const scan_zoo::Shape& s, bool reverse_too,
                    scan_zoo::Workspace& workspace) {
  const std::int64_t n = elements(s);
  DeviceArray<T> d_x(n), d_values(n);
  DeviceArray<std::int64_t> d_indices(n);
  if (n > 0) CHECK_CUDA(cudaMemcpy(d_x.data, x.get(), n * sizeof(T), cudaMemcpyHostToDevice));
  for (const bool max : {true, false})
    for (const bool reverse : {false, true})
      for (const bool values_alone : {false, true}) {
        if (reverse && !reverse_too) continue;
        const std::string name = std::string("extremes ") + (reverse ? "reverse_" : "") + (max ? "cummax " : "cummin ") +
                                 type + (sizeof(Position) == 4 ? " int32 positions" : " int64 positions") +
                                 (values_alone ? " values alone" : "") + shape_name(s);
        std::int64_t* indices = values_alone ? nullptr : d_indices.data;
        if (n > 0) {
          CHECK_CUDA(cudaMemset(d_values.data, 0xA5, n * sizeof(T)));
          CHECK_CUDA(cudaMemset(d_indices.data, 0xA5, n * sizeof(std::int64_t)));
        }
        const cudaError_t error =
            max ? (reverse ? scan_zoo::reverse_cummax<Position>(d_x.data, d_values.data, indices, s, workspace)
                           : scan_zoo::cummax<Position>(d_x.data, d_values.data, indices, s, workspace))
                : (reverse ? scan_zoo::reverse_cummin<Position>(d_x.data, d_values.data, indices, s, workspace)
                           : scan_zoo::cummin<Position>(d_x.data, d_values.data, indices, s, workspace));
        if (error != cudaSuccess) {
          report(false, name, std::string("returned ") + cudaGetErrorString(error));
          continue;
        }
        HostArray<T> got_values(new T[n]), want_values(new T[n]);
        HostArray<std::int64_t> got_indices(new std::int64_t[n]), want_indices(new std::int64_t[n]);
        if (n > 0) {
          CHECK_CUDA(cudaMemcpy(got_values.get(), d_values.data, n * sizeof(T), cudaMemcpyDeviceToHost));
          CHECK_CUDA(cudaMemcpy(got_indices.get(), d_indices.data, n * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
        }
        reference_extremes(x.get(), s, max, reverse, want_values.get(), want_indices.get());
        // With indices a NaN of 32 bits or fewer comes back as the default quiet NaN (extremes.cuh);
        // the values alone keep its bits.
        std::string why;
        for (std::int64_t i = 0; i < n && why.empty(); ++i)
          if (values_alone ? std::memcmp(&got_values[i], &want_values[i], sizeof(T)) != 0
                           : !same_value(got_values[i], want_values[i]) || got_indices[i] != want_indices[i])
            why = "first wrong element at " + where(i, s) + ": " +
                (values_alone ? hex_bytes(got_values[i]) + ", want " + hex_bytes(want_values[i])
                              : "(" + std::to_string(as_float(got_values[i])) + ", " + std::to_string(got_indices[i]) +
                                    "), want (" + std::to_string(as_float(want_values[i])) + ", " +
                                    std::to_string(want_indices[i]) + ")");
        report(why.empty(), name, why);
      }
}

// Small integers, so that ties are common (bool: 0 and 1); for floats a NaN (of either sign) or
// an infinity now and then, -0.0 (which ties with 0.0 and keeps its sign: compared bit for bit),
// and now and then any float at all (random bits: subnormals, extremes, NaN payloads).
template <class T, class Rng>
HostArray<T> extreme_input(std::int64_t n, Rng& rng) {
  HostArray<T> x(new T[n]);
  for (std::int64_t i = 0; i < n; ++i) {
    const unsigned r = unsigned(rng() % 1000);
    if constexpr (std::is_same<T, bool>::value) {
      x[i] = r % 3 == 0;
    } else if constexpr (std::is_integral<T>::value) {
      x[i] = T(int(r % 13) - 6);
    } else {
      const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
      const std::uint32_t bits = static_cast<std::uint32_t>(rng());
      float any;
      std::memcpy(&any, &bits, sizeof any);
      x[i] = T(r < 2 ? nan : r == 2 ? -nan : r == 3 ? inf : r == 4 ? -inf : r < 10 ? -0.0f : r < 14 ? any
                                                                                   : float(int(r % 13) - 6));
    }
  }
  return x;
}

// ---- One scan along an axis (the products and logcumsumexp) ----

// inclusive_scan<Acc>(x) along s into y, the output poisoned first: the library's error.
template <class Acc = scan_zoo::UseDefault, class T, class Op>
cudaError_t run_scan(const std::vector<T>& x, const scan_zoo::Shape& s, Op op, std::vector<T>& y,
                     scan_zoo::Workspace& workspace) {
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  DeviceArray<T> d_x(n), d_y(n);
  if (n > 0) {
    CHECK_CUDA(cudaMemcpy(d_x.data, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_y.data, 0xA5, n * sizeof(T)));
  }
  const cudaError_t error = scan_zoo::inclusive_scan<Acc>(d_x.data, d_y.data, s, op, workspace);
  CHECK_CUDA(cudaDeviceSynchronize());
  y.assign(n, T{});
  if (error == cudaSuccess && n > 0) CHECK_CUDA(cudaMemcpy(y.data(), d_y.data, n * sizeof(T), cudaMemcpyDeviceToHost));
  return error;
}

}  // namespace scan_ops
