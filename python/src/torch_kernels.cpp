// python/src/torch_kernels.cpp -- scan_zoo._torch_kernels: torch's cumsum, cumprod and
// logcumsumexp served in C++, in front of scan_zoo.torch's Python kernels, for the calls whose
// host time is most of their time (bench/NOTES.md, "torch's scan ops: the host's share").
//
// Where it sits. scan_zoo.torch registers Python kernels for the CUDA key of the aten scans,
// which serve every call they can, through casts where a dtype needs one, and fall through to
// torch's own kernels. This module registers, for cumsum, cumprod and _logcumsumexp (the forms
// with a new output), a kernel on the BackendSelect key: below autograd, autocast, the Python
// key (dispatch modes, FakeTensor, tensor subclasses) and functionalization, just above the
// CUDA key. It serves the calls that need no more than the scan itself, and hands every other
// call one key down, to the Python kernel (a redispatch past BackendSelect):
//   1. the input is a CUDA tensor, strided, contiguous and not empty, and dim is in range;
//   2. (operator, input dtype, dtype=) has a one-pass plan in the table scan_zoo.torch gave
//      enable() (its dtypes are _dtypes.py's: no cast before the kernel, none after it);
// then the result is allocated (at::empty, torch's caching allocator), the scan enqueued on the
// device's current stream through the extension's entry points (a table of their addresses,
// handed over as a capsule: this module never links the CUDA code), and nothing waits. Under
// torch.use_deterministic_algorithms(True) the scan takes the library's fixed-order look-back
// (ScanCall::deterministic): the same bits in every run.
//
// Built only where the build's Python has torch (python/CMakeLists.txt), against that torch's
// headers and libraries; scan_zoo.torch loads it only under the same torch version, and without
// it the Python kernels serve alone.
#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/_logcumsumexp_ops.h>
#include <ATen/ops/cumprod_ops.h>
#include <ATen/ops/cumsum_ops.h>
#include <ATen/ops/empty.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>
#include <torch/library.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "entry_points.hpp"

namespace nb = nanobind;
namespace py = scan_zoo_python;

namespace {

// The three operators served here, by their aten names.
enum class Served : int { Cumsum = 0, Cumprod = 1, Logcumsumexp = 2 };
constexpr std::array<const char*, 3> kAtenNames = {"cumsum", "cumprod", "_logcumsumexp"};

constexpr int kScalarTypes = static_cast<int>(c10::ScalarType::NumOptions);
constexpr int kNoDtype = kScalarTypes;  // the dtype= column of calls without dtype=

// One entry of the table: what the extension is asked for, and the result's dtype.
struct Plan {
  bool served = false;
  py::ScanCall call;  // op and dtypes; the lines are the call's own
  int lanes = 1;      // kernel elements an element (a complex sum scans its parts)
  c10::ScalarType result = c10::ScalarType::Undefined;
};

// What the first enable() sets up (the entry points, the table), read-only after it (so that a
// call in flight on another thread never sees it change), and the registration, which enable()
// and disable() make and take back.
struct State {
  const py::EntryPoints* entries = nullptr;
  std::vector<Plan> plans;  // [operator][input dtype][dtype= or kNoDtype]
  std::unique_ptr<torch::Library> library;
};
State& state() {
  static State* held = new State;  // never destroyed: no destructor runs after CUDA's teardown
  return *held;
}

const Plan& plan_of(Served op, c10::ScalarType in, std::optional<c10::ScalarType> dtype) {
  const int column = dtype ? static_cast<int>(*dtype) : kNoDtype;
  return state().plans[(static_cast<int>(op) * kScalarTypes + static_cast<int>(in)) * (kScalarTypes + 1) + column];
}

// Calls served here, per operator, since the module loaded (scan_zoo.torch.counts() adds them).
std::array<std::atomic<std::int64_t>, 3> served_calls{};

// One workspace per (device, stream), as scan_zoo/_core.py's Workspaces keeps them: the library's
// epoch bookkeeping lets a scan skip zeroing its status words only while one stream's scans use
// it in order. A capturing stream gets a fresh one each call (a replay repeats its epoch).
class Workspaces {
 public:
  // Enqueues `call` with a workspace for `stream`; the extension's result.
  int scan(const py::ScanCall& call, const void* in, void* out, int device, std::uintptr_t stream) {
    const py::EntryPoints& entries = *state().entries;
    const std::size_t bytes = std::max<std::size_t>(entries.scan_workspace_bytes(call), 1);
    bool capturing = false;
    if (const int result = entries.stream_is_capturing(stream, capturing); result != 0) return result;
    if (capturing) {
      const Held fresh = allocate(bytes, device);
      return entries.scan(call, in, out, nullptr, fresh.workspace.get(), device, stream);
    }
    const std::lock_guard<std::mutex> lock(mutex_);  // held across the launch: it advances the epoch
    Held& held = held_[{device, stream}];
    if (held.bytes < bytes) held = allocate(std::max(bytes, held.bytes * 3 / 2), device);  // grown by half
    return entries.scan(call, in, out, nullptr, held.workspace.get(), device, stream);
  }

