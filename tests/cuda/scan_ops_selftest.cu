// scan_ops_selftest -- the scans torch has beside the sum, as the library offers them: cummax and
// cummin with indices (include/scan_zoo/extremes.cuh), the product (scan_zoo::Multiplies) and
// logcumsumexp (scan_zoo::LogAddExp, operators.cuh), along rows, columns and a middle axis,
// checked against a CPU loop that follows torch's CPU kernel, every element, the outputs poisoned
// first. Run by tests/test_api.py.
//
//   build/tests/scan_ops_selftest [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   extremes   cummax and cummin: values bit for bit and indices exactly, for float (small
//              integers, so that ties are common, with NaNs and infinities among them; forward
//              and reverse, 32-bit positions, and 64-bit ones forward), bf16 (compared in float),
//              int32, int8 and bool (0 and 1), forward; then double and int64 with 32-bit
//              positions (the Python package's 16-byte pairs), forward, after every other check
//              (a double cummax of many tiles hung on the H200: bench/NOTES.md, "torch's scan
//              ops: determinism"). Each also with null indices (the values alone), its values
//              bit for bit, NaNs included. Torch's rules: a tie goes to the later element, a
//              NaN wins, and a later NaN over an earlier one.
//   product    int64 products of {-2 .. 2} wrapped as torch's integers wrap, exactly; float
//              products of +-1 with rare +-2 and +-0.5 (every partial product a power of two in
//              range, so exact in any grouping).
//   logsumexp  float inputs, -inf among them (a masked position), against a double loop of
//              torch's log-add-exp: within 2e-5 of max(1, |result|); and the special values
//              (+inf, NaN) where they make the result; on plain floats and on LogSumExp<float>
//              accumulators. Complex<float> inputs on LogSumExp<Complex<float>>, -inf real parts
//              and NaNs among them, against a complex<double> loop of torch's complex helper:
//              the real part as above, the imaginary part modulo 2 pi (torch's branch depends on
//              the order of its combines) and within pi of the imaginary part of the prefix's
//              earliest term of largest real part (the branch operators.cuh promises).
//   refusals   a line longer than 32-bit positions hold, a null values array.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <scan_zoo/extremes.cuh>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "selftest.cuh"

