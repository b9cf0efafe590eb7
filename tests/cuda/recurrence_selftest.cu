// recurrence_selftest -- the linear recurrence h[t] = a[t] h[t - 1] + b[t]
// (include/scan_zoo/linear_recurrence.cuh) checked the way a user calls it: every line of an
// [outer, length, inner] array against the sequential loop on the CPU, every element, with the
// output poisoned first. Run by tests/test_api.py.
//
//   build/tests/recurrence_selftest [--seed S]
//
// Checks, each printed as "PASS name" or "FAIL name: why"; exit 0 only if all pass:
//   exact      a in {-1, 0, 1}, b a small integer, h[-1] a small integer: every state is an
//              integer below 2^24, so float arithmetic in any grouping is exact and the result
//              must equal the loop bit for bit. Forward and reverse, out of place and in place
//              (h over b), float a and b, and bf16 a and b into a float state, on rows (from
//              shorter than a vector to many tiles), columns and a middle axis.
//   rounding   real-valued maps (a in [0.9, 1), b in [-1, 1]) in float against the loop in
//              double: within 1e-5 of the largest |h| of the line (the scan groups the products
//              differently from the loop).
//   backward   linear_recurrence_backward and its reverse form (da and db from a, h and dh,
//              h[-1] a small integer), exact as above against the adjoint loop as written
//              (g[t] = dh[t] + a[t + 1] g[t + 1], shifted), out of place and in place (db over
//              dh), float and bf16 a with float h, on the rows; along columns and a middle axis
//              it must return cudaErrorNotSupported.
//   refusals   a null input with elements to scan, h over a of another element size, the
//              backward's da over h (cudaErrorInvalidValue).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <scan_zoo/linear_recurrence.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "selftest.cuh"

namespace {

using namespace selftest;

std::string shape_name(const scan_zoo::Shape& s) {
  return " [" + std::to_string(s.outer) + ", " + std::to_string(s.length) + ", " + std::to_string(s.inner) + "]";
}

// The loop, per line, in Ref arithmetic; reversed, each line from its end.
template <class Ref, class A, class B>
std::vector<Ref> reference(const std::vector<A>& a, const std::vector<B>& b, const scan_zoo::Shape& s, bool reverse,
                           Ref outside) {
  std::vector<Ref> h(a.size());
  for (std::int64_t o = 0; o < s.outer; ++o)
    for (std::int64_t i = 0; i < s.inner; ++i) {
      Ref state = outside;
      for (std::int64_t step = 0; step < s.length; ++step) {
        const std::int64_t t = reverse ? s.length - 1 - step : step;
        const std::int64_t at = (o * s.length + t) * s.inner + i;
        state = Ref(float(a[at])) * state + Ref(float(b[at]));
        h[at] = state;
      }
    }
  return h;
}

// One recurrence on the GPU: h, or the error it returned. In place: h is written over b.
template <class A, class B>
cudaError_t run_recurrence(const std::vector<A>& a, const std::vector<B>& b, const scan_zoo::Shape& s, bool reverse,
                           bool in_place, float outside, std::vector<float>& h, scan_zoo::Workspace& workspace) {
  const std::int64_t n = static_cast<std::int64_t>(a.size());
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceArray<A> d_a(n);
  DeviceArray<B> d_b(n);
  DeviceArray<float> d_separate(in_place ? 0 : n);
  float* d_h = in_place ? reinterpret_cast<float*>(d_b.data) : d_separate.data;
  if (n > 0) {
    CHECK_CUDA(cudaMemcpyAsync(d_a.data, a.data(), n * sizeof(A), cudaMemcpyHostToDevice, stream));
    CHECK_CUDA(cudaMemcpyAsync(d_b.data, b.data(), n * sizeof(B), cudaMemcpyHostToDevice, stream));
    if (!in_place) CHECK_CUDA(cudaMemsetAsync(d_h, 0xA5, n * sizeof(float), stream));
  }
  const cudaError_t error =
      reverse ? scan_zoo::reverse_linear_recurrence(d_a.data, static_cast<const B*>(d_b.data), d_h, s, workspace,
                                                    stream, outside)
              : scan_zoo::linear_recurrence(d_a.data, static_cast<const B*>(d_b.data), d_h, s, workspace, stream,
                                            outside);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaStreamDestroy(stream));
  h.assign(n, 0.0f);
  if (error == cudaSuccess && n > 0) CHECK_CUDA(cudaMemcpy(h.data(), d_h, n * sizeof(float), cudaMemcpyDeviceToHost));
  return error;
}

std::string where(std::int64_t i, const scan_zoo::Shape& s) {
  const std::int64_t slab = s.length * s.inner;
  return "[" + std::to_string(i / slab) + ", " + std::to_string(i % slab / s.inner) + ", " +
         std::to_string(i % s.inner) + "]";
}

