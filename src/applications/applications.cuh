// applications.cuh -- the problems (problem.cuh) of the scan applications: what their binaries
// take as input, what they output, how the output is checked, and what their rows are called.
// Ours and CUB's binary of each application share one problem, so both see the same bytes.
//
//   SegmentedScanProblem  values T[n] and 8-bit segment labels (a segment starts where the label
//                         changes), scanned with the operator restarting at every segment:
//                         run(values, labels, out, n, kind, workspace, stream). Rows: op sum /
//                         max / min, mode segmented-inclusive / segmented-exclusive.
//   CompactionProblem     keep the elements x > 0, in order: run(in, out, count, n, workspace,
//                         stream) writes the kept elements to out[0..count) and their number to
//                         *count (device int64). Rows: op select, mode x>0.
//   SortProblem           ascending sort of 32- or 64-bit keys (any of the zoo's types), or of
//                         key-value pairs with --values (a 32-bit value rides with each key):
//                         run(keys_in, keys_out, values_in, values_out, n, workspace, stream),
//                         the value pointers null for keys only. Rows: op sort, mode ascending
//                         (ascending-pairs with --values).
// Compaction and sort have no operator or scan mode of their own (their inner scans are exclusive
// sums): they accept the default --op sum and --inclusive, and refuse the others (exit 3).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "../harness/problem.cuh"
#include "application_reference.hpp"

namespace zoo {

// The refusal shared by the applications without an operator or mode of their own.
template <class Op>
const char* refuse_operator_and_mode(ScanKind kind, const char* what) {
  return std::is_same_v<Op, Sum> && kind == ScanKind::Inclusive ? nullptr : what;
}

template <class T, class Op>
class SegmentedScanProblem {
 public:
  static constexpr const char* kName = "segmented scan";
  static constexpr bool kTakesInputFile = false;
  static constexpr const char* kInputDescription = "values in [-8, 8] and random segments, see --segment-length";
  static constexpr bool kUsesSegmentLength = true;
  static constexpr bool kUsesRowLength = false;
  static constexpr bool kUsesColumns = false;
  static constexpr bool kRunsInPlace = false;
  static constexpr bool kTakesValues = false;
  bool carries_values() const { return false; }
  static std::string op_label() { return Op::name; }
  static std::string mode_label(ScanKind kind, const Options&) { return std::string("segmented-") + scan_kind_name(kind); }
  static const char* unsupported_reason(ScanKind) { return nullptr; }

  SegmentedScanProblem(std::int64_t n, ScanKind kind, const Options& options, const T*)
      : n_(n), kind_(kind), mean_length_(options.segment_length > 0 ? options.segment_length : kDefaultSegmentLength) {}

  std::size_t device_bytes() const { return add_bytes(checked_bytes(2, value_bytes()), label_bytes()); }
  std::size_t host_bytes() const { return device_bytes(); }
  std::string device_bytes_detail() const {
    return "values and output " + bytes_text(value_bytes()) + " each, labels " + bytes_text(label_bytes());
  }
  bool allocate_device() {
    return values_.allocate(value_bytes()) && labels_.allocate(label_bytes()) && out_.allocate(value_bytes());
  }
  bool allocate_host() {
    host_values_ = try_host_array<T>(n_);
    host_labels_ = try_host_array<std::uint8_t>(n_);
    host_out_ = try_host_array<T>(n_);
    return host_values_ && host_labels_ && host_out_;
  }
  void prepare(std::uint64_t seed, cudaStream_t stream) {
    generate_input(host_values_.get(), n_, seed);
    generate_segment_labels(host_labels_.get(), n_, seed, mean_length_);
    ZOO_CUDA(cudaMemcpyAsync(values_.pointer, host_values_.get(), value_bytes(), cudaMemcpyHostToDevice, stream));
    ZOO_CUDA(cudaMemcpyAsync(labels_.pointer, host_labels_.get(), label_bytes(), cudaMemcpyHostToDevice, stream));
    ZOO_CUDA(cudaMemsetAsync(out_.pointer, kPoisonByte, value_bytes(), stream));
  }
  template <class Variant>
  void run(Workspace workspace, cudaStream_t stream) const {
    Variant::template run<T, Op>(values_.as<const T>(), labels_.as<const std::uint8_t>(), out_.as<T>(), n_, kind_,
                                 workspace, stream);
  }
  void download(cudaStream_t stream) {
    ZOO_CUDA(cudaMemcpyAsync(host_out_.get(), out_.pointer, value_bytes(), cudaMemcpyDeviceToHost, stream));
  }
  VerifyResult verify() const {
    return verify_segmented_scan<T, Op>(host_values_.get(), host_labels_.get(), host_out_.get(), n_, kind_);
  }
  const T* output() const { return host_out_.get(); }
  std::int64_t output_count() const { return n_; }
  // Values and labels read, output written, once each.
  double bytes_moved() const { return double(device_bytes()); }