namespace {

using namespace selftest;

std::string shape_name(const scan_zoo::Shape& s) {
  return " [" + std::to_string(s.outer) + ", " + std::to_string(s.length) + ", " + std::to_string(s.inner) + "]";
}

std::string where(std::int64_t i, const scan_zoo::Shape& s) {
  const std::int64_t slab = s.length * s.inner;
  return "[" + std::to_string(i / slab) + ", " + std::to_string(i % slab / s.inner) + ", " +
         std::to_string(i % s.inner) + "]";
}

// Calls fn(t, at) for every line of s, t walking the line in scan order, `at` its element's place.
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

template <class T>
float as_float(T x) { return static_cast<float>(x); }

template <class T>
bool is_nan(T x) {
  const float f = as_float(x);
  return f != f;
}

// torch's CPU loop (cummax_cummin_helper): the current element replaces the running one when it
// is NaN, or when neither is NaN and it is >= (cummax) or <= (cummin) the running one.
// Host arrays of any T (std::vector<bool> holds bits, not bools).
template <class T>
using HostArray = std::unique_ptr<T[]>;

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

// Both operators, forward, and reversed where `reverse` says.
template <class Position, class T>
void check_extremes(const char* type, const HostArray<T>& x, const scan_zoo::Shape& s, bool reverse_too,
                    scan_zoo::Workspace& workspace) {
  const std::int64_t n = s.outer * s.length * s.inner;
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
        using scan_zoo::Shape;
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
template <class T>
HostArray<T> extreme_input(std::int64_t n, std::mt19937_64& rng) {
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

// ---- Products and log-add-exp, through axis.cuh's scans ----

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

void check_products(const scan_zoo::Shape& s, std::mt19937_64& rng, scan_zoo::Workspace& workspace) {
  const std::int64_t n = s.outer * s.length * s.inner;
  {
    const auto x = generate<std::int64_t>(n, [&] { return std::int64_t(rng() % 5) - 2; });
    std::vector<std::int64_t> got, want(n);
    const cudaError_t error = run_scan(x, s, scan_zoo::Multiplies{}, got, workspace);
    std::uint64_t running = 1;
    for_each_line(s, false, [&](std::int64_t step, std::int64_t, std::int64_t at) {
      running = (step == 0 ? 1u : running) * static_cast<std::uint64_t>(x[at]);
      want[at] = static_cast<std::int64_t>(running);
    });
    std::string why = error == cudaSuccess ? "" : std::string("returned ") + cudaGetErrorString(error);
    for (std::int64_t i = 0; i < n && why.empty(); ++i)
      if (got[i] != want[i])
        why = "element " + where(i, s) + ": " + std::to_string(got[i]) + ", want " + std::to_string(want[i]);
    report(why.empty(), "product int64" + shape_name(s), why);
  }
  {
    const auto x = generate<float>(n, [&] {
      const unsigned r = unsigned(rng() % 2000);
      const float magnitude = r == 0 ? 2.0f : r == 1 ? 0.5f : 1.0f;
      return rng() % 2 ? magnitude : -magnitude;
    });
    std::vector<float> got, want(n);
    const cudaError_t error = run_scan(x, s, scan_zoo::Multiplies{}, got, workspace);
    float running = 1;
    for_each_line(s, false, [&](std::int64_t step, std::int64_t, std::int64_t at) {
      running = (step == 0 ? 1.0f : running) * x[at];
      want[at] = running;
    });
    std::string why = error == cudaSuccess ? "" : std::string("returned ") + cudaGetErrorString(error);
    for (std::int64_t i = 0; i < n && why.empty(); ++i)
      if (!same(got[i], want[i]))
        why = "element " + where(i, s) + ": " + std::to_string(got[i]) + ", want " + std::to_string(want[i]);
    report(why.empty(), "product float" + shape_name(s), why);
  }
}

// torch's _log_add_exp_helper in double.
double log_add_exp(double a, double b) {
  const double low = std::isnan(b) ? b : std::isnan(a) ? a : std::min(a, b);
  const double high = std::isnan(b) ? b : std::isnan(a) ? a : std::max(a, b);
  if (low == high && !std::isfinite(low)) return a;
  return high + std::log1p(std::exp(low - high));
}

// logcumsumexp on plain floats and on LogSumExp<float> accumulators (operators.cuh), each
// against the double loop of torch's helper.
template <class Acc>
void check_logsumexp(const scan_zoo::Shape& s, std::mt19937_64& rng, bool specials, scan_zoo::Workspace& workspace) {
  const std::int64_t n = s.outer * s.length * s.inner;
  std::normal_distribution<float> normal(0.0f, 3.0f);
  const float inf = std::numeric_limits<float>::infinity();
  const auto x = generate<float>(n, [&] {
    const unsigned r = unsigned(rng() % 1000);
    if (r < 50) return -inf;  // masked
    if (specials && r == 50) return inf;
    if (specials && r == 51) return std::numeric_limits<float>::quiet_NaN();
    return normal(rng);
  });
  std::vector<float> got;
  std::vector<double> want(n);
  const cudaError_t error = run_scan<Acc>(x, s, scan_zoo::LogAddExp{}, got, workspace);
  double running = -std::numeric_limits<double>::infinity();
  for_each_line(s, false, [&](std::int64_t step, std::int64_t, std::int64_t at) {
    running = log_add_exp(step == 0 ? -std::numeric_limits<double>::infinity() : running, x[at]);
    want[at] = running;
  });
  std::string why = error == cudaSuccess ? "" : std::string("returned ") + cudaGetErrorString(error);
  for (std::int64_t i = 0; i < n && why.empty(); ++i) {
    const double g = got[i], w = want[i];
    const bool ok = std::isnan(w) ? std::isnan(g) : std::isinf(w) ? g == w : std::fabs(g - w) <= 2e-5 * std::max(1.0, std::fabs(w));
    if (!ok) why = "element " + where(i, s) + ": " + std::to_string(g) + ", want " + std::to_string(w);
  }
  const std::string accumulator = std::is_same_v<Acc, float> ? "" : " in LogSumExp<float>";
  report(why.empty(), "logsumexp float" + accumulator + (specials ? " with +inf and NaN" : "") + shape_name(s), why);
}

// torch's complex _log_add_exp_helper (its CPU kernel's) in complex<double>.
std::complex<double> log_add_exp(std::complex<double> x, std::complex<double> y) {
  const auto is_nan = [](std::complex<double> z) { return std::isnan(z.real()) || std::isnan(z.imag()); };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (is_nan(x) || is_nan(y)) return {nan, nan};
  const std::complex<double> low = x.real() < y.real() ? x : y, high = x.real() < y.real() ? y : x;
  if (!std::isfinite(low.real()) && low.real() == high.real())
    return low.real() < 0 ? low : std::log(std::exp(low) + std::exp(high));
  return std::log(1.0 + std::exp(low - high)) + high;  // log1p, which has no complex form in std (ample in double)
}

void check_complex_logsumexp(const scan_zoo::Shape& s, std::mt19937_64& rng, scan_zoo::Workspace& workspace) {
  using C = scan_zoo::Complex<float>;
  const std::int64_t n = s.outer * s.length * s.inner;
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::uniform_real_distribution<float> angle(-9.0f, 9.0f);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const auto x = generate<C>(n, [&] {
    const unsigned r = unsigned(rng() % 10000);
    const float re = r < 500 ? -inf : r == 500 ? nan : normal(rng), im = r == 501 ? nan : angle(rng);
    return C(re, im);
  });
  std::vector<C> got;
  std::vector<std::complex<double>> want(n);
  std::vector<double> largest_imag(n);
  const cudaError_t error = run_scan<scan_zoo::LogSumExp<C>>(x, s, scan_zoo::LogAddExp{}, got, workspace);
  std::complex<double> running;
  double largest_real = 0, its_imag = 0;
  for_each_line(s, false, [&](std::int64_t step, std::int64_t, std::int64_t at) {
    const std::complex<double> z(x[at].real(), x[at].imag());
    running = step == 0 ? z : log_add_exp(running, z);
    if (step == 0 || z.real() > largest_real) largest_real = z.real(), its_imag = z.imag();
    want[at] = running;
    largest_imag[at] = its_imag;
  });
  std::string why = error == cudaSuccess ? "" : std::string("returned ") + cudaGetErrorString(error);
  const double pi = 3.14159265358979323846;
  for (std::int64_t i = 0; i < n && why.empty(); ++i) {
    const double g_re = got[i].real(), g_im = got[i].imag(), w_re = want[i].real(), w_im = want[i].imag();
    bool ok;
    if (std::isnan(w_re) || std::isnan(w_im)) {
      ok = std::isnan(g_re) && std::isnan(g_im);
    } else if (w_re == -std::numeric_limits<double>::infinity()) {
      ok = g_re == w_re && std::fabs(g_im) <= pi + 1e-6;  // exp of it is 0: a principal angle
    } else {
      const double tolerance = 2e-5 * std::max(1.0, std::abs(want[i]));
      const double moved = g_im + 2 * pi * std::round((w_im - g_im) / (2 * pi));
      ok = std::fabs(g_re - w_re) <= tolerance && std::fabs(moved - w_im) <= tolerance &&
           std::fabs(g_im - largest_imag[i]) <= pi + 1e-3;
    }
    if (!ok)
      why = "element " + where(i, s) + ": (" + std::to_string(g_re) + ", " + std::to_string(g_im) + "), want (" +
            std::to_string(w_re) + ", " + std::to_string(w_im) + ") modulo 2 pi i, near " +
            std::to_string(largest_imag[i]);
  }
  report(why.empty(), "logsumexp complex<float> in LogSumExp<Complex<float>>" + shape_name(s), why);
}

void check_refusals() {
  scan_zoo::Workspace workspace;
  DeviceArray<float> d(64);
  DeviceArray<std::int64_t> indices(64);
  const auto expect = [&](cudaError_t got, const std::string& name) {
    report(got == cudaErrorInvalidValue, "refusals " + name, std::string("returned ") + cudaGetErrorString(got));
  };
  expect(scan_zoo::cummax<std::int32_t>(d.data, d.data, indices.data, scan_zoo::Shape{1, std::int64_t(1) << 31, 1},
                                        workspace),
         "a line of 2^31 elements with 32-bit positions");
  expect(scan_zoo::cummin(d.data, static_cast<float*>(nullptr), indices.data, scan_zoo::Shape{2, 8}, workspace),
         "a null values array");
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned long long seed = seed_from_command_line(argc, argv, 20261201, "scan_ops_selftest");
  std::mt19937_64 rng(seed);
  scan_zoo::Workspace workspace;
  const scan_zoo::Shape shapes[] = {
      // Rows: one element, shorter than a vector, than a tile, a tile and a bit, many tiles; 1-D.
      {1, 1}, {5, 3}, {33, 31}, {3, 4095}, {3, 4097}, {2, 3 * 4096 + 5}, {8, 131072}, {4096, 7}, {1, 1000003},
      // Columns and a middle axis ([batch, length, channels]).
      {1, 1000, 4}, {1, 16384, 64}, {2, 40000, 3}, {3, 500, 7}, {2, 1000, 128}};
  for (const scan_zoo::Shape& s : shapes) {
    const std::int64_t n = s.outer * s.length * s.inner;
    check_extremes<std::int32_t>("float", extreme_input<float>(n, rng), s, true, workspace);
    check_extremes<std::int64_t>("float", extreme_input<float>(n, rng), s, false, workspace);
    check_extremes<std::int32_t>("bf16", extreme_input<__nv_bfloat16>(n, rng), s, false, workspace);
    check_extremes<std::int32_t>("int32", extreme_input<std::int32_t>(n, rng), s, false, workspace);
    check_extremes<std::int32_t>("int8", extreme_input<std::int8_t>(n, rng), s, false, workspace);
    check_extremes<std::int32_t>("bool", extreme_input<bool>(n, rng), s, false, workspace);
    check_products(s, rng, workspace);
    check_logsumexp<float>(s, rng, false, workspace);
    check_logsumexp<float>(s, rng, true, workspace);
    check_logsumexp<scan_zoo::LogSumExp<float>>(s, rng, false, workspace);
    check_logsumexp<scan_zoo::LogSumExp<float>>(s, rng, true, workspace);
    check_complex_logsumexp(s, rng, workspace);
  }
  for (const scan_zoo::Shape& s : shapes) {
    const std::int64_t n = s.outer * s.length * s.inner;
    check_extremes<std::int32_t>("int64", extreme_input<std::int64_t>(n, rng), s, false, workspace);
    check_extremes<std::int32_t>("double", extreme_input<double>(n, rng), s, false, workspace);
  }
  check_refusals();
  std::printf("scan_ops_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
