// scan_zoo/scan.cuh -- the zoo's fastest scan, for your own code. Header-only; this is the one
// include. Version 0.1.0 (SCAN_ZOO_VERSION); MIT licence (LICENSE).
//
//   #include <scan_zoo/scan.cuh>
//
//   scan_zoo::Workspace workspace;                 // reusable scratch memory, see below
//   cudaError_t e = scan_zoo::inclusive_scan(d_in, d_out, n, scan_zoo::Plus{}, workspace, stream);
//   e = scan_zoo::exclusive_scan(d_in, d_out, n, T(100), scan_zoo::Plus{}, workspace, stream);
//
// What it runs: the tuned kernel (detail/tuned_kernel.cuh), a one-launch decoupled look-back
// over register-resident tiles, with the configuration measured fastest for this GPU and this N
// (detail/tuned_table.cuh; README, "Auto-tuning"). The scan is asynchronous in `stream`, like any
// kernel launch. Everything it includes lies under include/scan_zoo/ (detail/: namespace
// scan_zoo::detail): no exit, no print, no synchronization of the device except where a
// Workspace grows (cudaMalloc), below.
//
// Arguments:
//   in, out   device pointers to n elements; out == in scans in place. Any other overlap is not
//             allowed.
//   n         64-bit; 0 does nothing.
//   op        an associative operator on T, stateless (it is default-constructed on the GPU), with
//             `__host__ __device__ T operator()(const T& a, const T& b) const`, where a holds the
//             earlier elements (the operator need not be commutative), and an identity element,
//             `template <class U> __host__ __device__ static U identity()`. scan_zoo::Plus, Max
//             and Min are such operators for numbers (operators.cuh). An operator without an
//             identity (a semigroup, such as "keep the first") gets one adjoined by
//             AdjoinIdentity (operators.cuh).
//   T         any trivially copyable type. 32-bit types use the fastest tile descriptor (value
//             and status in one 64-bit word), 64-bit types (int64, double) two such words; other
//             sizes (a struct) a status word and value slots (detail/tile_state.cuh).
//   initial   exclusive_scan's value in front of element 0: out[0] = initial,
//             out[i] = initial op in[0] op ... op in[i - 1].
// Errors: every function returns a cudaError_t and never ends the process: cudaErrorInvalidValue
// for a negative n or a null pointer with n > 0, else the first error of the CUDA calls made
// (a device query, an allocation, the launch). Errors of the kernel itself surface, as always in
// CUDA, at the next synchronization.
//
// The workspace, and why it is an object rather than CUB's two-phase (null pointer, then run)
// convention: the scan is one launch because its tile descriptors carry the run's epoch, a number
// no earlier run of the same memory used, so that leftovers of earlier runs read as "not yet
// published" and need no reset kernel (CUB launches two kernels per scan). That requires state
// that outlives a call (the last epoch) and memory whose contents are known (zero, or descriptors
// of earlier epochs). A raw buffer handed in anew each call carries neither; a Workspace does.
// The contract:
//   - A Workspace() allocates its memory on first use and grows it when a larger scan needs more
//     (cudaMalloc: the call that grows it synchronizes the device); it frees it when destroyed.
//     Workspace(memory, bytes) uses the caller's device memory instead, whatever it holds: it is
//     zeroed in the stream of its first scan. A scan that needs more than `bytes` returns
//     cudaErrorInvalidValue.
//   - One scan at a time per workspace: scans in different streams at once need a workspace each
//     (scans of one workspace in one stream may follow each other freely).
//   - Each scan takes the next epoch (30 bits); when they run out, after 2^30 - 1 scans, the
//     memory is zeroed again (one memset) and counting restarts. A scan whose descriptors lie
//     differently from the previous scan's also zeroes it first: a change of element size, and,
//     for elements that are not 32-bit, a change of tile count (detail::descriptor_layout).
//   - A failed call leaves the workspace usable: an epoch is never reused, even by a call whose
//     launch failed.
// Forward progress: tiles wait only on tiles with smaller indices and rely on blocks being
// dispatched in blockIdx.x order, as NVIDIA GPUs do and CUB's scan also relies on.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "detail/core.cuh"
#include "detail/scratch.cuh"
#include "detail/tile_state.cuh"
#include "detail/tuned_dispatch.cuh"
#include "detail/tuned_kernel.cuh"
#include "operators.cuh"

#define SCAN_ZOO_VERSION_MAJOR 0
#define SCAN_ZOO_VERSION_MINOR 1
#define SCAN_ZOO_VERSION_PATCH 0
#define SCAN_ZOO_VERSION "0.1.0"