 private:
  std::size_t value_bytes() const { return checked_bytes(n_, sizeof(T)); }
  std::size_t label_bytes() const { return checked_bytes(n_, 1); }

 protected:  // segmented_scan_offsets reads the same segments as offsets
  std::int64_t n_;
  ScanKind kind_;
  std::int64_t mean_length_;
  DeviceBuffer values_, labels_, out_;
  std::unique_ptr<T[]> host_values_, host_out_;
  std::unique_ptr<std::uint8_t[]> host_labels_;
};

template <class T, class Op>
class CompactionProblem : public ArrayProblem<T> {
 public:
  static constexpr const char* kName = "stream compaction";
  static constexpr const char* kInputDescription = "random integers in [-8, 8]";
  static std::string op_label() { return "select"; }
  static std::string mode_label(ScanKind, const Options&) { return "x>0"; }
  static const char* unsupported_reason(ScanKind kind) {
    return refuse_operator_and_mode<Op>(
        kind, "stream compaction keeps the elements > 0 in order: it has no operator or scan mode to choose "
              "(use the defaults, --op sum --inclusive)");
  }

  CompactionProblem(std::int64_t n, ScanKind, const Options&, const T* file_input)
      : ArrayProblem<T>(n, file_input) {}

  std::size_t device_bytes() const { return add_bytes(ArrayProblem<T>::device_bytes(), sizeof(std::int64_t)); }
  bool allocate_device() { return ArrayProblem<T>::allocate_device() && count_.allocate(sizeof(std::int64_t)); }
  void prepare(std::uint64_t seed, cudaStream_t stream) {
    this->upload(seed, stream, generate_input<T>);
    ZOO_CUDA(cudaMemsetAsync(count_.pointer, kPoisonByte, sizeof(std::int64_t), stream));
  }
  template <class Variant>
  void run(Workspace workspace, cudaStream_t stream) const {
    Variant::template run<T>(this->in_.template as<const T>(), this->out_.template as<T>(),
                             count_.as<std::int64_t>(), this->n_, workspace, stream);
  }
  // The whole output, not just the kept part: the check also sees what lies past the count.
  void download(cudaStream_t stream) {
    ArrayProblem<T>::download(stream);
    ZOO_CUDA(cudaMemcpyAsync(&host_count_, count_.pointer, sizeof host_count_, cudaMemcpyDeviceToHost, stream));
  }
  VerifyResult verify() const {
    return verify_compaction(this->input(), this->n_, this->output(), host_count_, kPoisonByte);
  }
  std::int64_t output_count() const { return host_count_; }
  // Every element read once, the kept ones written once (the count of the verified run: the
  // timed runs compact the same data).
  double bytes_moved() const { return double(this->n_ + host_count_) * sizeof(T); }

 private:
  DeviceBuffer count_;
  std::int64_t host_count_ = 0;
};

template <class T, class Op>
class SortProblem : public ArrayProblem<T> {
 public:
  static constexpr const char* kName = "sort";
  static constexpr const char* kInputDescription = "random keys over the type's whole range";
  static constexpr bool kTakesValues = true;
  static std::string op_label() { return "sort"; }
  static std::string mode_label(ScanKind, const Options&) { return "ascending"; }
  static const char* unsupported_reason(ScanKind kind) {
    return refuse_operator_and_mode<Op>(
        kind, "a sort has no operator or scan mode to choose (use the defaults, --op sum --inclusive)");
  }

