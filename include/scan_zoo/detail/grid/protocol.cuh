// scan_zoo/detail/grid/protocol.cuh -- the grid layer's words: what every tile descriptor
// promises. A single-pass scan's blocks talk across the grid through one descriptor per tile:
// this file holds what every descriptor shares (the statuses, the epoch tag of a status word,
// the memory orders, the instruction that publishes a word); descriptors.cuh the layouts;
// epochs.cuh a run's descriptors; lookback.cuh how a tile reads its predecessors'.
//
// A tile publishes (status, value): AGGREGATE with its own total as soon as it has scanned its
// tile, INCLUSIVE with the total of everything up to and including it once it knows its
// prefix. INVALID (all-zero memory) means nothing published yet. Two ways keep a descriptor
// left by an earlier run from being read as this run's:
//   - zero the state inside every run (one cudaMemsetAsync, part of the timed scan): the zoo's
//     teaching variants (src/single_pass/single_pass.cuh), with epoch 0 throughout;
//   - epochs (the tuned scan, tuned_kernel.cuh): every status word carries the run's 30-bit epoch
//     above its 2 status bits, and a word from another epoch reads as INVALID. The state is
//     zeroed once, when allocated; each run takes a new epoch, so no run needs a reset launch.
//     A stale word could only match again after 2^30 more runs on the same workspace.
//
// Every access is a cuda::atomic_ref operation at device scope. How the accesses are ordered is
// a DescriptorSync, fixed by each layout (its DescriptorOrders base):
//   Relaxed                relaxed stores and polls. Enough when the value travels in the same
//                          word as its flag and the reader needs nothing else the writer wrote:
//                          coherence of that one word means every read sees a whole store, and
//                          a tile's output depends only on its input and the words it read. The
//                          packed descriptors' (CUB's too). Acquire polls were slower at 2^28
//                          on the H100 (the warp-window look-back; bench/NOTES.md, "The
//                          single-pass family").
//   AcquireRelease         release stores, acquire loads on every poll. Needed when the value
//                          lives in another word: TwoFieldTileState's.
// (Relaxed polls followed by one acquire fence were measured too, slower than acquire polls:
// bench/NOTES.md, "The single-pass family".)
//
// How a descriptor word is written is the Publish parameter, and it matters more than any other
// choice of the look-back:
//   Exchange               an atomic exchange (atom.exch): a read-modify-write, performed at L2,
//                          whose old value nobody reads. The default of every descriptor.
//   ExchangeFence          the same, then a device-scope fence (what GPUPrefixSums does after
//                          publishing its aggregate).
//   Store                  a plain atomic store (st.relaxed.gpu / st.release.gpu): what the zoo
//                          did until the measurements of bench/NOTES.md ("Publishing by exchange").
// The memory order is the same for all three (DescriptorSync above): an exchange is an atomic
// write of the same one word, so every argument about what a reader may see is unchanged. What
// differs is how soon the word reaches L2, where the pollers read it, and the measurements say
// the exchange gets there sooner: the same one-word change in every look-back of the zoo, each
// measured before and after on the H100 and the H200, is in bench/NOTES.md ("Publishing by
// exchange"). Our reading: a store is posted, sent into the memory system behind whatever the
// SM has outstanding and then forgotten; an atomic is an L2 operation with a reply, which the SM
// issues at once and tracks until L2 has performed it. The fence only adds a wait for the
// publishing warp.
#pragma once

#include <cuda/atomic>

#include <cstdint>

namespace scan_zoo::detail {

enum TileStatus : std::uint32_t { kTileInvalid = 0, kTileAggregate = 1, kTileInclusive = 2 };

template <class T>
struct TileView {
  std::uint32_t status;
  T value;
};

template <class U>
using DeviceAtomic = cuda::atomic_ref<U, cuda::thread_scope_device>;

// A status word: the run's epoch in the high 30 bits, the status in the low 2.
constexpr std::uint32_t kEpochMask = 0x3FFFFFFFu;
__host__ __device__ constexpr std::uint32_t tagged_status(std::uint32_t status, std::uint32_t epoch) {
  return epoch << 2 | status;
}
__host__ __device__ constexpr std::uint32_t status_in_epoch(std::uint32_t word, std::uint32_t epoch) {
  return word >> 2 == epoch ? (word & 3u) : std::uint32_t(kTileInvalid);
}

// A 64-bit descriptor word: a tagged status (tagged_status) in the high half, 32 bits of a value
// in the low half. Put together by one move of two 32-bit registers, never as `tag << 32 | piece`:
// a piece may hold padding (the four bytes after ValueIndex<double, int32>'s index, the two after
// an int16 value beside an int32 index, any hole of a caller's struct), padding bytes are
// indeterminate, and the compilers treat them as undefined, and so every result of arithmetic
// they enter, the OR with the tag included. On the H200 ptxas gave such a word a garbage high
// half: a tag that no reader ever believed, and a look-back that waited for it forever
// (bench/NOTES.md, "torch's scan ops: the padding of a pair"). The move makes the high half the
// tag's register itself; the low half's bytes, whatever they are, land in padding again when read.
__device__ __forceinline__ unsigned long long tagged_word(std::uint32_t tag, std::uint32_t piece) {
  unsigned long long word;
  asm("mov.b64 %0, {%1, %2};" : "=l"(word) : "r"(piece), "r"(tag));
  return word;
}

enum class DescriptorSync { AcquireRelease, Relaxed };

template <DescriptorSync Sync>
struct DescriptorOrders {
  static constexpr cuda::memory_order kStore =
      Sync == DescriptorSync::Relaxed ? cuda::memory_order_relaxed : cuda::memory_order_release;
  static constexpr cuda::memory_order kPoll =
      Sync == DescriptorSync::AcquireRelease ? cuda::memory_order_acquire : cuda::memory_order_relaxed;
};

enum class Publish { Store, Exchange, ExchangeFence };

// Writes a descriptor word the Publish way, with memory order `order`.
template <Publish How, class U>
__device__ __forceinline__ void publish_word(U& word, U value, cuda::memory_order order) {
  DeviceAtomic<U> atomic_word(word);
  if constexpr (How == Publish::Store) {
    atomic_word.store(value, order);
  } else {
    (void)atomic_word.exchange(value, order);
    if constexpr (How == Publish::ExchangeFence)
      cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
  }
}

}  // namespace scan_zoo::detail