  void clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    held_.clear();
  }

 private:
  struct Delete {
    void operator()(py::Workspace* w) const { state().entries->workspace_delete(w); }
  };
  struct Held {
    at::Tensor buffer;
    std::unique_ptr<py::Workspace, Delete> workspace;
    std::size_t bytes = 0;
  };
  static Held allocate(std::size_t bytes, int device) {
    Held held;
    held.buffer = at::empty({static_cast<std::int64_t>(bytes)},
                            at::TensorOptions().dtype(at::kByte).device(at::Device(at::kCUDA, device)));
    held.workspace.reset(state().entries->workspace_new(held.buffer.data_ptr(), bytes));
    held.bytes = bytes;
    return held;
  }

  std::mutex mutex_;
  std::map<std::pair<int, std::uintptr_t>, Held> held_;
};
Workspaces& workspaces() {
  static Workspaces* held = new Workspaces;  // never destroyed (state()'s reason); clear() empties it
  return *held;
}

// The plan for a call if this module serves it (steps 1 and 2 of the header), else null.
const Plan* served_plan(Served op, const at::Tensor& x, std::int64_t dim, std::optional<c10::ScalarType> dtype) {
  if (!x.is_cuda() || x.layout() != c10::kStrided || !x.is_contiguous() || x.numel() == 0) return nullptr;
  const std::int64_t rank = std::max<std::int64_t>(x.dim(), 1);
  if (dim < -rank || dim >= rank) return nullptr;  // torch's own message, one key down
  const Plan& plan = plan_of(op, x.scalar_type(), dtype);
  if (!plan.served) return nullptr;
  return &plan;
}

// The scan of x (served_plan's) into a new tensor, on the current stream of x's device.
at::Tensor run(Served op, const Plan& plan, const at::Tensor& x, std::int64_t dim) {
  py::ScanCall call = plan.call;
  call.deterministic = at::globalContext().deterministicAlgorithms();
  if (x.dim() > 0) {
    const auto sizes = x.sizes();
    dim = dim < 0 ? dim + x.dim() : dim;
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t d = 0; d < dim; ++d) outer *= sizes[d];
    for (std::int64_t d = dim + 1; d < x.dim(); ++d) inner *= sizes[d];
    call.lines = {outer, sizes[dim], inner * plan.lanes};
  } else {
    call.lines = {1, 1, plan.lanes};
  }
  at::Tensor out = at::empty(x.sizes(), x.options().dtype(plan.result));
  const int device = x.get_device();
  const auto stream = reinterpret_cast<std::uintptr_t>(c10::cuda::getCurrentCUDAStream(device).stream());
  const int result = workspaces().scan(call, x.const_data_ptr(), out.data_ptr(), device, stream);
  TORCH_CHECK(result == 0, "scan_zoo.", kAtenNames[static_cast<int>(op)], ": ", state().entries->result_string(result));
  served_calls[static_cast<int>(op)].fetch_add(1, std::memory_order_relaxed);
  return out;
}

// One key down: the Python kernel on the CUDA key (and, through it, torch's own).
c10::DispatchKeySet below_backend_select(c10::DispatchKeySet keys) {
  return keys & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, c10::DispatchKey::BackendSelect);
}

at::Tensor cumsum(c10::DispatchKeySet keys, const at::Tensor& x, std::int64_t dim,
                  std::optional<c10::ScalarType> dtype) {
  if (const Plan* plan = served_plan(Served::Cumsum, x, dim, dtype)) return run(Served::Cumsum, *plan, x, dim);
  return at::_ops::cumsum::redispatch(below_backend_select(keys), x, dim, dtype);
}

at::Tensor cumprod(c10::DispatchKeySet keys, const at::Tensor& x, std::int64_t dim,
                   std::optional<c10::ScalarType> dtype) {
  if (const Plan* plan = served_plan(Served::Cumprod, x, dim, dtype)) return run(Served::Cumprod, *plan, x, dim);
  return at::_ops::cumprod::redispatch(below_backend_select(keys), x, dim, dtype);
}