template <class A, class B>
void check_exact(const char* types, const scan_zoo::Shape& s, std::mt19937_64& rng, scan_zoo::Workspace& workspace) {
  const std::int64_t n = s.outer * s.length * s.inner;
  // Mostly 1 (the state carries on), some -1, a few 0 (restarts): the states stay small integers.
  const auto multipliers = generate<A>(n, [&] {
    const unsigned r = unsigned(rng() % 16);
    return A(float(r == 0 ? 0 : r < 4 ? -1 : 1));
  });
  const auto addends = generate<B>(n, [&] { return B(float(int(rng() % 9) - 4)); });
  const float outside = float(int(rng() % 7) - 3);
  for (bool reverse : {false, true})
    for (bool in_place : {false, true}) {
      if (in_place && sizeof(B) != sizeof(float)) continue;
      const std::string name = std::string("exact ") + types + (reverse ? " reverse" : " forward") +
                               (in_place ? " in-place" : "") + shape_name(s);
      std::vector<float> got;
      const cudaError_t error = run_recurrence(multipliers, addends, s, reverse, in_place, outside, got, workspace);
      if (error != cudaSuccess) {
        report(false, name, std::string("returned ") + cudaGetErrorString(error));
        continue;
      }
      const std::vector<float> want = reference<float>(multipliers, addends, s, reverse, outside);
      std::string why;
      for (std::int64_t i = 0; i < n && why.empty(); ++i)
        if (!same(got[i], want[i]))
          why = "first wrong element at " + where(i, s) + ": " + std::to_string(got[i]) + ", want " +
                std::to_string(want[i]);
      report(why.empty(), name, why);
    }
}

void check_rounding(const scan_zoo::Shape& s, std::mt19937_64& rng, scan_zoo::Workspace& workspace) {
  const std::int64_t n = s.outer * s.length * s.inner;
  std::uniform_real_distribution<float> decay(0.9f, 1.0f), input(-1.0f, 1.0f);
  const auto a = generate<float>(n, [&] { return decay(rng); });
  const auto b = generate<float>(n, [&] { return input(rng); });
  for (bool reverse : {false, true}) {
    const std::string name = std::string("rounding float") + (reverse ? " reverse" : " forward") + shape_name(s);
    std::vector<float> got;
    const cudaError_t error = run_recurrence(a, b, s, reverse, false, 0.5f, got, workspace);
    if (error != cudaSuccess) {
      report(false, name, std::string("returned ") + cudaGetErrorString(error));
      continue;
    }
    const std::vector<double> want = reference<double>(a, b, s, reverse, 0.5);
    double largest = 0;
    for (const double x : want) largest = std::max(largest, std::fabs(x));
    std::string why;
    for (std::int64_t i = 0; i < n && why.empty(); ++i)
      if (!(std::fabs(double(got[i]) - want[i]) <= 1e-5 * std::max(1.0, largest)))
        why = "element " + where(i, s) + ": " + std::to_string(got[i]) + ", want " + std::to_string(want[i]);
    report(why.empty(), name, why);
  }
}

// The backward's loop as written: from each line's last step in time, g = dh + a[next] g[next],
// db = g, da = g h[before] (h_outside at the line's first step); the gradients rounded once to
// their types, as the kernel rounds them.
template <class A>
void backward_reference(const std::vector<A>& a, const std::vector<float>& h, const std::vector<float>& dh,
                        const scan_zoo::Shape& s, bool reverse, float outside, std::vector<A>& da,
                        std::vector<float>& db) {
  da.assign(a.size(), A(0.0f));
  db.assign(a.size(), 0.0f);
  for (std::int64_t o = 0; o < s.outer; ++o) {
    float g = 0, a_next = 0;
    for (std::int64_t step = s.length - 1; step >= 0; --step) {  // steps in time, the last first
      const std::int64_t t = reverse ? s.length - 1 - step : step;
      const std::int64_t at = o * s.length + t;
      g = dh[at] + a_next * g;
      const float before = step == 0 ? outside : h[reverse ? at + 1 : at - 1];
      db[at] = g;
      da[at] = A(g * before);
      a_next = float(a[at]);
    }
  }
}

