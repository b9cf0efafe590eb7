// scan_zoo/scan.cuh -- the zoo's fastest scan, for your own code. Header-only; this is the one
// include. Version SCAN_ZOO_VERSION (below); MIT licence (LICENSE).
//
//   #include <scan_zoo/scan.cuh>
//
//   scan_zoo::Workspace workspace;                 // reusable scratch memory, see below
//   cudaError_t e = scan_zoo::inclusive_scan(d_in, d_out, n, scan_zoo::Plus{}, workspace, stream);
//   e = scan_zoo::exclusive_scan(d_flags, d_offsets, n, 0, scan_zoo::Plus{}, workspace, stream,
//                                {d_offsets + n});  // uint8 flags -> int64 offsets, and the total
//
// What it runs: the tuned kernel (detail/tuned_kernel.cuh), a one-launch decoupled look-back
// over register-resident tiles, with the configuration measured fastest for this GPU and this N
// (detail/tuned_table.cuh; docs/variants.md, "Auto-tuning"), or, with SCAN_ZOO_COMPACT_TUNED_TABLE
// defined alike in every translation unit of the program, the compact table's (the same from 2^20
// elements on; below, the fastest of fewer), for a build that compiles fewer kernels. The scan
// is asynchronous in `stream`, like any kernel launch. Everything it includes lies under include/scan_zoo/ (detail/: namespace
// scan_zoo::detail): no exit, no print, no synchronization of the device except where a
// Workspace grows (cudaMalloc), below.
//
// The six scans (each returns a cudaError_t; Acc, first and optional, is the accumulator type):
//   inclusive_scan(in, out, n, op, workspace, stream = 0, options = {})
//       out[i] = in[0] op in[1] op ... op in[i]
//   inclusive_scan_init(in, out, n, initial, op, workspace, stream = 0, options = {})
//       out[i] = initial op in[0] op ... op in[i]
//   exclusive_scan(in, out, n, initial, op, workspace, stream = 0, options = {})
//       out[0] = initial, out[i] = initial op in[0] op ... op in[i - 1]
//   reverse_inclusive_scan, reverse_inclusive_scan_init, reverse_exclusive_scan (same arguments):
//       the same scans of the sequence read from its end, written back in place of the elements
//       they end at: out[i] = in[n - 1] op in[n - 2] op ... op in[i] (inclusive), the suffix
//       sums of a backward pass, and out[n - 1] = initial for the exclusive one. The element
//       nearer the end is the earlier operand, on the left: a reversed scan is the forward scan
//       of the reversed array.
//
// Arguments:
//   in, out   device pointers to n elements of In and Out; out == in scans in place (In and Out
//             of one size). Any other overlap is not allowed.
//   n         64-bit; 0 writes nothing but the total (options).
//   op        an associative operator on Acc: `__host__ __device__ Acc operator()(const Acc& a,
//             const Acc& b) const`, where a holds the earlier elements (the operator need not be
//             commutative), with an identity element: a member `template <class U> U identity()`,
//             static or not. It is copied into the kernel with its state (a modulus, a tolerance),
//             so it must be trivially copyable. scan_zoo::Plus, Max and Min are such operators for
//             numbers (operators.cuh). A callable without an identity (a lambda, an operator of
//             your own) gets one from scan_zoo::with_identity(fn, value); a semigroup (such as
//             "keep the first") gets one adjoined by scan_zoo::AdjoinIdentity (operators.cuh).
//             Extended lambdas (nvcc --extended-lambda) work through with_identity.
//   initial   a value, converted to Acc, or scan_zoo::device_value(pointer): an Acc in device
//             memory, read when the scan runs (written by an earlier kernel in the stream).
//   options   Options<Out>: `total`, device memory for one Out, receives the reduction of the
//             whole input with the initial value in front (CSR offsets: pass out + n, and
//             allocate n + 1); `config` forces one configuration of the shipped table (an index
//             below kConfigCount; kAutomatic, the default, picks from the table).
//             Options<Out, Determinism::RunToRun>: the same bits every run (Determinism, below);
//             Options<Out, Determinism::ChosenAtRunTime>: `run_to_run` decides, call by call.
//
// Types: In -> Acc -> Out. Every element is converted to Acc as it is loaded, the scan runs in
// Acc (registers and tile descriptors), and every result is converted to Out as it is stored.
// Acc is Out by default (a uint8 -> int64 scan accumulates in int64), except that __half and
// __nv_bfloat16 accumulate in float: scan_zoo::accumulator_t<Acc, Out>. Name it to choose, e.g.
// inclusive_scan<double>(in_float, out_float, ...). Any trivially copyable Acc works; 32-bit Acc
// use the fastest tile descriptor (value and status in one 64-bit word), Acc of 8 to 32 bytes (a
// multiple of 4: int64, double, a small struct) 2 to 8 such words of a 32-bit piece each, other
// sizes a status word and value slots (detail/grid/descriptors.cuh).
//
// Errors: every function returns a cudaError_t and never ends the process: cudaErrorInvalidValue
// for a negative n, a null pointer with n > 0, in == out with In and Out of different sizes, or
// a forced configuration out of range; else the first error of the CUDA calls made (a device
// query, an allocation, the launch). Errors of the kernel itself surface, as always in CUDA, at
// the next synchronization. An operator without an identity, or not trivially copyable, is a
// compile error that says so in one line.
//
// Determinism: integer scans (any operator on integers) give the same bits every run. A
// floating-point sum is associative only approximately, and each tile's carry-in is the
// reduction of the tiles before it grouped as the look-back found their descriptors, which
// depends on timing: two runs may differ in the last bits. Options<Out, Determinism::RunToRun>
// fixes the grouping (detail/grid/lookback.cuh, fixed_order_in_warp0): the same input then gives the
// same bits in every run on the same GPU model with the same configuration (the table's choice
// for n, or a forced one); another configuration groups differently. Its cost: docs/library.md,
// "Determinism". A caller that decides at run time (torch.use_deterministic_algorithms) can
// compile one kernel with both look-backs: Options<Out, Determinism::ChosenAtRunTime>, whose
// `run_to_run` picks the fixed order for that call.
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
//     zeroed in the stream of its first scan. workspace_bytes<Acc>(n) is enough for any scan of
//     n elements with accumulator Acc, whatever configuration runs (a scan along an axis:
//     workspace_bytes<Acc>(shape), axis.cuh); a scan that needs more than `bytes` returns
//     cudaErrorInvalidValue.
//   - One scan at a time per workspace: scans in different streams at once need a workspace each
//     (scans of one workspace in one stream may follow each other freely).
//   - Each scan takes the next epoch (30 bits); when they run out, after 2^30 - 1 scans, the
//     memory is zeroed again (one memset) and counting restarts. A scan whose descriptors lie
//     differently from the previous scan's also zeroes it first: to or from an Acc
//     of more than 32 bytes or not a multiple of 4 (status words and value slots), and for such
//     an Acc a change of size, kernel or tile count (detail::descriptor_layout); and a change
//     between the 1-D or row kernels and the column kernel (axis.cuh).
//   - A failed call leaves the workspace usable: an epoch is never reused, even by a call whose
//     launch failed.
// Forward progress: tiles wait only on tiles with smaller indices and rely on blocks being
// dispatched in blockIdx.x order, as NVIDIA GPUs do and CUB's scan also relies on.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "detail/core.cuh"
#include "detail/scratch.cuh"
#include "detail/grid/descriptors.cuh"
#include "detail/tuned_dispatch.cuh"
#include "detail/tuned_kernel.cuh"
#include "operators.cuh"