at::Tensor logcumsumexp(c10::DispatchKeySet keys, const at::Tensor& x, std::int64_t dim) {
  if (const Plan* plan = served_plan(Served::Logcumsumexp, x, dim, std::nullopt))
    return run(Served::Logcumsumexp, *plan, x, dim);
  return at::_ops::_logcumsumexp::redispatch(below_backend_select(keys), x, dim);
}

// torch's dtypes by the names scan_zoo/_dtypes.py gives them.
c10::ScalarType scalar_type(const std::string& name) {
  static const std::map<std::string, c10::ScalarType> types = {
      {"bool", c10::kBool},          {"uint8", c10::kByte},        {"int8", c10::kChar},
      {"int16", c10::kShort},        {"int32", c10::kInt},         {"int64", c10::kLong},
      {"uint16", c10::kUInt16},      {"uint32", c10::kUInt32},     {"uint64", c10::kUInt64},
      {"float16", c10::kHalf},       {"bfloat16", c10::kBFloat16}, {"float32", c10::kFloat},
      {"float64", c10::kDouble},     {"complex64", c10::kComplexFloat}, {"complex128", c10::kComplexDouble}};
  const auto found = types.find(name);
  if (found == types.end()) throw std::invalid_argument("scan_zoo._torch_kernels: no dtype named " + name);
  return found->second;
}

// The three kernels on the BackendSelect key of aten's operators, for as long as the Library lives.
std::unique_ptr<torch::Library> registered() {
  auto library = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", c10::DispatchKey::BackendSelect,
                                                  __FILE__, __LINE__);
  library->impl("cumsum", TORCH_FN(cumsum));
  library->impl("cumprod", TORCH_FN(cumprod));
  library->impl("_logcumsumexp", TORCH_FN(logcumsumexp));
  return library;
}

// (aten operator, input dtype, dtype= or "", result dtype, operator code, input code, output code, lanes)
using PlanRow = std::tuple<std::string, std::string, std::string, std::string, int, int, int, int>;

void enable(nb::capsule entries, const std::vector<PlanRow>& rows) {
  State& s = state();
  if (s.library) return;
  if (!PyCapsule_IsValid(entries.ptr(), py::kEntryPointsCapsule))
    throw std::invalid_argument("scan_zoo._torch_kernels.enable: not the extension's entry points");
  const auto* table = static_cast<const py::EntryPoints*>(PyCapsule_GetPointer(entries.ptr(), py::kEntryPointsCapsule));
  if (table->size != sizeof(py::EntryPoints))
    throw std::invalid_argument("scan_zoo._torch_kernels.enable: the extension is from another build");
  if (!s.plans.empty()) {  // enabled before: the table is the package's, the same every time
    s.library = registered();
    return;
  }
  std::vector<Plan> plans(kAtenNames.size() * kScalarTypes * (kScalarTypes + 1));
  for (const auto& [name, in, asked, result, op_code, in_code, out_code, lanes] : rows) {
    const auto op = std::find(kAtenNames.begin(), kAtenNames.end(), name);
    if (op == kAtenNames.end()) throw std::invalid_argument("scan_zoo._torch_kernels.enable: no operator " + name);
    const int column = asked.empty() ? kNoDtype : static_cast<int>(scalar_type(asked));
    Plan& plan = plans[((op - kAtenNames.begin()) * kScalarTypes + static_cast<int>(scalar_type(in))) *
                           (kScalarTypes + 1) + column];
    plan.served = true;
    plan.call.op = static_cast<py::Operator>(op_code);
    plan.call.in_type = static_cast<py::Dtype>(in_code);
    plan.call.out_type = static_cast<py::Dtype>(out_code);
    plan.lanes = lanes;
    plan.result = scalar_type(result);
  }
  s.entries = table;
  s.plans = std::move(plans);
  s.library = registered();
}

void disable() {
  state().library.reset();  // the registrations go; BackendSelect falls through again
  workspaces().clear();
}

}  // namespace

NB_MODULE(_torch_kernels, m) {
  m.doc() = "scan_zoo.torch's C++ kernels for torch's cumsum, cumprod and logcumsumexp; driven by scan_zoo.torch.";
  m.def("enable", &enable, nb::arg("entry_points"), nb::arg("plans"));
  m.def("disable", &disable);
  m.def("is_enabled", [] { return static_cast<bool>(state().library); });
  // {aten operator: calls served here} since the module loaded
  m.def("served", [] {
    nb::dict counts;
    for (std::size_t op = 0; op < kAtenNames.size(); ++op)
      counts[kAtenNames[op]] = served_calls[op].load(std::memory_order_relaxed);
    return counts;
  });
  m.def("release", [] { workspaces().clear(); });  // the cached workspaces back to torch's allocator
}
