// selftest.cuh -- what the library's self-tests share (api_selftest.cu, api_forms.cuh and its
// five api_forms_*_selftest.cu, axis_selftest.cu, recurrence_selftest.cu, segmented_selftest.cu,
// scan_ops.cuh and its four scan_ops_*_selftest.cu): the PASS / FAIL lines and their count, a
// CUDA call that must succeed, exact equality of any element type, the CPU reference of every form of scan, the library call of
// every form (1-D or along an axis), an initial value written by a kernel, device arrays, and
// generated inputs.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <scan_zoo/axis.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace selftest {

inline int failures = 0;

// One check's line: "PASS name", or "FAIL name: why" (counted in `failures`).
inline void report(bool ok, const std::string& name, const std::string& why = "") {
  std::printf(ok ? "PASS %s\n" : "FAIL %s: %s\n", name.c_str(), why.c_str());
  std::fflush(stdout);  // a run stopped at its time limit keeps the lines of the checks it finished
  failures += ok ? 0 : 1;
}

#define CHECK_CUDA(expression)                                                                                  \
  do {                                                                                                          \
    const cudaError_t error_ = (expression);                                                                    \
    if (error_ != cudaSuccess) {                                                                                \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expression, cudaGetErrorString(error_));     \
      std::exit(2);                                                                                             \
    }                                                                                                           \
  } while (0)

// The --seed S of a self-test's command line (its one option), or `seed`; anything else is a
// usage error (exit 2).
inline unsigned long long seed_from_command_line(int argc, char** argv, unsigned long long seed,
                                                 const char* program) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: %s [--seed S]\n", program);
      std::exit(2);
    }
  }
  return seed;
}

// Exact equality: floats bit for bit (so -0.0 and +0.0 differ, and a NaN fails), others by ==.
inline bool same(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
inline bool same(__nv_bfloat16 a, __nv_bfloat16 b) { return std::memcmp(&a, &b, sizeof a) == 0; }
template <class T>
bool same(const T& a, const T& b) {
  return a == b;
}

// A value's bytes in hex, for a failure message about any type.
template <class T>
std::string hex_bytes(const T& value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  std::string text;
  char digits[3];
  for (unsigned char byte : bytes) {
    std::snprintf(digits, sizeof digits, "%02x", byte);
    text += digits;
  }
  return text;
}

// ---- The reference: the same scan on the CPU, in the accumulator type ----

struct Form {
  bool exclusive = false;
  bool reverse = false;
  bool with_initial = false;  // inclusive_scan_init (exclusive scans always have one)
};

inline std::string form_name(const Form& f) {
  return std::string(f.reverse ? "reverse " : "") +
         (f.exclusive ? "exclusive" : f.with_initial ? "inclusive+init" : "inclusive");
}

// The n elements in[0], in[stride], ... scanned into out[0], out[stride], ... as the library
// defines it: in scan order (from the end for a reverse scan), each element converted to Acc,
// `initial` (or the identity) in front, each result converted to Out. Returns the total.
template <class Acc, class In, class Out, class Op>
Out reference_line(const In* in, Out* out, std::int64_t n, std::int64_t stride, const Form& form, Acc initial,
                   const Op& op) {
  Acc running = form.exclusive || form.with_initial ? initial : op.template identity<Acc>();
  for (std::int64_t step = 0; step < n; ++step) {
    const std::int64_t i = (form.reverse ? n - 1 - step : step) * stride;
    if (form.exclusive) out[i] = static_cast<Out>(running);
    running = op(running, static_cast<Acc>(in[i]));
    if (!form.exclusive) out[i] = static_cast<Out>(running);
  }
  return static_cast<Out>(running);
}

// The whole of `in` as one line.
template <class Acc, class In, class Out, class Op>
void reference(const std::vector<In>& in, std::vector<Out>& out, Out& total, const Form& form, Acc initial,
               const Op& op) {
  out.resize(in.size());
  total = reference_line<Acc>(in.data(), out.data(), static_cast<std::int64_t>(in.size()), 1, form, initial, op);
}

// ---- The library call of a form ----

// The library call of `form` over `extent` (n elements, or a scan_zoo::Shape: the overloads of
// axis.cuh), with the initial value as given (a value or a DeviceValue).
template <class AccChoice, class In, class Out, class Extent, class Init, class Op, scan_zoo::Determinism D>
cudaError_t call(const Form& f, const In* in, Out* out, const Extent& extent, const Init& initial, const Op& op,
                 scan_zoo::Workspace& workspace, cudaStream_t stream, const scan_zoo::Options<Out, D>& options) {
  using namespace scan_zoo;
  if (f.reverse) {
    if (f.exclusive) return reverse_exclusive_scan<AccChoice>(in, out, extent, initial, op, workspace, stream, options);
    if (f.with_initial)
      return reverse_inclusive_scan_init<AccChoice>(in, out, extent, initial, op, workspace, stream, options);
    return reverse_inclusive_scan<AccChoice>(in, out, extent, op, workspace, stream, options);
  }
  if (f.exclusive) return exclusive_scan<AccChoice>(in, out, extent, initial, op, workspace, stream, options);
  if (f.with_initial) return inclusive_scan_init<AccChoice>(in, out, extent, initial, op, workspace, stream, options);
  return inclusive_scan<AccChoice>(in, out, extent, op, workspace, stream, options);
}

// Where a check's initial value lives: on the host, or in device memory, written by a kernel
// (write_value) just before the scan in the same stream, with no synchronization between.
enum class InitialLives { OnHost, InDeviceMemory };

template <class T>
__global__ void write_value(T* where, T value) {
  *where = value;
}

// ---- Device memory and inputs ----

template <class T>
struct DeviceArray {
  T* data = nullptr;
  explicit DeviceArray(std::int64_t n) { CHECK_CUDA(cudaMalloc(&data, std::max<std::int64_t>(1, n) * sizeof(T))); }
  ~DeviceArray() { cudaFree(data); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

template <class T, class Make>
std::vector<T> generate(std::int64_t n, Make&& make) {
  std::vector<T> data(n);
  for (auto& x : data) x = make();
  return data;
}

}  // namespace selftest
