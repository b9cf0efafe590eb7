// python/src/entry.cu -- the extension's CUDA entry points: the workspace handle, the device the
// call's arrays live on made current for the call (and the caller's put back), and the choice
// among the instantiations by operator.
#include <initializer_list>

#include "typed_calls.cuh"

namespace scan_zoo_python {
namespace {

// Makes `device` current for its lifetime; the caller's device is current again afterwards.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    status_ = cudaGetDevice(&previous_);
    if (status_ == cudaSuccess && previous_ != device) status_ = cudaSetDevice(device);
    else previous_ = -1;  // nothing to put back
  }
  ~DeviceScope() {
    if (previous_ >= 0) cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  cudaError_t status() const { return status_; }

 private:
  int previous_ = -1;
  cudaError_t status_ = cudaSuccess;
};

}  // namespace

Workspace* workspace_new(void* memory, std::size_t bytes) { return new Workspace{scan_zoo::Workspace(memory, bytes)}; }
void workspace_delete(Workspace* workspace) { delete workspace; }

const char* result_string(int result) {
  if (result == kNotBuilt) return "scan_zoo: the extension has no code for this combination of dtypes";
  if (result == cudaErrorNoKernelImageForDevice)
    return "no kernel image is available for execution on the device: the package was built for other GPUs; "
           "reinstall it for this one, e.g. ARCH=sm_90 pip install . (ARCH: its compute capability)";
  return cudaGetErrorString(static_cast<cudaError_t>(result));
}

int stream_is_capturing(std::uintptr_t stream, bool& capturing) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaError_t result = cudaStreamIsCapturing(stream_of(stream), &status);
  capturing = status != cudaStreamCaptureStatusNone;
  return result;
}

std::size_t scan_workspace_bytes(const ScanCall& call) {
  switch (call.op) {
    case Operator::Sum:
      for (const auto bytes_of : {sum_workspace_bytes, half_sum_workspace_bytes, mask_sum_workspace_bytes})
        if (const std::size_t bytes = bytes_of(call); bytes != SIZE_MAX) return bytes;
      return SIZE_MAX;
    case Operator::Prod: return product_workspace_bytes(call);
    case Operator::LogSumExp: return logsumexp_workspace_bytes(call);
    case Operator::Max:
    case Operator::Min: return extreme_workspace_bytes(call);
  }
  return SIZE_MAX;
}

int scan(const ScanCall& call, const void* in, void* out, void* indices, Workspace* workspace, int device,
         std::uintptr_t stream) {
  const DeviceScope scope(device);
  if (scope.status() != cudaSuccess) return scope.status();
  switch (call.op) {
    case Operator::Sum:
      for (const auto scan_of : {sum_scan, half_sum_scan, mask_sum_scan})
        if (const int result = scan_of(call, in, out, workspace, stream); result != kNotBuilt) return result;
      return kNotBuilt;
    case Operator::Prod: return product_scan(call, in, out, workspace, stream);
    case Operator::LogSumExp: return logsumexp_scan(call, in, out, workspace, stream);
    case Operator::Max:
    case Operator::Min: return extreme_scan(call, in, out, indices, workspace, stream);
  }
  return kNotBuilt;
}

int linear_recurrence(const RecurrenceCall& call, const void* a, const void* b, void* h, Workspace* workspace,
                      int device, std::uintptr_t stream) {
  const DeviceScope scope(device);
  if (scope.status() != cudaSuccess) return scope.status();
  return recurrence_on_stream(call, a, b, h, workspace, stream);
}

int linear_recurrence_backward(const RecurrenceCall& call, const void* a, const void* h, const void* dh, void* da,
                               void* db, Workspace* workspace, int device, std::uintptr_t stream) {
  const DeviceScope scope(device);
  if (scope.status() != cudaSuccess) return scope.status();
  return recurrence_backward_on_stream(call, a, h, dh, da, db, workspace, stream);
}

int segmented_scan(const SegmentedCall& call, const void* in, void* out, const void* offsets, Workspace* workspace,
                   int device, std::uintptr_t stream) {
  const DeviceScope scope(device);
  if (scope.status() != cudaSuccess) return scope.status();
  return segmented_sum_on_stream(call, in, out, offsets, workspace, stream);
}

}  // namespace scan_zoo_python
