// scan_zoo/detail/grid/descriptors.cuh -- the layouts of a tile descriptor: where its status
// and value live in memory, and how they are published and read (what every layout promises:
// protocol.cuh).
//
// Three layouts, one interface (publish / read, device side; layout, host; `epoch`). The zoo's
// teaching variants add a fourth, a 30-bit word with no room for an epoch
// (src/grid/descriptor30.cuh).
//   PackedTileState64<T>  status (and epoch) in the high 32 bits, the value's 32 bits in the low half, one
//                         64-bit atomic word: a reader always sees a matching pair. 32-bit T.
//                         Stride: 64-bit words from one descriptor to the next. The look-back
//                         variants keep 4 (one descriptor per 32-byte sector: a poll of 32
//                         neighbours touches 8 lines instead of 2, and a tile's publish shares
//                         its sector with no other tile's), which won while descriptors were
//                         published by store (dense words were slower then).
//                         Published by exchange, dense words (1) are the faster layout on the
//                         H100 and the H200, and the tuned scan uses them (bench/NOTES.md,
//                         "Publishing by exchange").
//   PackedTileStatePieces<T> a value of 8 to 32 bytes in 32-bit pieces, each in a 64-bit word
//                         beside the same tagged status; a reader believes the pieces only when
//                         all their tags agree. Relaxed, like the 64-bit word. int64, double, a
//                         row of a few floats.
//   TwoFieldTileState<T>  a 32-bit status (and epoch) word and separate value slots, ordered
//                         by release / acquire: the value is stored first, then the status
//                         with release; a reader loads the status with acquire, then the value. AGGREGATE and
//                         INCLUSIVE have separate slots: with one slot, a reader that saw
//                         AGGREGATE could read the INCLUSIVE value written just after it and count
//                         the predecessors twice. Any T.
#pragma once

#include <cuda/atomic>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../scratch.cuh"
#include "protocol.cuh"

namespace scan_zoo::detail {

template <class T, int Stride = 4, Publish How = Publish::Exchange>
struct PackedTileState64 : DescriptorOrders<DescriptorSync::Relaxed> {
  static constexpr const char* kUnsupported =
      sizeof(T) == 4 ? nullptr : "the packed 64-bit descriptor holds 32-bit values only";
  unsigned long long* words = nullptr;
  std::uint32_t epoch = 0;

  void layout(ScratchCarver& carver, std::int64_t tiles) {
    words = carver.take<unsigned long long>(static_cast<std::size_t>(tiles) * Stride);
  }
  __device__ void publish(std::int64_t tile, std::uint32_t status, T value) const {
    std::uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    publish_word<How>(words[tile * Stride], tagged_word(tagged_status(status, epoch), bits), kStore);
  }
  __device__ TileView<T> read(std::int64_t tile) const {
    const unsigned long long word = DeviceAtomic<unsigned long long>(words[tile * Stride]).load(kPoll);
    TileView<T> view;
    view.status = status_in_epoch(static_cast<std::uint32_t>(word >> 32), epoch);
    const std::uint32_t bits = static_cast<std::uint32_t>(word);
    memcpy(&view.value, &bits, sizeof bits);
    return view;
  }
};

// A value of 4k bytes (k from 2 to 8: int64, double, a row of 3 to 8 floats) in k such words,
// each a 32-bit piece beside the same tagged status: a reader loads them all and believes them
// only when every tag agrees (same status, same epoch); tags that disagree are a publish caught
// half done (an AGGREGATE piece beside an INCLUSIVE one, or a piece not yet out) and read as
// INVALID, so the look-back polls again. Every access is a relaxed atomic on one 64-bit word, as
// in PackedTileState64, and the value still travels with its flag: no acquire, no second round
// trip for the value (each status is published once per tile and run, with one value, so pieces
// with one tag are pieces of one publish). The words are read two at a time (16-byte loads, so a
// descriptor takes an even number of words), and a descriptor of up to 4 words lies in one
// 32-byte sector. What CUB does for 8-byte values with one 16-byte word, without assuming that a
// 16-byte access is indivisible, which the PTX memory model does not promise.
template <class T, int Stride = 1, Publish How = Publish::Exchange>
struct PackedTileStatePieces : DescriptorOrders<DescriptorSync::Relaxed> {
  static constexpr int kPieces = int(sizeof(T) / 4);
  static constexpr const char* kUnsupported =
      sizeof(T) % 4 == 0 && kPieces >= 2 && kPieces <= 8
          ? nullptr
          : "the pieced descriptor holds values of 8 to 32 bytes, a multiple of 4";
  // Words from one descriptor to the next: dense (rounded up to the 16-byte loads), or one
  // descriptor per 32-byte sector at least (as PackedTileState64's Stride 4).
  static constexpr int kWordsPerTile = Stride == 1 ? (kPieces + 1) / 2 * 2 : (kPieces + 3) / 4 * 4;
  unsigned long long* words = nullptr;
  std::uint32_t epoch = 0;

