// axis_problem.cuh -- the problems (problem.cuh) of the scans along an axis (src/axis/): N elements
// seen as a matrix, every row (--row-length L: N / L rows of L, torch.cumsum(x, -1)) or every
// column (--columns C: N / C rows of C, torch.cumsum(x, 0)) scanned on its own. Ours and CUB's
// binaries of an axis share its problem, so that every row of a table is the same scan of the
// same bytes.
//
//   RowsScanProblem     --row-length L (default: one row of N); mode inclusive-lengthL
//   ColumnsScanProblem  --columns C (default: one column of N); mode inclusive-columnsC
// Both: values T[N] in [-8, 8], run(in, out, shape, kind, workspace, stream) with the
// scan_zoo::Shape {outer, length, inner} of the matrix (rows: {N / L, L, 1}; columns: {1, N / C,
// C}); every element checked against the CPU reference of its line (reference.hpp:
// verify_rows_scan, verify_columns_scan); an exclusive scan starts each line with the identity;
// GB/s counts a copy's bytes (each element read and written once); in place allowed.
#pragma once

#include <cuda_runtime.h>

#include <scan_zoo/axis.cuh>

#include <cstdint>
#include <string>

#include "../harness/problem.cuh"

namespace zoo {

// The common part: the shape from the axis's option (`extent`: L or C, 0 for the default).
template <class T, class Op, bool Columns>
class AxisScanProblem : public ArrayProblem<T> {
 public:
  static constexpr bool kTakesInputFile = false;
  static constexpr bool kUsesRowLength = !Columns;
  static constexpr bool kUsesColumns = Columns;
  static constexpr bool kRunsInPlace = true;
  static std::string op_label() { return Op::name; }
  static std::string mode_label(ScanKind kind, const Options& options) {
    const std::int64_t extent = Columns ? options.columns : options.row_length;
    const std::string mode = scan_kind_name(kind);
    return extent > 0 ? mode + (Columns ? "-columns" : "-length") + std::to_string(extent) : mode;
  }
  static const char* unsupported_reason(ScanKind) { return nullptr; }

  AxisScanProblem(std::int64_t n, ScanKind kind, const Options& options, const T*)
      : ArrayProblem<T>(n, nullptr, options.in_place), kind_(kind) {
    if constexpr (Columns) {
      const std::int64_t columns = options.columns > 0 ? options.columns : 1;
      shape_ = {1, n / columns, columns};
    } else {
      const std::int64_t length = options.row_length > 0 ? options.row_length : n;
      shape_ = {length > 0 ? n / length : 0, length, 1};
    }
  }

  void prepare(std::uint64_t seed, cudaStream_t stream) { this->upload(seed, stream, generate_input<T>); }
  template <class Variant>
  void run(Workspace workspace, cudaStream_t stream) const {
    Variant::template run<T, Op>(this->device_input(), this->out_.template as<T>(), shape_, kind_, workspace, stream);
  }
  VerifyResult verify() const {
    if (this->n_ == 0) return {};
    if constexpr (Columns)
      return verify_columns_scan<T, Op>(this->input(), this->output(), shape_.length, shape_.inner, kind_);
    else
      return verify_rows_scan<T, Op>(this->input(), this->output(), this->n_, shape_.length, kind_);
  }
  double bytes_moved() const { return 2.0 * double(this->data_bytes()); }

 private:
  ScanKind kind_;
  scan_zoo::Shape shape_;
};

template <class T, class Op>
class RowsScanProblem : public AxisScanProblem<T, Op, false> {
 public:
  static constexpr const char* kName = "scan along rows";
  static constexpr const char* kInputDescription = "rows of random integers in [-8, 8], see --row-length";
  using AxisScanProblem<T, Op, false>::AxisScanProblem;
};

template <class T, class Op>
class ColumnsScanProblem : public AxisScanProblem<T, Op, true> {
 public:
  static constexpr const char* kName = "scan down columns";
  static constexpr const char* kInputDescription = "columns of random integers in [-8, 8], see --columns";
  using AxisScanProblem<T, Op, true>::AxisScanProblem;
};

// A scan along the problem's shape through the library (include/scan_zoo/axis.cuh), as
// row_scan and column_scan run it: the library keeps its own workspace (one per element type and
// operator, grown on the first, untimed verified run of a larger shape), as
// single_pass_scan_tuned's does, so the harness's is not needed.
template <class T, class Op>
void library_axis_scan(const T* in, T* out, const scan_zoo::Shape& shape, ScanKind kind, cudaStream_t stream) {
  static scan_zoo::Workspace workspace;
  ZOO_CUDA(kind == ScanKind::Inclusive
               ? scan_zoo::inclusive_scan(in, out, shape, Op{}, workspace, stream)
               : scan_zoo::exclusive_scan(in, out, shape, Op::template identity<T>(), Op{}, workspace, stream));
}

}  // namespace zoo