namespace scan_zoo {

namespace detail {
struct WorkspaceAccess;

// A workspace's bookkeeping: how much memory, whose, and what it holds.
struct WorkspaceBook {
  std::size_t bytes = 0;
  bool owned = true;         // allocated (and grown, and freed) by the Workspace
  bool zeroed = false;       // every status word in it is zero or from an epoch <= epoch
  std::uint32_t epoch = 0;   // the last epoch used
  std::uint64_t layout = 0;  // where the last scan put its status words (descriptor_layout)
};

// What a scan needing `bytes` with descriptor layout `layout` must do to a workspace first,
// decided from the bookkeeping alone (host logic, unit-tested without a GPU:
// tests/cuda/harness_selftest.cu, "workspace_plan").
struct WorkspacePlan {
  bool refuse = false;     // the caller's memory is smaller than the scan needs
  bool grow = false;       // (re)allocate `bytes`
  bool zero = false;       // memset the whole memory before the scan
  std::uint32_t epoch = 0; // the scan's epoch
};

inline WorkspacePlan plan_scan(const WorkspaceBook& book, std::size_t bytes, std::uint64_t layout) {
  WorkspacePlan plan;
  if (bytes > book.bytes) {
    if (!book.owned) {
      plan.refuse = true;
      return plan;
    }
    plan.grow = true;  // new memory: contents unknown
  }
  plan.epoch = (book.epoch + 1) & kEpochMask;
  const bool wrapped = plan.epoch == 0;  // every epoch may be in the memory now
  if (wrapped) plan.epoch = 1;
  plan.zero = plan.grow || !book.zeroed || wrapped || layout != book.layout;
  return plan;
}
}  // namespace detail

class Workspace {
 public:
  Workspace() = default;
  Workspace(void* memory, std::size_t bytes) : memory_(memory) {
    book_.bytes = bytes;
    book_.owned = false;
  }
  ~Workspace() { release(); }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  Workspace(Workspace&& other) noexcept { *this = std::move(other); }
  Workspace& operator=(Workspace&& other) noexcept {
    if (this != &other) {
      release();
      memory_ = std::exchange(other.memory_, nullptr);
      book_ = std::exchange(other.book_, detail::WorkspaceBook{});
    }
    return *this;
  }

  std::size_t bytes() const { return book_.bytes; }

