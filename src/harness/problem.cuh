// problem.cuh -- what a variant solves. A "problem" owns, for one (type, op, mode, n)
// combination: its inputs (generated from the combination's seed, or read from --input), its
// output, the CPU check of the output, and the bytes one run moves (for the GB/s column). The
// harness (harness.cuh) and its one-GPU launcher do everything around it: the memory check, the
// verified rounds, the watchdog, the timing and the rows. A variant names its problem with
//
//   template <class T, class Op> using Problem = zoo::ScanProblem<T, Op>;   // the default
//
// and the problem decides the signature of Variant::run that it calls. The problems here:
//   ArrayProblem  the buffers of a problem with one input and one output array (a base)
//   ScanProblem   the scan of every variant: run(in, out, n, kind, workspace, stream); output
//                 checked element by element against the CPU reference scan
//   CopyProblem   the memcpy row: the same buffers, checked as a copy of the input
// and the applications' problems in applications.cuh (segmented scan, stream compaction, sort).
// The scans across GPUs have problems of their own, for their launcher
// (src/multi_gpu/sharded_problem.cuh): the traits and labels below, then their own per-run part.
//
// A problem's interface, host side (the harness and the one-GPU launcher call nothing else):
//   kTakesInputFile, kUsesSegmentLength,     which of --input / --segment-length / --row-length /
//   kUsesRowLength, kUsesColumns,            --columns / --in-place / --values (the sorts'
//   kRunsInPlace, kTakesValues               key-value pairs) it accepts
//   carries_values()                         this combination sorts pairs: the variant's
//                                            pairs_workspace_bytes sizes its workspace
//   kName                                    what it solves ("scan", "copy", "sort", ...): the
//                                            "problem:" of the binary's --help
//   kInputDescription                        what it generates, for messages
//   op_label(), mode_label(kind, options)    the op and mode columns of its rows
//   unsupported_reason(kind)                 refuses an operator or mode (exit 3, WAIVED row)
//   Problem(n, kind, options, file_input)    no allocation yet
//   device_bytes(), host_bytes(), device_bytes_detail()   for the memory check and its message
//                                            (saturating: checked_bytes, add_bytes, below)
//   allocate_device(), allocate_host()       false when the memory is not there
//   prepare(seed, stream)                    fresh inputs uploaded, the output poisoned
//   run<Variant>(workspace, stream)          enqueues the variant's whole run
//   download(stream)                         the output back to the host (asynchronous)
//   verify()                                 the CPU check of the downloaded output
//   output(), output_count()                 what --output writes
//   bytes_moved()                            the bytes of the GB/s column
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>
#include <string>

#include "../core/cuda_check.cuh"
#include "../core/ops.cuh"
#include "../core/workspace.cuh"
#include "cli.hpp"
#include "reference.hpp"

namespace zoo {

// Owning device allocation; a failed allocation is reported, not fatal (exit code 4 row).
struct DeviceBuffer {
  void* pointer = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (pointer) cudaFree(pointer);
  }
  bool allocate(std::size_t bytes) {
    if (bytes == 0) return true;
    cudaError_t status = cudaMalloc(&pointer, bytes);
    if (status == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky: clear it and report
      pointer = nullptr;
      return false;
    }
    ZOO_CUDA(status);
    return true;
  }
  template <class U>
  U* as() const { return static_cast<U*>(pointer); }
};

// Byte counts that saturate at kTooManyBytes instead of wrapping around. N goes up to 2^62
// (cli.hpp), and from 2^61 on the bytes of its arrays no longer fit in 64 bits: a wrapped count
// (2^62 int32s are 2^64 bytes, which wraps to 0) would pass any memory check and end in an
// abort. A saturated count exceeds every memory and stays saturated through sums.
constexpr std::size_t kTooManyBytes = SIZE_MAX;
inline std::size_t checked_bytes(std::int64_t count, std::size_t element_bytes) {
  const auto items = static_cast<std::size_t>(count);
  return element_bytes != 0 && items > kTooManyBytes / element_bytes ? kTooManyBytes : items * element_bytes;
}
inline std::size_t add_bytes(std::size_t a, std::size_t b) { return a > kTooManyBytes - b ? kTooManyBytes : a + b; }
// A byte count for messages: the figure, or what a saturated count knows of it.
inline std::string bytes_text(std::size_t bytes) {
  return bytes == kTooManyBytes ? "2^64 or more" : std::to_string(bytes);
}

// A host array that may fail to allocate (reported as exit code 4, not thrown).
template <class U>
std::unique_ptr<U[]> try_host_array(std::int64_t count) {
  return std::unique_ptr<U[]>(new (std::nothrow) U[static_cast<std::size_t>(count)]);
}

// 0xA5 in every byte of an output before the verified run: a NaN-free float (-2.9e-16), an
// int32 (-1.5e9) and values of the other types (-6.5e18 as int64, 2.8e9 as uint32, a tiny
// negative double) that the [-8, 8] data can never produce, so an element the run forgot to
// write cannot pass by luck.
constexpr int kPoisonByte = 0xA5;