template <class A>
void check_backward(const char* types, const scan_zoo::Shape& s, std::mt19937_64& rng, scan_zoo::Workspace& workspace) {
  const std::int64_t n = s.outer * s.length * s.inner;
  const auto a = generate<A>(n, [&] {
    const unsigned r = unsigned(rng() % 16);
    return A(float(r == 0 ? 0 : r < 4 ? -1 : 1));
  });
  const auto h = generate<float>(n, [&] { return float(int(rng() % 9) - 4); });
  const auto dh = generate<float>(n, [&] { return float(int(rng() % 9) - 4); });
  const float outside = float(int(rng() % 7) - 3);
  for (bool reverse : {false, true})
    for (bool in_place : {false, true}) {
      const std::string name = std::string("backward ") + types + (reverse ? " reverse" : " forward") +
                               (in_place ? " in-place" : "") + shape_name(s);
      DeviceArray<A> d_a(n), d_da(n);
      DeviceArray<float> d_h(n), d_dh(n), d_separate(in_place ? 0 : n);
      float* d_db = in_place ? d_dh.data : d_separate.data;
      CHECK_CUDA(cudaMemcpy(d_a.data, a.data(), n * sizeof(A), cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemcpy(d_h.data, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemcpy(d_dh.data, dh.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemset(d_da.data, 0xA5, n * sizeof(A)));
      if (!in_place) CHECK_CUDA(cudaMemset(d_db, 0xA5, n * sizeof(float)));
      const A* a_in = d_a.data;
      const float* h_in = d_h.data;
      const float* dh_in = d_dh.data;
      const cudaError_t error =
          reverse ? scan_zoo::reverse_linear_recurrence_backward(a_in, h_in, dh_in, d_da.data, d_db, s, workspace, 0,
                                                                 outside)
                  : scan_zoo::linear_recurrence_backward(a_in, h_in, dh_in, d_da.data, d_db, s, workspace, 0, outside);
      CHECK_CUDA(cudaDeviceSynchronize());
      if (s.inner != 1) {
        report(error == cudaErrorNotSupported, name + " (not supported off the rows)",
               std::string("returned ") + cudaGetErrorString(error));
        continue;
      }
      if (error != cudaSuccess) {
        report(false, name, std::string("returned ") + cudaGetErrorString(error));
        continue;
      }
      std::vector<A> got_da(n), want_da;
      std::vector<float> got_db(n), want_db;
      CHECK_CUDA(cudaMemcpy(got_da.data(), d_da.data, n * sizeof(A), cudaMemcpyDeviceToHost));
      CHECK_CUDA(cudaMemcpy(got_db.data(), d_db, n * sizeof(float), cudaMemcpyDeviceToHost));
      backward_reference(a, h, dh, s, reverse, outside, want_da, want_db);
      std::string why;
      for (std::int64_t i = 0; i < n && why.empty(); ++i) {
        if (!same(got_db[i], want_db[i]))
          why = "db at " + where(i, s) + ": " + std::to_string(got_db[i]) + ", want " + std::to_string(want_db[i]);
        else if (!same(float(got_da[i]), float(want_da[i])))
          why = "da at " + where(i, s) + ": " + std::to_string(float(got_da[i])) + ", want " +
                std::to_string(float(want_da[i]));
      }
      report(why.empty(), name, why);
    }
}

void check_refusals() {
  scan_zoo::Workspace workspace;
  DeviceArray<float> d(64);
  const auto expect = [&](cudaError_t got, const std::string& name) {
    report(got == cudaErrorInvalidValue, "refusals " + name, std::string("returned ") + cudaGetErrorString(got));
  };
  expect(scan_zoo::linear_recurrence(static_cast<const float*>(nullptr), d.data, d.data + 32, scan_zoo::Shape{2, 8},
                                     workspace),
         "a null a");
  const auto* narrower = reinterpret_cast<const __nv_bfloat16*>(d.data);  // 2-byte elements where h is
  expect(scan_zoo::linear_recurrence(narrower, d.data + 32, d.data, scan_zoo::Shape{2, 8}, workspace),
         "h over a of bf16, h of float");
  expect(scan_zoo::linear_recurrence_backward(static_cast<const float*>(d.data), d.data + 16, d.data + 32, d.data + 16,
                                              d.data + 48, scan_zoo::Shape{2, 8}, workspace),
         "the backward's da over h");
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned long long seed = seed_from_command_line(argc, argv, 20261127, "recurrence_selftest");
  std::mt19937_64 rng(seed);
  scan_zoo::Workspace workspace;
  const scan_zoo::Shape shapes[] = {
      // Rows: shorter than a vector, than a tile (4096), a tile and a bit, many tiles.
      {1, 1}, {5, 3}, {33, 31}, {3, 4095}, {3, 4097}, {2, 3 * 4096 + 5}, {8, 131072}, {4096, 7},
      // Columns and a middle axis ([batch, length, channels]).
      {1, 1000, 4}, {1, 16384, 64}, {2, 40000, 3}, {3, 500, 7}, {2, 1000, 128}};
  for (const scan_zoo::Shape& s : shapes) {
    check_exact<float, float>("float", s, rng, workspace);
    check_exact<__nv_bfloat16, __nv_bfloat16>("bf16->float", s, rng, workspace);
    check_rounding(s, rng, workspace);
    check_backward<float>("float", s, rng, workspace);
    check_backward<__nv_bfloat16>("bf16 a", s, rng, workspace);
  }
  check_refusals();
  std::printf("recurrence_selftest: %d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
