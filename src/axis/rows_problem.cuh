// rows_problem.cuh -- the problem (problem.cuh) of the scans along rows (src/axis/): N elements
// as N / L rows of L (--row-length L; default one row of N), every row scanned on its own, as
// torch.cumsum(x, -1) does for an [N / L, L] tensor. Ours and CUB's binaries share it, so that
// every row of the table is the same scan of the same bytes.
//
//   RowsScanProblem   values T[N] in [-8, 8], run(in, out, rows, length, kind, workspace,
//                     stream); every element checked against the CPU reference of its row
//                     (verify_rows_scan, reference.hpp); an exclusive scan starts each row with
//                     the identity. Rows: mode inclusive-lengthL / exclusive-lengthL (the plain
//                     mode for one row); GB/s counts a copy's bytes (each element read and
//                     written once).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "../harness/problem.cuh"

namespace zoo {

template <class T, class Op>
class RowsScanProblem : public ArrayProblem<T> {
 public:
  static constexpr const char* kInputDescription = "rows of random integers in [-8, 8], see --row-length";
  static constexpr bool kTakesInputFile = false;
  static constexpr bool kUsesRowLength = true;
  static constexpr bool kRunsInPlace = true;
  static std::string op_label() { return Op::name; }
  static std::string mode_label(ScanKind kind, const Options& options) {
    const std::string mode = scan_kind_name(kind);
    return options.row_length > 0 ? mode + "-length" + std::to_string(options.row_length) : mode;
  }
  static const char* unsupported_reason(ScanKind) { return nullptr; }

  RowsScanProblem(std::int64_t n, ScanKind kind, const Options& options, const T*)
      : ArrayProblem<T>(n, nullptr, options.in_place), kind_(kind),
        length_(options.row_length > 0 ? options.row_length : n) {}

  void prepare(std::uint64_t seed, cudaStream_t stream) { this->upload(seed, stream, generate_input<T>); }
  template <class Variant>
  void run(Workspace workspace, cudaStream_t stream) const {
    Variant::template run<T, Op>(this->device_input(), this->out_.template as<T>(), rows(), length_, kind_,
                                 workspace, stream);
  }
  VerifyResult verify() const {
    return verify_rows_scan<T, Op>(this->input(), this->output(), this->n_, length_ > 0 ? length_ : 1, kind_);
  }
  double bytes_moved() const { return 2.0 * double(this->data_bytes()); }

 private:
  std::int64_t rows() const { return length_ > 0 ? this->n_ / length_ : 0; }

  ScanKind kind_;
  std::int64_t length_;  // the row length (N for one row; 0 when N is)
};

}  // namespace zoo