 private:
  friend struct detail::WorkspaceAccess;
  void release() {
    if (book_.owned && memory_) cudaFree(memory_);
  }
  void* memory_ = nullptr;
  detail::WorkspaceBook book_;
};

namespace detail {

// Carries out a plan_scan on a workspace: memory for `bytes`, zeroed where its contents are not
// known, and the scan's epoch. On an error the workspace stays consistent (an allocation that
// failed leaves it empty; a memset that failed leaves it marked not zeroed).
struct WorkspaceAccess {
  static cudaError_t prepare(Workspace& w, std::size_t bytes, std::uint64_t layout, cudaStream_t stream,
                             std::uint32_t& epoch) {
    const WorkspacePlan plan = plan_scan(w.book_, bytes, layout);
    if (plan.refuse) return cudaErrorInvalidValue;
    if (plan.grow) {
      if (w.memory_) {
        if (const cudaError_t error = cudaFree(w.memory_); error != cudaSuccess) return error;
        w.memory_ = nullptr;
        w.book_.bytes = 0;
      }
      w.book_.zeroed = false;
      if (const cudaError_t error = cudaMalloc(&w.memory_, bytes); error != cudaSuccess) {
        w.memory_ = nullptr;
        return error;
      }
      w.book_.bytes = bytes;
    }
    if (plan.zero && w.book_.bytes > 0) {
      w.book_.zeroed = false;
      if (const cudaError_t error = cudaMemsetAsync(w.memory_, 0, w.book_.bytes, stream); error != cudaSuccess)
        return error;
    }
    w.book_.zeroed = true;
    w.book_.layout = layout;
    w.book_.epoch = epoch = plan.epoch;
    return cudaSuccess;
  }
  static Scratch memory(const Workspace& w) { return {w.memory_, w.book_.bytes}; }
  // Tests only (tests/cuda/api_selftest.cu): the epoch the next scan counts from.
  static void set_last_epoch(Workspace& w, std::uint32_t epoch) { w.book_.epoch = epoch; }
  static std::uint32_t last_epoch(const Workspace& w) { return w.book_.epoch; }
};

// Which bytes of the workspace a scan reads as status words. The descriptors of 32- and 64-bit T
// are 64-bit words, each a tagged status in its high half beside (part of) a value, so any word
// a later scan reads is a descriptor of some epoch: one layout for every configuration and N.
// Other types have a status word per tile followed by value slots, so a scan with another
// configuration or tile count could read an earlier scan's value bits as a status, and must
// start from zeroed memory.
template <class T>
std::uint64_t descriptor_layout(int config, std::int64_t n) {
  if (sizeof(T) == 4 || sizeof(T) == 8) return 1;
  std::int64_t tile_items = 0;
  with_config(config, tuned::Configs{}, [&](auto c) { tile_items = decltype(c)::kTileItems; });
  const auto tiles = static_cast<std::uint64_t>(ceil_div<std::int64_t>(n, tile_items));
  return (tiles << 24) ^ (std::uint64_t(config) << 16) ^ (sizeof(T) << 1);
}

// A prepared scan: its configuration, its epoch, the workspace's first `reserved_bytes` for the
// caller (the sharded scan keeps its reduction there, include/scan_zoo/multi_gpu.cuh) and the
// tile descriptors after them. The reserved bytes come first so that they lie at the same place
// for every n, and are zero after a (re)allocation, like the rest.
struct PreparedScan {
  int config = 0;
  std::uint32_t epoch = 0;
  void* reserved = nullptr;
  Scratch descriptors;
};

template <class T, class Op>
cudaError_t prepare_scan(std::int64_t n, std::size_t reserved_bytes, Workspace& workspace, cudaStream_t stream,
                         PreparedScan& prepared) {
  static_assert(std::is_trivially_copyable<T>::value, "scan_zoo scans trivially copyable types");
  static_assert(std::is_empty<Op>::value && std::is_default_constructible<Op>::value,
                "the operator must be stateless: the kernels default-construct it");
  const tuned::Table* table = nullptr;
  if (const cudaError_t error = TunedDispatch::table_for_current_device(table); error != cudaSuccess)
    return error;
  prepared.config = TunedDispatch::config_for(table, n);
  reserved_bytes = ceil_div<std::size_t>(reserved_bytes, 256) * 256;  // descriptors stay 256-byte aligned
  const std::size_t descriptor_bytes = TunedDispatch::workspace_bytes<T, Op>(prepared.config, n);
  if (const cudaError_t error =
          WorkspaceAccess::prepare(workspace, reserved_bytes + descriptor_bytes,
                                   descriptor_layout<T>(prepared.config, n) ^ (std::uint64_t(reserved_bytes) << 40),
                                   stream, prepared.epoch);
      error != cudaSuccess)
    return error;
  const Scratch memory = WorkspaceAccess::memory(workspace);
  prepared.reserved = memory.data;
  prepared.descriptors = {static_cast<char*>(memory.data) + reserved_bytes, descriptor_bytes};
  return cudaSuccess;
}

template <class T, class Op>
cudaError_t launch_scan(const PreparedScan& prepared, const T* in, T* out, std::int64_t n, ScanKind kind,
                        ScanFront<T> front, cudaStream_t stream) {
  return TunedDispatch::launch<T, Op>(prepared.config, in, out, n, kind, front, prepared.descriptors,
                                           prepared.epoch, stream);
}

template <class T, class Op>
cudaError_t scan(const T* in, T* out, std::int64_t n, ScanKind kind, T initial, Workspace& workspace,
                 cudaStream_t stream) {
  if (n < 0 || (n > 0 && (in == nullptr || out == nullptr))) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  PreparedScan prepared;
  if (const cudaError_t error = prepare_scan<T, Op>(n, 0, workspace, stream, prepared); error != cudaSuccess)
    return error;
  return launch_scan<T, Op>(prepared, in, out, n, kind, {initial}, stream);
}

}  // namespace detail

// out[i] = in[0] op in[1] op ... op in[i].
template <class T, class Op>
cudaError_t inclusive_scan(const T* in, T* out, std::int64_t n, Op, Workspace& workspace, cudaStream_t stream = 0) {
  return detail::scan<T, Op>(in, out, n, detail::ScanKind::Inclusive, Op::template identity<T>(), workspace, stream);
}

// out[0] = initial, out[i] = initial op in[0] op ... op in[i - 1].
template <class T, class Op>
cudaError_t exclusive_scan(const T* in, T* out, std::int64_t n, T initial, Op, Workspace& workspace,
                           cudaStream_t stream = 0) {
  return detail::scan<T, Op>(in, out, n, detail::ScanKind::Exclusive, initial, workspace, stream);
}

}  // namespace scan_zoo