// The buffers of a problem with one input and one output array of n elements of T: device in
// and out, the host input (generated, or the --input file's) and the host copy of the output.
template <class T>
class ArrayProblem {
 public:
  static constexpr bool kTakesInputFile = true;
  static constexpr bool kUsesSegmentLength = false;
  static constexpr bool kUsesRowLength = false;
  static constexpr bool kUsesColumns = false;
  static constexpr bool kRunsInPlace = false;
  static constexpr bool kTakesValues = false;
  bool carries_values() const { return false; }

  // in_place: one device array, the input uploaded into the output's buffer (not poisoned: it
  // holds the input; the check still compares every element with the reference).
  ArrayProblem(std::int64_t n, const T* file_input, bool in_place = false)
      : n_(n), file_input_(file_input), in_place_(in_place) {}

  std::size_t device_bytes() const { return checked_bytes(in_place_ ? 1 : 2, data_bytes()); }
  std::size_t host_bytes() const { return checked_bytes(file_input_ ? 1 : 2, data_bytes()); }
  std::string device_bytes_detail() const {
    return in_place_ ? "one array of " + bytes_text(data_bytes()) + " (in place)"
                     : "input and output " + bytes_text(data_bytes()) + " each";
  }
  bool allocate_device() { return (in_place_ || in_.allocate(data_bytes())) && out_.allocate(data_bytes()); }
  bool allocate_host() {
    if (!file_input_) generated_ = try_host_array<T>(n_);
    host_out_ = try_host_array<T>(n_);
    return (file_input_ || generated_) && host_out_;
  }
  void download(cudaStream_t stream) {
    ZOO_CUDA(cudaMemcpyAsync(host_out_.get(), out_.pointer, data_bytes(), cudaMemcpyDeviceToHost, stream));
  }
  const T* output() const { return host_out_.get(); }
  std::int64_t output_count() const { return n_; }

 protected:
  // Fresh input (generate(data, n, seed), unless it came from a file) to the device, output
  // poisoned.
  template <class Generate>
  void upload(std::uint64_t seed, cudaStream_t stream, Generate&& generate) {
    if (!file_input_) generate(generated_.get(), n_, seed);
    ZOO_CUDA(cudaMemcpyAsync(device_input(), input(), data_bytes(), cudaMemcpyHostToDevice, stream));
    if (!in_place_) ZOO_CUDA(cudaMemsetAsync(out_.pointer, kPoisonByte, data_bytes(), stream));
  }
  // Where the run reads its input: the output's buffer when in place.
  T* device_input() const { return static_cast<T*>(in_place_ ? out_.pointer : in_.pointer); }
  std::size_t data_bytes() const { return checked_bytes(n_, sizeof(T)); }
  const T* input() const { return file_input_ ? file_input_ : generated_.get(); }

  std::int64_t n_;
  const T* file_input_;
  bool in_place_;
  DeviceBuffer in_, out_;
  std::unique_ptr<T[]> generated_, host_out_;
};

template <class T, class Op>
class ScanProblem : public ArrayProblem<T> {
 public:
  static constexpr const char* kName = "scan";
  static constexpr const char* kInputDescription = "random integers in [-8, 8]";
  static std::string op_label() { return Op::name; }
  static std::string mode_label(ScanKind kind, const Options&) { return scan_kind_name(kind); }
  static const char* unsupported_reason(ScanKind) { return nullptr; }
  static constexpr bool kRunsInPlace = true;

  ScanProblem(std::int64_t n, ScanKind kind, const Options& options, const T* file_input)
      : ArrayProblem<T>(n, file_input, options.in_place && kRunsInPlace), kind_(kind) {}

  void prepare(std::uint64_t seed, cudaStream_t stream) { this->upload(seed, stream, generate_input<T>); }
  template <class Variant>
  void run(Workspace workspace, cudaStream_t stream) const {
    Variant::template run<T, Op>(this->device_input(), this->out_.template as<T>(), this->n_, kind_, workspace,
                                 stream);
  }
  VerifyResult verify() const {
    return verify_scan<T, Op>(this->input(), this->output(), this->n_, kind_, /*exact=*/this->file_input_ == nullptr);
  }
  // A scan reads and writes every element once: the bytes a memcpy of the input moves.
  double bytes_moved() const { return 2.0 * double(this->data_bytes()); }

 private:
  ScanKind kind_;
};

// The memcpy row: the scan's buffers and run, checked as a copy (output == input).
// Not in place: a copy onto itself moves nothing.
template <class T, class Op>
class CopyProblem : public ScanProblem<T, Op> {
 public:
  static constexpr const char* kName = "copy";
  static constexpr bool kRunsInPlace = false;
  using ScanProblem<T, Op>::ScanProblem;
  VerifyResult verify() const { return verify_copy(this->input(), this->output(), this->n_); }
};

}  // namespace zoo