  void layout(ScratchCarver& carver, std::int64_t tiles) {
    words = carver.take<unsigned long long>(static_cast<std::size_t>(tiles) * kWordsPerTile);
  }
  __device__ void publish(std::int64_t tile, std::uint32_t status, T value) const {
    std::uint32_t pieces[kPieces];
    memcpy(pieces, &value, sizeof pieces);
    const std::uint32_t tag = tagged_status(status, epoch);
    unsigned long long* descriptor = words + kWordsPerTile * tile;
#pragma unroll
    for (int p = 0; p < kPieces; ++p) publish_word<How>(descriptor[p], tagged_word(tag, pieces[p]), kStore);
  }
  __device__ TileView<T> read(std::int64_t tile) const {
    // Two words a 16-byte load, each of its two 64-bit elements a relaxed device-scope read
    // (cuda::atomic_ref has no vector load, hence the PTX).
    const unsigned long long* descriptor = words + kWordsPerTile * tile;
    unsigned long long loaded[(kPieces + 1) / 2 * 2];
#pragma unroll
    for (int p = 0; p < kPieces; p += 2)
      asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                   : "=l"(loaded[p]), "=l"(loaded[p + 1]) : "l"(descriptor + p) : "memory");
    const std::uint32_t tag = static_cast<std::uint32_t>(loaded[0] >> 32);
    bool agree = true;
    std::uint32_t pieces[kPieces];
#pragma unroll
    for (int p = 0; p < kPieces; ++p) {
      agree = agree && static_cast<std::uint32_t>(loaded[p] >> 32) == tag;
      pieces[p] = static_cast<std::uint32_t>(loaded[p]);
    }
    TileView<T> view;
    view.status = agree ? status_in_epoch(tag, epoch) : std::uint32_t(kTileInvalid);
    memcpy(&view.value, pieces, sizeof pieces);
    return view;
  }
};

// Whether a T's descriptor in the tuned and row kernels is tagged 64-bit words only
// (PackedTileState64 for 4 bytes, PackedTileStatePieces for 8 to 32): then every word a later scan
// reads is a status of some epoch, whatever T, tile count or configuration wrote it (scan.cuh's
// descriptor_layout).
template <class T>
inline constexpr bool kTaggedWords = sizeof(T) == 4 || PackedTileStatePieces<T>::kUnsupported == nullptr;

// A value slot of a descriptor whose status lives in another word (TwoFieldTileState below; the
// column scan's descriptors, columns_kernel.cuh, carry the status in every word instead, as
// PackedTileStatePieces does): written once per run, before the release of its status, and
// read only after an acquire of that status, so the accesses are ordered (happens-before)
// whatever T is. Numbers of 4 and 8 bytes still go through relaxed atomics, as every
// inter-block access of the zoo does where it can; any other trivially copyable T (a 2x2
// matrix, a pair) is copied plainly.
template <class T>
inline constexpr bool kAtomicSlot = std::is_arithmetic<T>::value && (sizeof(T) == 4 || sizeof(T) == 8);
template <class T>
__device__ __forceinline__ void store_value(T& slot, const T& value) {
  if constexpr (kAtomicSlot<T>) DeviceAtomic<T>(slot).store(value, cuda::memory_order_relaxed);
  else slot = value;
}
template <class T>
__device__ __forceinline__ T load_value(T& slot) {
  if constexpr (kAtomicSlot<T>) return DeviceAtomic<T>(slot).load(cuda::memory_order_relaxed);
  else return slot;
}

// Always acquire/release: the value lives in another word, which only an acquire load of the
// status (before the value is read) makes visible.
// The status is published by exchange with release order: the release orders the value store
// before it, as a release store would, and the exchange gets the status to L2 sooner (above).
template <class T, Publish How = Publish::Exchange>
struct TwoFieldTileState : DescriptorOrders<DescriptorSync::AcquireRelease> {
  static constexpr const char* kUnsupported = nullptr;
  std::uint32_t* status = nullptr;
  T* aggregate = nullptr;
  T* inclusive = nullptr;
  std::uint32_t epoch = 0;

  void layout(ScratchCarver& carver, std::int64_t tiles) {
    status = carver.take<std::uint32_t>(static_cast<std::size_t>(tiles));
    aggregate = carver.take<T>(static_cast<std::size_t>(tiles));
    inclusive = carver.take<T>(static_cast<std::size_t>(tiles));
  }
  __device__ void publish(std::int64_t tile, std::uint32_t new_status, T value) const {
    T* slot = new_status == kTileInclusive ? &inclusive[tile] : &aggregate[tile];
    store_value(*slot, value);
    publish_word<How>(status[tile], tagged_status(new_status, epoch), kStore);
  }
  __device__ TileView<T> read(std::int64_t tile) const {
    TileView<T> view;
    view.status = status_in_epoch(DeviceAtomic<std::uint32_t>(status[tile]).load(kPoll), epoch);
    T* slot = view.status == kTileInclusive ? &inclusive[tile] : &aggregate[tile];
    view.value = view.status == kTileInvalid ? T{} : load_value(*slot);
    return view;
  }
};

}  // namespace scan_zoo::detail
