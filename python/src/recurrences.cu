// python/src/recurrences.cu -- linear_recurrence's instantiations (include/scan_zoo/
// linear_recurrence.cuh): a and b of one dtype, the state in float32 for float32 and 16-bit
// inputs and in float64 for float64 ones; forward and reverse, and the backward of each.
#include <scan_zoo/linear_recurrence.cuh>

#include "typed_calls.cuh"

namespace scan_zoo_python {
namespace {

// Calls fn.template operator()<In, State>() for the call's dtypes; false when not built.
template <class Fn>
bool with_recurrence_types(const RecurrenceCall& call, Fn& fn) {
  using D = Dtype;
  const D in = call.input, state = call.state;
  if (in == D::Float32 && state == D::Float32) return fn.template operator()<float, float>(), true;
  if (in == D::BFloat16 && state == D::Float32) return fn.template operator()<__nv_bfloat16, float>(), true;
  if (in == D::Float16 && state == D::Float32) return fn.template operator()<__half, float>(), true;
  if (in == D::Float64 && state == D::Float64) return fn.template operator()<double, double>(), true;
  return false;
}

struct RecurrenceBytes {
  const RecurrenceCall& call;
  std::size_t bytes = SIZE_MAX;
  template <class In, class State>
  void operator()() {
    bytes = scan_zoo::workspace_bytes<scan_zoo::Affine<State>, scan_zoo::detail::Zip<In, In>>(shape_of(call.lines));
  }
};

struct Recurrence {
  const RecurrenceCall& call;
  const void* a;
  const void* b;
  void* h;
  Workspace* workspace;
  std::uintptr_t stream;
  int result = kNotBuilt;
  template <class In, class State>
  void operator()() {
    const In* a_in = static_cast<const In*>(a);
    const In* b_in = static_cast<const In*>(b);
    State* h_out = static_cast<State*>(h);
    const scan_zoo::Shape shape = shape_of(call.lines);
    result = call.reverse
                 ? scan_zoo::reverse_linear_recurrence(a_in, b_in, h_out, shape, workspace->library, stream_of(stream))
                 : scan_zoo::linear_recurrence(a_in, b_in, h_out, shape, workspace->library, stream_of(stream));
  }
};

// The backward, along rows: da and db in the input's dtype from a, h and dh (the state's).
struct RecurrenceBackward {
  const RecurrenceCall& call;
  const void* a;
  const void* h;
  const void* dh;
  void* da;
  void* db;
  Workspace* workspace;
  std::uintptr_t stream;
  int result = kNotBuilt;
  template <class In, class State>
  void operator()() {
    const In* a_in = static_cast<const In*>(a);
    const State* h_in = static_cast<const State*>(h);
    const State* dh_in = static_cast<const State*>(dh);
    In* da_out = static_cast<In*>(da);
    In* db_out = static_cast<In*>(db);
    const scan_zoo::Shape shape = shape_of(call.lines);
    result = call.reverse ? scan_zoo::reverse_linear_recurrence_backward(a_in, h_in, dh_in, da_out, db_out, shape,
                                                                         workspace->library, stream_of(stream))
                          : scan_zoo::linear_recurrence_backward(a_in, h_in, dh_in, da_out, db_out, shape,
                                                                 workspace->library, stream_of(stream));
  }
};

}  // namespace

std::size_t recurrence_workspace_bytes(const RecurrenceCall& call) {
  RecurrenceBytes bytes{call};
  with_recurrence_types(call, bytes);
  return bytes.bytes;
}

int recurrence_on_stream(const RecurrenceCall& call, const void* a, const void* b, void* h, Workspace* workspace,
                         std::uintptr_t stream) {
  Recurrence recurrence{call, a, b, h, workspace, stream};
  with_recurrence_types(call, recurrence);
  return recurrence.result;
}

int recurrence_backward_on_stream(const RecurrenceCall& call, const void* a, const void* h, const void* dh, void* da,
                                  void* db, Workspace* workspace, std::uintptr_t stream) {
  RecurrenceBackward backward{call, a, h, dh, da, db, workspace, stream};
  with_recurrence_types(call, backward);
  return backward.result;
}

}  // namespace scan_zoo_python
