// python/src/module.cpp -- the extension module scan_zoo._extension (nanobind): the entry points
// of entry_points.hpp with integers for pointers, streams and dtypes, a CUDA error turned into a
// RuntimeError that names the call; the same entry points as a table of pointers for
// scan_zoo._torch_kernels; where built with JAX, the XLA FFI handlers as capsules
// (jax_handlers.cpp). Python (scan_zoo/_core.py) checks every argument first and allocates every
// byte; nothing here allocates device memory, synchronizes or prints.
#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "entry_points.hpp"
#ifdef SCAN_ZOO_WITH_JAX
#include "jax_handlers.hpp"
#endif

namespace nb = nanobind;
namespace py = scan_zoo_python;

namespace {

// The workspace handle as a Python object that frees it with itself. It does not own the device
// memory: Python keeps the framework's buffer alive beside it.
class WorkspaceHandle {
 public:
  WorkspaceHandle(std::uintptr_t memory, std::size_t bytes)
      : workspace_(py::workspace_new(reinterpret_cast<void*>(memory), bytes)), bytes_(bytes) {}
  py::Workspace* get() const { return workspace_.get(); }
  std::size_t bytes() const { return bytes_; }

 private:
  struct Delete {
    void operator()(py::Workspace* w) const { py::workspace_delete(w); }
  };
  std::unique_ptr<py::Workspace, Delete> workspace_;
  std::size_t bytes_;
};

py::Lines lines(std::int64_t outer, std::int64_t length, std::int64_t inner) { return {outer, length, inner}; }

py::ScanCall scan_call(int op, int in_type, int out_type, std::int64_t outer, std::int64_t length,
                       std::int64_t inner, bool exclusive, bool reverse, bool deterministic) {
  py::ScanCall call;
  call.op = static_cast<py::Operator>(op);
  call.in_type = static_cast<py::Dtype>(in_type);
  call.out_type = static_cast<py::Dtype>(out_type);
  call.lines = lines(outer, length, inner);
  call.exclusive = exclusive;
  call.reverse = reverse;
  call.deterministic = deterministic;
  return call;
}

py::RecurrenceCall recurrence_call(int input, int state, std::int64_t outer, std::int64_t length, std::int64_t inner,
                                   bool reverse) {
  py::RecurrenceCall call;
  call.input = static_cast<py::Dtype>(input);
  call.state = static_cast<py::Dtype>(state);
  call.lines = lines(outer, length, inner);
  call.reverse = reverse;
  return call;
}

py::SegmentedCall segmented_call(int in_type, int out_type, int offset_type, std::int64_t n, std::int64_t segments,
                                 bool exclusive) {
  py::SegmentedCall call;
  call.in_type = static_cast<py::Dtype>(in_type);
  call.out_type = static_cast<py::Dtype>(out_type);
  call.offset_type = static_cast<py::Dtype>(offset_type);
  call.n = n;
  call.segments = segments;
  call.exclusive = exclusive;
  return call;
}

constexpr py::EntryPoints entry_point_table{sizeof(py::EntryPoints), &py::workspace_new,        &py::workspace_delete,
                                            &py::stream_is_capturing,   &py::result_string,        &py::scan_workspace_bytes,
                                            &py::scan};

void raise_on_error(int result, const char* what) {
  if (result != 0) throw std::runtime_error(std::string("scan_zoo.") + what + ": " + py::result_string(result));
}

}  // namespace

