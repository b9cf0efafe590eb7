// single_pass_scan_decoupled_lookbacks_packed30 -- the warp-window look-back over a one-field
// 32-bit descriptor: a 2-bit status and a 30-bit value in one word.
//
// Idea (the compact descriptor of J. V. Contini, "ScanBox: a tunable and portable GPU prefix scan
// implementation in Vulkan and WebGPU", UC Santa Cruz, 2025): a 64-bit descriptor
// doubles the look-back's memory traffic for 32-bit data; packing the status into the top 2 bits
// of a 32-bit word leaves 30 bits for the value, read and written in one relaxed atomic access.
// What it cannot hold: any float (all 32 bits are needed), and any integer tile total or prefix
// outside [-2^29, 2^29). Floats are refused up front (exit code 3, WAIVED); for int32 the
// kernel flags a value that does not fit (publishing it clamped so no tile waits forever) and
// the harness refuses that run's result with exit code 3 rather than report a wrong answer.
// Small-integer data (the harness's default) always fits.
//
// Work, depth, look-back and back-off: as single_pass_scan_decoupled_lookbacks_warp_window.
// Launches: 2. Global traffic: 2 accesses per element plus 4 bytes of descriptor per tile, the
// words dense (32 to a 128-byte line): bound is memcpy.
//
// Forward progress: tiles are numbered by ticket (single_pass.cuh).
//
// Constraints: any N; int32 only, with every tile total and prefix in [-2^29, 2^29); every
// operator and mode. Tile = 128 threads x 24 items (zoo::LookbackTile).
// Pieces: zoo::SinglePassVariant, zoo::WarpLookback, zoo::CoarsenedTile; the descriptor
// (PackedTileState30) is below.
//
// In the charts: ahead of the 64-bit packed variant at large N in the committed sweeps, though
// the bytes saved are nothing (0.1% of the traffic): what counts is how the words are published.
// Its dense words put 8 neighbours' publishes and polls on one sector; while descriptors were
// published by store, that made it one of the slowest look-backs; published by atomic exchange,
// as now, it overtook the warp window (bench/NOTES.md, "Publishing by exchange": the before and
// after on both GPUs).
//
// Run: make bin/single_pass_scan_decoupled_lookbacks_packed30 && ./bin/single_pass_scan_decoupled_lookbacks_packed30 2^28
#include <cstdint>
#include <type_traits>

#include "../harness/harness.cuh"
#include "single_pass.cuh"

namespace zoo {

// The descriptor: the status in the top 2 bits, the value's low 30 bits below (a reader
// sign-extends them). A value that does not fit raises the overflow flag, which the harness reads
// after the run (refusal_after_run, through SinglePassVariant), and is published clamped.
template <class T>
struct PackedTileState30 : DescriptorOrders<DescriptorSync::Relaxed> {
  static constexpr const char* kUnsupported =
      std::is_same_v<T, std::int32_t> ? nullptr
                                      : "the 30-bit descriptor holds integers only (a float needs all 32 bits)";
  static constexpr std::int32_t kMin = -(1 << 29), kMax = (1 << 29) - 1;
  std::uint32_t* words = nullptr;
  int* overflow = nullptr;  // set when a value did not fit: the run's result is refused

  void layout(ScratchCarver& carver, std::int64_t tiles) {
    overflow = carver.take<int>(1);
    words = carver.take<std::uint32_t>(static_cast<std::size_t>(tiles));
  }
  // After a finished run (synchronous, outside timing): did a value not fit?
  const char* refusal_after_run(cudaStream_t stream) const {
    int overflowed = 0;
    ZOO_CUDA(cudaMemcpyAsync(&overflowed, overflow, sizeof overflowed, cudaMemcpyDeviceToHost, stream));
    ZOO_CUDA(cudaStreamSynchronize(stream));
    return overflowed ? "a tile value fell outside the 30-bit descriptor's range [-2^29, 2^29)" : nullptr;
  }
  __device__ void publish(std::int64_t tile, std::uint32_t status, T value) const {
    std::int32_t v = static_cast<std::int32_t>(value);
    if (v < kMin || v > kMax) {
      DeviceAtomic<int>(*overflow).store(1, cuda::memory_order_relaxed);
      v = v < kMin ? kMin : kMax;
    }
    const std::uint32_t word = (status << 30) | (static_cast<std::uint32_t>(v) & 0x3FFFFFFFu);
    publish_word<Publish::Exchange>(words[tile], word, kStore);
  }
  __device__ TileView<T> read(std::int64_t tile) const {
    const std::uint32_t word = DeviceAtomic<std::uint32_t>(words[tile]).load(kPoll);
    TileView<T> view;
    view.status = word >> 30;
    view.value = static_cast<T>(static_cast<std::int32_t>(word << 2) >> 2);  // sign-extend 30 bits
    return view;
  }
};

}  // namespace zoo

ZOO_MAIN(zoo::SinglePassVariant<zoo::LookbackTile, zoo::PackedTileState30, zoo::WarpLookback, zoo::TileOrder::Ticket>)
