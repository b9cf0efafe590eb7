// cub_segmented_scan -- NVIDIA CUB's scan-by-key: the reference row for segmented_scan.
//
// Idea: cub::DeviceScan::InclusiveScanByKey / ExclusiveScanByKey (and the Sum shorthands) scan
// values and restart wherever the key changes: with our 8-bit segment labels as the keys, the
// same bytes that give segmented_scan its head flags. Inside, CUB runs its single-pass
// decoupled look-back scan over (key, value) pairs: each tile publishes the pair of its last
// key and its reduction since that key's run began, and a thread block compares keys to find the
// segment starts.
//
// Work: O(N); depth: O(log tile) + the look-back. Launches: 2 (tile-state initialisation, then
// the scan). Global traffic: 2 accesses per element for the values plus 1 byte of key (9 bytes per
// int32 element); GB/s counts values in, keys in and values out, as for segmented_scan.
//
// Constraints: int32 and float32 values with uint8 keys; sum, max, min (cuda::std::plus,
// cuda::maximum, cuda::minimum); exclusive scans start every segment with the identity.
// N < 2^31 uses CUB's 32-bit offsets.
//
// In the charts (bench/<gpu>/applications.png): the dashed reference of the segmented scan panel.
//
// Run: make bin/cub_segmented_scan && ./bin/cub_segmented_scan 2^28
#include <cub/device/device_scan.cuh>

#include "../baselines/cub_reference.cuh"
#include "../harness/harness.cuh"
#include "applications.cuh"

namespace {

struct CubSegmentedScan : zoo::VariantDefaults {
  template <class T, class Op>
  using Problem = zoo::SegmentedScanProblem<T, Op>;

  template <class T, class Op, class NumItems>
  static cudaError_t scan_by_key(void* storage, std::size_t& bytes, const std::uint8_t* labels, const T* values,
                                 T* out, NumItems n, zoo::ScanKind kind, cudaStream_t stream) {
    const bool inclusive = kind == zoo::ScanKind::Inclusive;
    const cuda::std::equal_to<> same_segment;
    if constexpr (std::is_same_v<Op, zoo::Sum>) {
      return inclusive ? cub::DeviceScan::InclusiveSumByKey(storage, bytes, labels, values, out, n, same_segment, stream)
                       : cub::DeviceScan::ExclusiveSumByKey(storage, bytes, labels, values, out, n, same_segment, stream);
    } else {
      using CubOp = typename CubOperator<Op>::type;
      return inclusive ? cub::DeviceScan::InclusiveScanByKey(storage, bytes, labels, values, out, CubOp{}, n,
                                                             same_segment, stream)
                       : cub::DeviceScan::ExclusiveScanByKey(storage, bytes, labels, values, out, CubOp{},
                                                             Op::template identity<T>(), n, same_segment, stream);
    }
  }

  template <class T, class Op>
  static cudaError_t dispatch(void* storage, std::size_t& bytes, const std::uint8_t* labels, const T* values, T* out,
                              std::int64_t n, zoo::ScanKind kind, cudaStream_t stream) {
    return with_cub_offsets(
        n, [&](auto items) { return scan_by_key<T, Op>(storage, bytes, labels, values, out, items, kind, stream); });
  }

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return cub_storage_bytes([&](std::size_t& bytes, zoo::ScanKind kind) {
      return dispatch<T, Op>(nullptr, bytes, nullptr, nullptr, nullptr, n, kind, nullptr);
    });
  }

  template <class T, class Op>
  static void run(const T* values, const std::uint8_t* labels, T* out, std::int64_t n, zoo::ScanKind kind,
                  zoo::Workspace workspace, cudaStream_t stream) {
    std::size_t bytes = workspace.bytes;  // no size query inside the timed region
    ZOO_CUDA((dispatch<T, Op>(workspace.data, bytes, labels, values, out, n, kind, stream)));
  }
};

}  // namespace

ZOO_MAIN(CubSegmentedScan)
