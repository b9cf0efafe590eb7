// python/src/jax_handlers.cpp -- the scans as XLA FFI handlers, for JAX (scan_zoo/_jax.py's
// primitives lower to them through jax.ffi.ffi_call). Built only where the build's Python has
// jax: its jaxlib ships the XLA FFI headers (jax.ffi.include_dir(); python/CMakeLists.txt). Plain
// C++, like module.cpp: the handlers decode XLA's buffers, attributes, stream and device, and
// call the same entry points (entry_points.hpp) that the torch and CuPy paths call.
//
// Each handler gets its output and a scratch output of the bytes the workspace needs (sized by
// Python with the extension's *_workspace_bytes), both allocated by XLA. The scan's handler takes
// the kernel's dtypes as attributes, as the torch and CuPy paths pass them, not from the buffers'
// element types: Python scans some arrays as other dtypes' bytes (_dtypes.py's views: uint64 as
// int64, complex as float pairs; without jax_enable_x64 an int64 output held as int32 pairs),
// and the handler checks that the buffers hold exactly the bytes those dtypes and lines need.
// An empty array (a vmap over a batch of none, say) is a call with nothing to do. The workspace
// is made over the scratch at every call, so each call's scan zeroes it first on XLA's stream (one
// memset of a few KB: the library's Workspace over memory of unknown contents); nothing is kept
// between calls, as nothing may be under XLA's buffer assignment. The handlers run on the stream
// XLA gives them and never synchronize; they are not declared command-buffer compatible, so XLA
// launches them itself rather than capturing them into its CUDA graphs.
#include <cstdint>
#include <memory>
#include <string>

#include "entry_points.hpp"
#include "jax_handlers.hpp"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;
namespace py = scan_zoo_python;