#define SCAN_ZOO_VERSION_MAJOR 1
#define SCAN_ZOO_VERSION_MINOR 0
#define SCAN_ZOO_VERSION_PATCH 0
#define SCAN_ZOO_VERSION "1.0.0"

namespace scan_zoo {

// The accumulator: the output type, or float for the 16-bit floats (see the top of this file).
struct UseDefault {};
template <class Out>
struct DefaultAccumulator {
  using type = Out;
};
template <>
struct DefaultAccumulator<__half> {
  using type = float;
};
template <>
struct DefaultAccumulator<__nv_bfloat16> {
  using type = float;
};
template <class Acc, class Out>
using accumulator_t = std::conditional_t<std::is_same<Acc, UseDefault>::value, typename DefaultAccumulator<Out>::type, Acc>;

// Let the table pick the configuration (Options::config).
inline constexpr int kAutomatic = -1;
// How many configurations the shipped table holds: Options::config may force any of 0 .. kConfigCount - 1.
inline constexpr int kConfigCount = detail::TunedDispatch::kConfigCount;

// What a scan promises about its bits from run to run (see Determinism at the top of this file).
// A compile-time choice, as CUB's determinism requirements are: the default kernel carries
// nothing of the other. ChosenAtRunTime compiles both into one kernel, for a caller whose
// choice comes at run time; Options::run_to_run then makes it, call by call.
enum class Determinism {
  NotGuaranteed,    // the fastest look-back; floating-point results may differ in the last bits
  RunToRun,         // the fixed-order look-back: the same bits in every run
  ChosenAtRunTime,  // either, as Options::run_to_run says
};

template <class Out, Determinism D = Determinism::NotGuaranteed>
struct Options {
  Out* total = nullptr;     // device memory for one Out: the reduction of everything, initial included
  int config = kAutomatic;  // a configuration of the shipped table, or kAutomatic
  bool run_to_run = false;  // under Determinism::ChosenAtRunTime: this call as RunToRun (else ignored)
  static constexpr Determinism kDeterminism = D;
};

namespace detail {

// The look-back (grid/lookback.cuh) that gives what Options promise, and whether it is the fixed
// order for this call.
template <Determinism D>
inline constexpr LookbackOrder kLookbackOrder = D == Determinism::RunToRun          ? LookbackOrder::Fixed
                                                : D == Determinism::ChosenAtRunTime ? LookbackOrder::ChosenAtRun
                                                                                    : LookbackOrder::Nearest;

}  // namespace detail

// An initial value in device memory, read when the scan runs.
template <class T>
struct DeviceValue {
  const T* pointer;
};
template <class T>
DeviceValue<T> device_value(const T* pointer) {
  return {pointer};
}

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

// Which bytes of the workspace a scan reads as status words. The descriptors of T of 4 bytes, and
// of 8 to 32 bytes in 4-byte pieces, are 64-bit words, each a tagged status in its high half
// beside a value or a piece of one (grid/descriptors.cuh), so any word a later scan reads is a
// descriptor of some epoch: one layout for every configuration, N and such T. Other types have a
// status word per tile followed by value slots, so a scan with another configuration or tile
// count could read an earlier scan's value bits as a status, and must start from zeroed memory.
// `kernel`: the configuration of the table, or another number for another kernel (axis.cuh).
template <class T>
std::uint64_t descriptor_layout(int kernel, std::int64_t tiles) {
  if (kTaggedWords<T>) return 1;
  return (static_cast<std::uint64_t>(tiles) << 24) ^ (std::uint64_t(kernel) << 16) ^ (sizeof(T) << 1);
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

// Whether op.identity<Acc>() exists (a static or non-static member template).
template <class Op, class Acc, class = void>
struct HasIdentity : std::false_type {};
template <class Op, class Acc>
struct HasIdentity<Op, Acc, std::void_t<decltype(std::declval<const Op&>().template identity<Acc>())>>
    : std::true_type {};

template <class Acc>
cudaError_t prepare_scan(std::int64_t n, std::size_t reserved_bytes, int forced_config, Workspace& workspace,
                         cudaStream_t stream, PreparedScan& prepared) {
  if (forced_config == kAutomatic) {
    const tuned::Table* table = nullptr;
    if (const cudaError_t error = TunedDispatch::table_for_current_device(table); error != cudaSuccess)
      return error;
    prepared.config = TunedDispatch::config_for(table, n);
  } else {
    prepared.config = forced_config;
  }
  reserved_bytes = ceil_div<std::size_t>(reserved_bytes, 256) * 256;  // descriptors stay 256-byte aligned
  const std::size_t descriptor_bytes = TunedDispatch::workspace_bytes<Acc>(prepared.config, n);
  std::int64_t tile_items = 0;
  with_config(prepared.config, tuned::Configs{}, [&](auto c) { tile_items = decltype(c)::kTileItems; });
  const std::uint64_t layout = descriptor_layout<Acc>(prepared.config, ceil_div<std::int64_t>(n, tile_items));
  if (const cudaError_t error = WorkspaceAccess::prepare(workspace, reserved_bytes + descriptor_bytes,
                                                         layout ^ (std::uint64_t(reserved_bytes) << 40), stream,
                                                         prepared.epoch);
      error != cudaSuccess)
    return error;
  const Scratch memory = WorkspaceAccess::memory(workspace);
  prepared.reserved = memory.data;
  prepared.descriptors = {static_cast<char*>(memory.data) + reserved_bytes, descriptor_bytes};
  return cudaSuccess;
}

// What stands in front of element 0 for each kind of `initial`: none (the identity), a value, or
// a value in device memory.
struct IdentityInFront {};
template <class Acc, class Op>
ScanFront<Acc> front_of(IdentityInFront, const Op& op) {
  return {op.template identity<Acc>()};
}
template <class Acc, class Op, class T>
ScanFront<Acc> front_of(DeviceValue<T> initial, const Op& op) {
  static_assert(std::is_same<T, Acc>::value,
                "scan_zoo: an initial value in device memory must have the accumulator's type (accumulator_t)");
  if constexpr (std::is_same<T, Acc>::value) return {op.template identity<Acc>(), nullptr, 0, initial.pointer};
  else return {op.template identity<Acc>()};  // unreachable: the static_assert has failed
}
template <class Acc, class Op, class T>
ScanFront<Acc> front_of(const T& initial, const Op&) {
  return {static_cast<Acc>(initial)};
}

// The front alone in each of `count` totals, for scans of nothing that must still write them.
template <class Acc, class Out, class Op>
__global__ void write_front_kernel(ScanFront<Acc> front, Op op, Out* totals, std::int64_t count) {
  const Out value = static_cast<Out>(front.fold(op));
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x)
    totals[i] = value;
}

template <class Acc, class Out, class Op>
cudaError_t write_fronts(const ScanFront<Acc>& front, const Op& op, Out* totals, std::int64_t count,
                         cudaStream_t stream) {
  if (!totals || count == 0) return cudaSuccess;
  const auto blocks = static_cast<unsigned>(count < 256 * 1024 ? ceil_div<std::int64_t>(count, 256) : 1024);
  write_front_kernel<<<blocks, 256, 0, stream>>>(front, op, totals, count);
  return cudaGetLastError();
}

// What a scan's types and operator must be, said at compile time in one line each; true when
// all hold (the caller compiles its body only then, so that a failed check says nothing more).
template <class In, class Out, class Acc, class Op>
constexpr bool check_scannable() {
  static_assert(std::is_trivially_copyable<In>::value && std::is_trivially_copyable<Out>::value &&
                    std::is_trivially_copyable<Acc>::value,
                "scan_zoo scans trivially copyable types");
  static_assert(HasIdentity<Op, Acc>::value,
                "scan_zoo: the operator has no identity<U>(): give it one with scan_zoo::with_identity(op, value), "
                "or adjoin one to a semigroup with scan_zoo::AdjoinIdentity (operators.cuh)");
  static_assert(std::is_trivially_copyable<Op>::value,
                "scan_zoo: the operator is copied into the kernel with its state, so it must be trivially copyable");
  return HasIdentity<Op, Acc>::value && std::is_trivially_copyable<Op>::value;
}

// The arguments every scan refuses: n elements, in and out, the forced configuration.
template <class In, class Out>
bool refuses(const In* in, const Out* out, std::int64_t n, int config) {
  if (n < 0 || (n > 0 && (in == nullptr || out == nullptr))) return true;
  if (static_cast<const void*>(in) == static_cast<const void*>(out) && sizeof(In) != sizeof(Out)) return true;
  return config < kAutomatic || config >= TunedDispatch::kConfigCount;
}

template <class AccChoice, bool Reverse, class In, class Out, class Init, class Op, Determinism D>
cudaError_t scan(const In* in, Out* out, std::int64_t n, ScanKind kind, const Init& initial, const Op& op,
                 Workspace& workspace, cudaStream_t stream, const Options<Out, D>& options) {
  using Acc = accumulator_t<AccChoice, Out>;
  if constexpr (check_scannable<In, Out, Acc, Op>()) {
    if (refuses(in, out, n, options.config)) return cudaErrorInvalidValue;
    const ScanFront<Acc> front = front_of<Acc>(initial, op);
    if (n == 0) return write_fronts(front, op, options.total, 1, stream);
    PreparedScan prepared;
    if (const cudaError_t error = prepare_scan<Acc>(n, 0, options.config, workspace, stream, prepared);
        error != cudaSuccess)
      return error;
    const ScanArgs<In, Out, Acc, Op, Reverse, kLookbackOrder<D>> args{
        in, out, n, kind == ScanKind::Exclusive, front, op, options.total, options.run_to_run};
    return TunedDispatch::launch(prepared.config, args, prepared.descriptors, prepared.epoch, stream);
  } else {
    return cudaErrorInvalidValue;  // unreachable: a static_assert above has failed
  }
}

}  // namespace detail

