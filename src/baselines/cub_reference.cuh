// cub_reference.cuh -- NVIDIA CUB's cub::DeviceScan in the harness's variant shape: the
// reference row of the zoo (src/baselines/cub_scan.cu) and of the tuner (tune/scan_tuner.cu), which
// measures it in the same sweep as every configuration.
#pragma once

#include <cub/device/device_scan.cuh>
#include <cub/version.cuh>

#include <algorithm>
#include <cstdint>
#include <cuda/functional>

#include "../core/cuda_check.cuh"
#include "../core/ops.cuh"
#include "../core/workspace.cuh"

// The CUB functor equivalent to each zoo operator. Max and min are cuda::maximum / cuda::minimum
// from CCCL 2.8 on (cub::Max and cub::Min are deprecated there and gone in 3.0); the CCCL 2.x of
// CUDA 12.0-12.8 has only cub::Max and cub::Min.
template <class Op>
struct CubOperator;
template <>
struct CubOperator<zoo::Sum> {
  using type = cuda::std::plus<>;
};
#if CUB_VERSION >= 200800
template <>
struct CubOperator<zoo::Max> {
  using type = cuda::maximum<>;
};
template <>
struct CubOperator<zoo::Min> {
  using type = cuda::minimum<>;
};
#else
template <>
struct CubOperator<zoo::Max> {
  using type = cub::Max;
};
template <>
struct CubOperator<zoo::Min> {
  using type = cub::Min;
};
#endif

// Calls fn(n) with n as CUB's 32-bit offsets whenever it fits: the path almost every CUB user
// runs and its fastest; larger n as 64-bit. The CUB rows of the zoo all take their offsets here.
template <class Fn>
cudaError_t with_cub_offsets(std::int64_t n, Fn&& fn) {
  return n <= INT32_MAX ? fn(static_cast<std::int32_t>(n)) : fn(n);
}

// The temporary storage a CUB scan row needs for either kind of scan: query(bytes, kind) asks
// CUB (with no storage, CUB only reports the bytes), and the workspace is sized for the larger,
// once per (type, op, n).
template <class Query>
std::size_t cub_storage_bytes(Query&& query) {
  std::size_t inclusive_bytes = 0, exclusive_bytes = 0;
  ZOO_CUDA(query(inclusive_bytes, zoo::ScanKind::Inclusive));
  ZOO_CUDA(query(exclusive_bytes, zoo::ScanKind::Exclusive));
  return std::max(inclusive_bytes, exclusive_bytes);
}

struct CubScan {
  // One call site for both uses: with no storage CUB only reports the bytes it needs.
  // NumItems is int32 whenever N fits: CUB then takes its 32-bit-offset path, the one almost every
  // CUB user runs and its fastest; larger N uses the 64-bit path.
  template <class T, class Op, class NumItems>
  static cudaError_t device_scan(void* storage, std::size_t& bytes, const T* in, T* out, NumItems n,
                                 zoo::ScanKind kind, cudaStream_t stream) {
    using CubOp = typename CubOperator<Op>::type;
    const bool inclusive = kind == zoo::ScanKind::Inclusive;
    if constexpr (std::is_same_v<Op, zoo::Sum>) {
      return inclusive ? cub::DeviceScan::InclusiveSum(storage, bytes, in, out, n, stream)
                       : cub::DeviceScan::ExclusiveSum(storage, bytes, in, out, n, stream);
    } else {
      return inclusive ? cub::DeviceScan::InclusiveScan(storage, bytes, in, out, CubOp{}, n, stream)
                       : cub::DeviceScan::ExclusiveScan(storage, bytes, in, out, CubOp{},
                                                        Op::template identity<T>(), n, stream);
    }
  }

  template <class T, class Op>
  static cudaError_t dispatch(void* storage, std::size_t& bytes, const T* in, T* out, std::int64_t n,
                              zoo::ScanKind kind, cudaStream_t stream) {
    return with_cub_offsets(n, [&](auto items) { return device_scan<T, Op>(storage, bytes, in, out, items, kind, stream); });
  }

  template <class T, class Op>
  static std::size_t workspace_bytes(std::int64_t n) {
    return cub_storage_bytes([&](std::size_t& bytes, zoo::ScanKind kind) {
      return dispatch<T, Op>(nullptr, bytes, nullptr, nullptr, n, kind, nullptr);
    });
  }

  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, zoo::ScanKind kind, zoo::Workspace workspace,
                  cudaStream_t stream) {
    std::size_t bytes = workspace.bytes;  // no size query inside the timed region
    ZOO_CUDA((dispatch<T, Op>(workspace.data, bytes, in, out, n, kind, stream)));
  }
};