NB_MODULE(_extension, m) {
  m.doc() = "scan_zoo's CUDA entry points; call them through the scan_zoo package, which checks arguments.";

  nb::class_<WorkspaceHandle>(m, "Workspace")
      .def(nb::init<std::uintptr_t, std::size_t>(), nb::arg("memory"), nb::arg("bytes"))
      .def_prop_ro("bytes", &WorkspaceHandle::bytes);

  m.def("stream_is_capturing", [](std::uintptr_t stream) {
    bool capturing = false;
    raise_on_error(py::stream_is_capturing(stream, capturing), "stream_is_capturing");
    return capturing;
  });
  // deterministic: the same bits in every run (ScanCall::deterministic; the workspace may differ)
  m.def("scan_workspace_bytes", [](int op, int in_type, int out_type, std::int64_t outer, std::int64_t length,
                                   std::int64_t inner, bool deterministic) {
    const py::ScanCall call = scan_call(op, in_type, out_type, outer, length, inner, false, false, deterministic);
    return py::scan_workspace_bytes(call);
  });
  // indices: cummax's and cummin's int64 indices, 0 for none (the values alone)
  m.def("scan", [](int op, int in_type, int out_type, std::int64_t outer, std::int64_t length, std::int64_t inner,
                   bool exclusive, bool reverse, bool deterministic, std::uintptr_t in, std::uintptr_t out,
                   std::uintptr_t indices, WorkspaceHandle& workspace, int device, std::uintptr_t stream) {
    const py::ScanCall call =
        scan_call(op, in_type, out_type, outer, length, inner, exclusive, reverse, deterministic);
    raise_on_error(py::scan(call, reinterpret_cast<const void*>(in), reinterpret_cast<void*>(out),
                            reinterpret_cast<void*>(indices), workspace.get(), device, stream),
                   "scan");
  });
  m.def("recurrence_workspace_bytes",
        [](int input, int state, std::int64_t outer, std::int64_t length, std::int64_t inner) {
          return py::recurrence_workspace_bytes(recurrence_call(input, state, outer, length, inner, false));
        });
  m.def("linear_recurrence", [](int input, int state, std::int64_t outer, std::int64_t length, std::int64_t inner,
                                bool reverse, std::uintptr_t a, std::uintptr_t b, std::uintptr_t h,
                                WorkspaceHandle& workspace, int device, std::uintptr_t stream) {
    const py::RecurrenceCall call = recurrence_call(input, state, outer, length, inner, reverse);
    raise_on_error(py::linear_recurrence(call, reinterpret_cast<const void*>(a), reinterpret_cast<const void*>(b),
                                         reinterpret_cast<void*>(h), workspace.get(), device, stream),
                   "linear_recurrence");
  });
  m.def("linear_recurrence_backward",
        [](int input, int state, std::int64_t outer, std::int64_t length, std::int64_t inner, bool reverse,
           std::uintptr_t a, std::uintptr_t h, std::uintptr_t dh, std::uintptr_t da, std::uintptr_t db,
           WorkspaceHandle& workspace, int device, std::uintptr_t stream) {
          const py::RecurrenceCall call = recurrence_call(input, state, outer, length, inner, reverse);
          raise_on_error(py::linear_recurrence_backward(call, reinterpret_cast<const void*>(a),
                                                        reinterpret_cast<const void*>(h),
                                                        reinterpret_cast<const void*>(dh), reinterpret_cast<void*>(da),
                                                        reinterpret_cast<void*>(db), workspace.get(), device, stream),
                         "linear_recurrence_backward");
        });
  m.def("segmented_workspace_bytes", [](int in_type, int out_type, std::int64_t n) {
    return py::segmented_workspace_bytes(segmented_call(in_type, out_type, 0, n, 0, false));
  });
  m.def("segmented_scan", [](int in_type, int out_type, int offset_type, std::int64_t n, std::int64_t segments,
                             bool exclusive, std::uintptr_t in, std::uintptr_t out, std::uintptr_t offsets,
                             WorkspaceHandle& workspace, int device, std::uintptr_t stream) {
    const py::SegmentedCall call = segmented_call(in_type, out_type, offset_type, n, segments, exclusive);
    raise_on_error(py::segmented_scan(call, reinterpret_cast<const void*>(in), reinterpret_cast<void*>(out),
                                      reinterpret_cast<const void*>(offsets), workspace.get(), device, stream),
                   "segmented_cumsum");
  });
  // The table of entry points, for scan_zoo._torch_kernels (torch_kernels.cpp).
  m.def("entry_points", [] {
    return nb::capsule(static_cast<const void*>(&entry_point_table), py::kEntryPointsCapsule);
  });
#ifdef SCAN_ZOO_WITH_JAX
  // name -> capsule of an XLA FFI handler, for jax.ffi.register_ffi_target (scan_zoo/_jax.py)
  m.def("jax_handlers", [] {
    nb::dict handlers;
    for (const py::JaxHandler& handler : py::jax_handlers) handlers[handler.name] = nb::capsule(handler.function);
    return handlers;
  });
#endif
}