// The six scans (the top of this file says what each computes). AccChoice: the accumulator
// type, or UseDefault for accumulator_t's choice.
template <class AccChoice = UseDefault, class In, class Out, class Op, Determinism D = Determinism::NotGuaranteed>
cudaError_t inclusive_scan(const In* in, Out* out, std::int64_t n, Op op, Workspace& workspace,
                           cudaStream_t stream = 0, const Options<Out, D>& options = {}) {
  return detail::scan<AccChoice, false>(in, out, n, detail::ScanKind::Inclusive, detail::IdentityInFront{}, op,
                                        workspace, stream, options);
}

template <class AccChoice = UseDefault, class In, class Out, class Init, class Op,
          Determinism D = Determinism::NotGuaranteed>
cudaError_t inclusive_scan_init(const In* in, Out* out, std::int64_t n, const Init& initial, Op op,
                                Workspace& workspace, cudaStream_t stream = 0, const Options<Out, D>& options = {}) {
  return detail::scan<AccChoice, false>(in, out, n, detail::ScanKind::Inclusive, initial, op, workspace, stream,
                                        options);
}

template <class AccChoice = UseDefault, class In, class Out, class Init, class Op,
          Determinism D = Determinism::NotGuaranteed>
cudaError_t exclusive_scan(const In* in, Out* out, std::int64_t n, const Init& initial, Op op, Workspace& workspace,
                           cudaStream_t stream = 0, const Options<Out, D>& options = {}) {
  return detail::scan<AccChoice, false>(in, out, n, detail::ScanKind::Exclusive, initial, op, workspace, stream,
                                        options);
}

