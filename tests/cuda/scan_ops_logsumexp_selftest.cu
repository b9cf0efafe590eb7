// scan_ops_logsumexp_selftest -- logcumsumexp as the library offers it: inclusive scans under
// scan_zoo::LogAddExp (operators.cuh) through axis.cuh, on plain floats, on LogSumExp<float>
// accumulators and on LogSumExp<Complex<float>>, along rows, columns and a middle axis, checked
// against double loops of torch's log-add-exp, every element, the output poisoned first. Run by
// tests/test_api.py; the shared checking in scan_ops.cuh.
//
//   build/tests/scan_ops_logsumexp_selftest [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   logsumexp  float inputs, -inf among them (a masked position), against a double loop of
//              torch's log-add-exp: within 2e-5 of max(1, |result|); and the special values
//              (+inf, NaN) where they make the result; on plain floats and on LogSumExp<float>
//              accumulators. Complex<float> inputs on LogSumExp<Complex<float>>, -inf real parts
//              and NaNs among them, against a complex<double> loop of torch's complex helper:
//              the real part as above, the imaginary part modulo 2 pi (torch's branch depends on
//              the order of its combines) and within pi of the imaginary part of the prefix's
//              earliest term of largest real part (the branch operators.cuh promises).
#include <cuda_runtime.h>

#include <scan_zoo/axis.cuh>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "scan_ops.cuh"

namespace {

using namespace scan_ops;

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
  const std::int64_t n = elements(s);
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
  const std::int64_t n = elements(s);
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

}  // namespace

int main(int argc, char** argv) {
  const unsigned long long seed = seed_from_command_line(argc, argv, 20261201, "scan_ops_logsumexp_selftest");
  std::mt19937_64 rng(seed);
  scan_zoo::Workspace workspace;
  for (const scan_zoo::Shape& s : kShapes) {
    check_logsumexp<float>(s, rng, false, workspace);
    check_logsumexp<float>(s, rng, true, workspace);
    check_logsumexp<scan_zoo::LogSumExp<float>>(s, rng, false, workspace);
    check_logsumexp<scan_zoo::LogSumExp<float>>(s, rng, true, workspace);
    check_complex_logsumexp(s, rng, workspace);
  }
  std::printf("scan_ops_logsumexp_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
