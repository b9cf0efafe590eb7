// api_forms.cuh -- what the five self-tests of the 1-D scan's forms share (api_forms_*_selftest.cu):
// one library call checked element by element, and its total, against the CPU reference of its
// form, with the output and the total poisoned first (check_scan); the call of a form with its
// initial value as a value or in device memory (scan_and_check); and the sizes every check runs.
//
// Five programs, not one: each new (input, output, accumulator, operator) compiles the tuned
// kernel in every configuration of the shipped table, and one program holding all the checks
// compiled for longer than the rest of the zoo's GPU build together, one core busy while the
// others waited (bench/NOTES.md, "The forms' self-test in five programs"). Split by check, they
// compile side by side; the value with holes alone is most of the cost.
#pragma once

#include <cuda_runtime.h>

#include <scan_zoo/scan.cuh>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "selftest.cuh"

namespace api_forms {

using namespace selftest;

// One scan checked element by element, and its total, against the reference of `form`: "" or
// what went wrong. `launch(d_in, d_out, stream, d_total)` makes the library call (and returns
// its error); the output and the total are poisoned first.
template <class Acc, class In, class Out, class Op, class Launch>
std::string check_scan(const std::vector<In>& input, const Form& form, bool in_place, Acc initial, const Op& op,
                       Launch&& launch) {
  const std::int64_t n = static_cast<std::int64_t>(input.size());
  std::vector<Out> want;
  Out want_total{};
  reference<Acc>(input, want, want_total, form, initial, op);

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceArray<In> d_in(n);
  DeviceArray<Out> d_separate_out(in_place ? 0 : n);
  DeviceArray<Out> d_total(1);
  Out* d_out = in_place ? reinterpret_cast<Out*>(d_in.data) : d_separate_out.data;
  // The input in the scan's stream, as the poison below: a cudaMemcpy from pageable memory may
  // return before its DMA is done, and the non-blocking stream would not wait for it.
  if (n > 0) CHECK_CUDA(cudaMemcpyAsync(d_in.data, input.data(), n * sizeof(In), cudaMemcpyHostToDevice, stream));
  // Poisoned, in the scan's stream: a non-blocking stream does not wait for the legacy default
  // stream's work, so a plain cudaMemset (asynchronous for device memory) could land after the
  // scan and poison its results.
  if (!in_place) CHECK_CUDA(cudaMemsetAsync(d_out, 0xA5, std::max<std::int64_t>(1, n) * sizeof(Out), stream));
  CHECK_CUDA(cudaMemsetAsync(d_total.data, 0xA5, sizeof(Out), stream));
  const cudaError_t error = launch(static_cast<const In*>(d_in.data), d_out, stream, d_total.data);
  std::string why;
  if (error != cudaSuccess) why = std::string("returned ") + cudaGetErrorString(error);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaStreamDestroy(stream));
  if (!why.empty()) return why;
  std::vector<Out> got(n);
  Out got_total;
  if (n > 0) CHECK_CUDA(cudaMemcpy(got.data(), d_out, n * sizeof(Out), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(&got_total, d_total.data, sizeof(Out), cudaMemcpyDeviceToHost));
  for (std::int64_t i = 0; i < n; ++i)
    if (!same(got[i], want[i])) return "first wrong element at index " + std::to_string(i) + " of " + std::to_string(n);
  if (!same(got_total, want_total)) return "wrong total: " + hex_bytes(got_total) + ", want " + hex_bytes(want_total);
  return "";
}

// check_scan of the library call that `form` names (call, above), with the initial value as a
// value or in device memory, written by a kernel just before the scan.
template <class AccChoice, class In, class Out, class Op>
std::string scan_and_check(const std::vector<In>& input, const Form& form, bool in_place,
                           scan_zoo::accumulator_t<AccChoice, Out> initial, const Op& op,
                           scan_zoo::Workspace& workspace, int config = scan_zoo::kAutomatic,
                           InitialLives lives = InitialLives::OnHost) {
  using Acc = scan_zoo::accumulator_t<AccChoice, Out>;
  const std::int64_t n = static_cast<std::int64_t>(input.size());
  DeviceArray<Acc> d_initial(1);
  return check_scan<Acc, In, Out>(input, form, in_place, initial, op,
                                  [&](const In* in, Out* out, cudaStream_t stream, Out* total) {
                                    scan_zoo::Options<Out> options;
                                    options.total = total;
                                    options.config = config;
                                    if (lives == InitialLives::OnHost)
                                      return call<AccChoice>(form, in, out, n, initial, op, workspace, stream, options);
                                    write_value<<<1, 1, 0, stream>>>(d_initial.data, initial);  // no synchronization
                                    return call<AccChoice>(form, in, out, n, scan_zoo::device_value(d_initial.data),
                                                           op, workspace, stream, options);
                                  });
}

constexpr std::int64_t kLargestTile = 256 * 32;
inline const std::vector<std::int64_t> kSizes = {0, 1, 7, kLargestTile - 1, kLargestTile, kLargestTile + 1,
                                          3 * kLargestTile + 5, (1 << 20) + 7};

}  // namespace api_forms