namespace {

// The package's dtype of an XLA element type; false for others (Python checks them first).
bool dtype_of(ffi::DataType type, py::Dtype& dtype) {
  switch (type) {
    case ffi::DataType::S32: dtype = py::Dtype::Int32; return true;
    case ffi::DataType::S64: dtype = py::Dtype::Int64; return true;
    case ffi::DataType::F32: dtype = py::Dtype::Float32; return true;
    case ffi::DataType::F64: dtype = py::Dtype::Float64; return true;
    case ffi::DataType::BF16: dtype = py::Dtype::BFloat16; return true;
    case ffi::DataType::F16: dtype = py::Dtype::Float16; return true;
    case ffi::DataType::PRED: dtype = py::Dtype::Bool; return true;
    case ffi::DataType::U8: dtype = py::Dtype::UInt8; return true;
    case ffi::DataType::S8: dtype = py::Dtype::Int8; return true;
    case ffi::DataType::S16: dtype = py::Dtype::Int16; return true;
    default: return false;
  }
}

// The package's dtype numbered `code` (_dtypes.py's DTYPE_CODES) and its bytes; false for another number.
bool dtype_of_code(std::int64_t code, py::Dtype& dtype, std::size_t& bytes) {
  switch (code) {
    case static_cast<int>(py::Dtype::Int32): dtype = py::Dtype::Int32; bytes = 4; return true;
    case static_cast<int>(py::Dtype::Int64): dtype = py::Dtype::Int64; bytes = 8; return true;
    case static_cast<int>(py::Dtype::Float32): dtype = py::Dtype::Float32; bytes = 4; return true;
    case static_cast<int>(py::Dtype::Float64): dtype = py::Dtype::Float64; bytes = 8; return true;
    case static_cast<int>(py::Dtype::BFloat16): dtype = py::Dtype::BFloat16; bytes = 2; return true;
    case static_cast<int>(py::Dtype::Float16): dtype = py::Dtype::Float16; bytes = 2; return true;
    case static_cast<int>(py::Dtype::Bool): dtype = py::Dtype::Bool; bytes = 1; return true;
    case static_cast<int>(py::Dtype::UInt8): dtype = py::Dtype::UInt8; bytes = 1; return true;
    case static_cast<int>(py::Dtype::Int8): dtype = py::Dtype::Int8; bytes = 1; return true;
    case static_cast<int>(py::Dtype::Int16): dtype = py::Dtype::Int16; bytes = 2; return true;
    case static_cast<int>(py::Dtype::Complex64): dtype = py::Dtype::Complex64; bytes = 8; return true;
    case static_cast<int>(py::Dtype::Complex128): dtype = py::Dtype::Complex128; bytes = 16; return true;
    default: return false;
  }
}

ffi::Error no_code(const char* what) {
  return ffi::Error::InvalidArgument(std::string("scan_zoo: no code for these element types (") + what + ")");
}

// A Workspace handle over XLA's scratch buffer for this call alone.
struct WorkspaceDelete {
  void operator()(py::Workspace* w) const { py::workspace_delete(w); }
};
using CallWorkspace = std::unique_ptr<py::Workspace, WorkspaceDelete>;
CallWorkspace workspace_over(ffi::AnyBuffer scratch) {
  return CallWorkspace(py::workspace_new(scratch.untyped_data(), scratch.size_bytes()));
}

ffi::Error error_of(int result, const char* what) {
  if (result == 0) return ffi::Error::Success();
  return ffi::Error::Internal(std::string("scan_zoo.") + what + ": " + py::result_string(result));
}

std::uintptr_t stream_value(void* stream) { return reinterpret_cast<std::uintptr_t>(stream); }

ffi::Error scan_impl(void* stream, std::int32_t device, ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y,
                     ffi::Result<ffi::AnyBuffer> scratch, std::int64_t op, std::int64_t in_dtype,
                     std::int64_t out_dtype, std::int64_t outer, std::int64_t length, std::int64_t inner,
                     bool exclusive, bool reverse) {
  py::ScanCall call;
  std::size_t in_bytes = 0, out_bytes = 0;
  if (!dtype_of_code(in_dtype, call.in_type, in_bytes) || !dtype_of_code(out_dtype, call.out_type, out_bytes))
    return no_code("scan");
  const std::size_t elements = static_cast<std::size_t>(outer * length * inner);
  if (x.size_bytes() != elements * in_bytes || y->size_bytes() != elements * out_bytes)
    return ffi::Error::InvalidArgument("scan_zoo.scan: the buffers' sizes do not match the lines and dtypes");
  if (elements == 0) return ffi::Error::Success();
  call.op = static_cast<py::Operator>(op);
  call.lines = {outer, length, inner};
  call.exclusive = exclusive;
  call.reverse = reverse;
  const CallWorkspace workspace = workspace_over(*scratch);
  // cummax and cummin give JAX the values alone (as jax.lax.cummax): no indices array.
  return error_of(py::scan(call, x.untyped_data(), y->untyped_data(), nullptr, workspace.get(), device,
                           stream_value(stream)),
                  "scan");
}

ffi::Error recurrence_impl(void* stream, std::int32_t device, ffi::AnyBuffer a, ffi::AnyBuffer b,
                           ffi::Result<ffi::AnyBuffer> h, ffi::Result<ffi::AnyBuffer> scratch, std::int64_t outer,
                           std::int64_t length, std::int64_t inner, bool reverse) {
  py::RecurrenceCall call;
  if (!dtype_of(a.element_type(), call.input) || !dtype_of(h->element_type(), call.state))
    return no_code("linear_recurrence");
  if (outer * length * inner == 0) return ffi::Error::Success();
  call.lines = {outer, length, inner};
  call.reverse = reverse;
  const CallWorkspace workspace = workspace_over(*scratch);
  return error_of(py::linear_recurrence(call, a.untyped_data(), b.untyped_data(), h->untyped_data(), workspace.get(),
                                        device, stream_value(stream)),
                  "linear_recurrence");
}

ffi::Error segmented_impl(void* stream, std::int32_t device, ffi::AnyBuffer x, ffi::AnyBuffer offsets,
                          ffi::Result<ffi::AnyBuffer> y, ffi::Result<ffi::AnyBuffer> scratch, bool exclusive) {
  py::SegmentedCall call;
  if (!dtype_of(x.element_type(), call.in_type) || !dtype_of(y->element_type(), call.out_type) ||
      !dtype_of(offsets.element_type(), call.offset_type))
    return no_code("segmented_cumsum");
  call.n = static_cast<std::int64_t>(x.element_count());
  call.segments = static_cast<std::int64_t>(offsets.element_count()) - 1;
  if (call.n == 0 || call.segments <= 0) return ffi::Error::Success();
  call.exclusive = exclusive;
  const CallWorkspace workspace = workspace_over(*scratch);
  return error_of(py::segmented_scan(call, x.untyped_data(), y->untyped_data(), offsets.untyped_data(),
                                     workspace.get(), device, stream_value(stream)),
                  "segmented_cumsum");
}

// Every handler's binding begins with the stream and the device it runs on.
auto bind_on_gpu() { return ffi::Ffi::Bind().Ctx<ffi::PlatformStream<void*>>().Ctx<ffi::DeviceOrdinal>(); }

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(ScanZooScan, scan_impl,
                              bind_on_gpu()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<std::int64_t>("op")
                                  .Attr<std::int64_t>("in_dtype")
                                  .Attr<std::int64_t>("out_dtype")
                                  .Attr<std::int64_t>("outer")
                                  .Attr<std::int64_t>("length")
                                  .Attr<std::int64_t>("inner")
                                  .Attr<bool>("exclusive")
                                  .Attr<bool>("reverse"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(ScanZooLinearRecurrence, recurrence_impl,
                              bind_on_gpu()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<std::int64_t>("outer")
                                  .Attr<std::int64_t>("length")
                                  .Attr<std::int64_t>("inner")
                                  .Attr<bool>("reverse"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(ScanZooSegmentedScan, segmented_impl,
                              bind_on_gpu()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<bool>("exclusive"));

namespace scan_zoo_python {

JaxHandler jax_handlers[kJaxHandlerCount] = {
    {"scan_zoo_scan", reinterpret_cast<void*>(&ScanZooScan)},
    {"scan_zoo_linear_recurrence", reinterpret_cast<void*>(&ScanZooLinearRecurrence)},
    {"scan_zoo_segmented_scan", reinterpret_cast<void*>(&ScanZooSegmentedScan)},
};

}  // namespace scan_zoo_python
