// python/src/entry_points.hpp -- what the extension's CUDA side (the .cu files beside this one)
// offers its host side (module.cpp, jax_handlers.cpp for XLA, and through a table of pointers
// torch_kernels.cpp, a module of its own): plain C++, no CUDA, nanobind
// or XLA types, so that each side compiles with its own compiler. Every scan the package runs is
// one of the library's (include/scan_zoo/scan.cuh, axis.cuh, segmented.cuh,
// linear_recurrence.cuh), instantiated here for the dtypes the package accepts; Python chooses
// the dtypes, the shape and the stream, and allocates every byte (the output and the workspace)
// through the caller's framework.
#pragma once

#include <cstddef>
#include <cstdint>

namespace scan_zoo_python {

// The element types and operators, numbered as scan_zoo/_dtypes.py numbers them. Max and Min are
// cummax and cummin with indices (include/scan_zoo/extremes.cuh), Prod cumprod, LogSumExp
// logcumsumexp.
enum class Dtype : int {
  Int32 = 0, Int64 = 1, Float32 = 2, Float64 = 3, BFloat16 = 4, Float16 = 5, Bool = 6, UInt8 = 7, Int8 = 8, Int16 = 9,
  Complex64 = 10, Complex128 = 11
};
enum class Operator : int { Sum = 0, Max = 1, Min = 2, Prod = 3, LogSumExp = 4 };

// The array seen as [outer, length, inner], contiguous and row-major; every line along `length`
// scanned on its own (axis.cuh's Shape).
struct Lines {
  std::int64_t outer = 1, length = 0, inner = 1;
};

// One scan: out[...] = the scan of in[...] along the lines (for Max and Min also the indices,
// int64, where they go to an array).
struct ScanCall {
  Operator op = Operator::Sum;
  Dtype in_type = Dtype::Float32, out_type = Dtype::Float32;
  Lines lines;
  bool exclusive = false, reverse = false;
  // The same bits in every run (the library's fixed-order look-back) where the grouping of the
  // combines could change them: floating-point sums, products and log-sum-exps (typed_calls.cuh).
  bool deterministic = false;
};

// One linear recurrence h[t] = a[t] h[t -+ 1] + b[t] (a and b of `input`, h of `state`).
struct RecurrenceCall {
  Dtype input = Dtype::Float32, state = Dtype::Float32;
  Lines lines;
  bool reverse = false;
};

// One scan of segments: segment s of in[0, n) is [offsets[s], offsets[s + 1]), each summed on its
// own (include/scan_zoo/segmented.cuh); offsets holds segments + 1 integers of `offset_type`.
struct SegmentedCall {
  Dtype in_type = Dtype::Float32, out_type = Dtype::Float32, offset_type = Dtype::Int64;
  std::int64_t n = 0, segments = 0;
  bool exclusive = false;
};

// A scan_zoo::Workspace over memory the caller's framework allocated (opaque here). It keeps
// the epoch bookkeeping that lets a scan skip zeroing its status words, so it serves one stream
// at a time: Python keeps one per (device, stream).
struct Workspace;
Workspace* workspace_new(void* memory, std::size_t bytes);
void workspace_delete(Workspace* workspace);

// Whether `stream` is capturing a CUDA graph (into `capturing`); the result as below.
int stream_is_capturing(std::uintptr_t stream, bool& capturing);

// The results: 0 (cudaSuccess), a cudaError_t, or kNotBuilt when the extension has no code for
// this combination of types (Python checks them first: it should not happen).
inline constexpr int kNotBuilt = -1;
// The message for a result.
const char* result_string(int result);

// Bytes a Workspace needs for the call (0 for an empty array), or SIZE_MAX for a combination of
// types the extension has no code for.
std::size_t scan_workspace_bytes(const ScanCall& call);
std::size_t recurrence_workspace_bytes(const RecurrenceCall& call);
std::size_t segmented_workspace_bytes(const SegmentedCall& call);

// Enqueues the call on `stream` (a cudaStream_t as an integer) of `device`; returns at once.
// `indices`: Max's and Min's int64 indices, or null for the values alone (ignored by the others).
int scan(const ScanCall& call, const void* in, void* out, void* indices, Workspace* workspace, int device,
         std::uintptr_t stream);
int linear_recurrence(const RecurrenceCall& call, const void* a, const void* b, void* h, Workspace* workspace,
                      int device, std::uintptr_t stream);
// Its backward along rows (call.lines' inner 1): from a (input dtype), h and dh (the state's),
// da and db (input dtype); the workspace of the forward's call.
int linear_recurrence_backward(const RecurrenceCall& call, const void* a, const void* h, const void* dh, void* da,
                               void* db, Workspace* workspace, int device, std::uintptr_t stream);
int segmented_scan(const SegmentedCall& call, const void* in, void* out, const void* offsets, Workspace* workspace,
                   int device, std::uintptr_t stream);

// The entry points a module built apart reaches (torch_kernels.cpp, compiled against one torch's
// headers, which this extension never sees): their addresses in a table that _extension hands
// over as a capsule named kEntryPointsCapsule (module.cpp). `size` is sizeof(EntryPoints) where
// the table was made, so that a module from another build refuses it.
struct EntryPoints {
  std::size_t size;
  Workspace* (*workspace_new)(void* memory, std::size_t bytes);
  void (*workspace_delete)(Workspace* workspace);
  int (*stream_is_capturing)(std::uintptr_t stream, bool& capturing);
  const char* (*result_string)(int result);
  std::size_t (*scan_workspace_bytes)(const ScanCall& call);
  int (*scan)(const ScanCall& call, const void* in, void* out, void* indices, Workspace* workspace, int device,
              std::uintptr_t stream);
};
inline constexpr const char* kEntryPointsCapsule = "scan_zoo.entry_points";

// The same on the current device, split by operator so that the instantiations compile in
// parallel (sums.cu, half_sums.cu, mask_sums.cu, products.cu, logsumexps.cu, extremes.cu,
// recurrences.cu, segments.cu); the entry points above (entry.cu) choose among them with
// `device` made current.
std::size_t sum_workspace_bytes(const ScanCall& call);
int sum_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream);
std::size_t half_sum_workspace_bytes(const ScanCall& call);
int half_sum_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream);
std::size_t mask_sum_workspace_bytes(const ScanCall& call);
int mask_sum_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream);
std::size_t product_workspace_bytes(const ScanCall& call);
int product_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream);
std::size_t logsumexp_workspace_bytes(const ScanCall& call);
int logsumexp_scan(const ScanCall& call, const void* in, void* out, Workspace* workspace, std::uintptr_t stream);
std::size_t extreme_workspace_bytes(const ScanCall& call);
int extreme_scan(const ScanCall& call, const void* in, void* values, void* indices, Workspace* workspace,
                 std::uintptr_t stream);
int recurrence_on_stream(const RecurrenceCall& call, const void* a, const void* b, void* h, Workspace* workspace,
                         std::uintptr_t stream);
int recurrence_backward_on_stream(const RecurrenceCall& call, const void* a, const void* h, const void* dh, void* da,
                                  void* db, Workspace* workspace, std::uintptr_t stream);
int segmented_sum_on_stream(const SegmentedCall& call, const void* in, void* out, const void* offsets,
                            Workspace* workspace, std::uintptr_t stream);

}  // namespace scan_zoo_python