template <class AccChoice = UseDefault, class In, class Out, class Op, Determinism D = Determinism::NotGuaranteed>
cudaError_t reverse_inclusive_scan(const In* in, Out* out, std::int64_t n, Op op, Workspace& workspace,
                                   cudaStream_t stream = 0, const Options<Out, D>& options = {}) {
  return detail::scan<AccChoice, true>(in, out, n, detail::ScanKind::Inclusive, detail::IdentityInFront{}, op,
                                       workspace, stream, options);
}

template <class AccChoice = UseDefault, class In, class Out, class Init, class Op,
          Determinism D = Determinism::NotGuaranteed>
cudaError_t reverse_inclusive_scan_init(const In* in, Out* out, std::int64_t n, const Init& initial, Op op,
                                        Workspace& workspace, cudaStream_t stream = 0,
                                        const Options<Out, D>& options = {}) {
  return detail::scan<AccChoice, true>(in, out, n, detail::ScanKind::Inclusive, initial, op, workspace, stream,
                                       options);
}

template <class AccChoice = UseDefault, class In, class Out, class Init, class Op,
          Determinism D = Determinism::NotGuaranteed>
cudaError_t reverse_exclusive_scan(const In* in, Out* out, std::int64_t n, const Init& initial, Op op,
                                   Workspace& workspace, cudaStream_t stream = 0, const Options<Out, D>& options = {}) {
  return detail::scan<AccChoice, true>(in, out, n, detail::ScanKind::Exclusive, initial, op, workspace, stream,
                                       options);
}

// Bytes of device memory that a Workspace(memory, bytes) needs for any scan of n elements with
// accumulator Acc, whichever configuration runs (at most a few percent of the data for 32-bit
// values at small tiles, far less at the large tiles the table picks for large n).
template <class Acc>
std::size_t workspace_bytes(std::int64_t n) {
  return n > 0 ? detail::TunedDispatch::max_workspace_bytes<Acc>(n) : 0;
}

}  // namespace scan_zoo