  SortProblem(std::int64_t n, ScanKind, const Options& options, const T* file_input)
      : ArrayProblem<T>(n, file_input), pairs_(options.values) {}

  bool carries_values() const { return pairs_; }
  std::size_t device_bytes() const { return add_bytes(ArrayProblem<T>::device_bytes(), checked_bytes(2, value_bytes())); }
  // The reference's keys (and values, and its own buffers for them: reference_sort's ping-pong).
  std::size_t host_bytes() const {
    return add_bytes(add_bytes(ArrayProblem<T>::host_bytes(), this->data_bytes()), checked_bytes(4, value_bytes()));
  }
  std::string device_bytes_detail() const {
    return ArrayProblem<T>::device_bytes_detail() + (pairs_ ? ", values in and out " + bytes_text(value_bytes()) + " each" : "");
  }
  bool allocate_device() {
    return ArrayProblem<T>::allocate_device() && values_in_.allocate(value_bytes()) && values_out_.allocate(value_bytes());
  }
  bool allocate_host() {
    if (!ArrayProblem<T>::allocate_host()) return false;
    if (!pairs_) return true;
    host_values_ = try_host_array<std::uint32_t>(this->n_);
    host_values_out_ = try_host_array<std::uint32_t>(this->n_);
    return host_values_ && host_values_out_;
  }
  // Keys as generated (or the --input file's); values distinct, value i = i ^ a constant of the
  // seed, so that a value that moved without its key, or equal keys that changed order, shows.
  void prepare(std::uint64_t seed, cudaStream_t stream) {
    this->upload(seed, stream, generate_keys<T>);
    if (!pairs_) return;
    const std::uint32_t salt = static_cast<std::uint32_t>(mix64(seed));
    std::uint32_t* values = host_values_.get();
    parallel_chunks(this->n_, default_chunks(this->n_), [&](std::int64_t begin, std::int64_t end, int) {
      for (std::int64_t i = begin; i < end; ++i) values[i] = static_cast<std::uint32_t>(i) ^ salt;
    });
    ZOO_CUDA(cudaMemcpyAsync(values_in_.pointer, host_values_.get(), value_bytes(), cudaMemcpyHostToDevice, stream));
    ZOO_CUDA(cudaMemsetAsync(values_out_.pointer, kPoisonByte, value_bytes(), stream));
  }
  // Keys only: null value pointers.
  template <class Variant>
  void run(Workspace workspace, cudaStream_t stream) const {
    Variant::template run<T>(this->in_.template as<const T>(), this->out_.template as<T>(),
                             values_in_.as<const std::uint32_t>(), values_out_.as<std::uint32_t>(), this->n_,
                             workspace, stream);
  }
  void download(cudaStream_t stream) {
    ArrayProblem<T>::download(stream);
    if (pairs_)
      ZOO_CUDA(cudaMemcpyAsync(host_values_out_.get(), values_out_.pointer, value_bytes(), cudaMemcpyDeviceToHost,
                               stream));
  }
  VerifyResult verify() const {
    return verify_sort(this->input(), this->output(), this->n_, host_values_.get(), host_values_out_.get());
  }
  // The memcpy-equivalent bytes (keys, and values, read once and written once), so that a sort's
  // GB/s compares with a copy; a radix sort really moves several times that (a read and a write
  // per pass).
  double bytes_moved() const { return 2.0 * (double(this->data_bytes()) + double(value_bytes())); }

 private:
  std::size_t value_bytes() const { return pairs_ ? checked_bytes(this->n_, sizeof(std::uint32_t)) : 0; }

  bool pairs_;
  DeviceBuffer values_in_, values_out_;
  std::unique_ptr<std::uint32_t[]> host_values_, host_values_out_;
};

}  // namespace zoo
