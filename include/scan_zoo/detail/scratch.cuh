// scan_zoo/detail/scratch.cuh -- device memory for a kernel's state between blocks (tile
// descriptors), and the carver that lays it out: one layout function serves both the count
// (how many bytes) and the pointers (where each part lies), so that they cannot disagree.
#pragma once

#include <cstddef>

#include "core.cuh"

namespace scan_zoo::detail {

// A span of device memory (scan_zoo::Workspace hands its memory to the kernels as one).
struct Scratch {
  void* data = nullptr;
  std::size_t bytes = 0;
};

// Carves aligned sub-buffers out of one allocation. With no base it only counts.
class ScratchCarver {
 public:
  explicit ScratchCarver(void* base = nullptr) : base_(static_cast<char*>(base)) {}
  template <class U>
  U* take(std::size_t count) {
    offset_ = ceil_div<std::size_t>(offset_, kAlignment) * kAlignment;
    U* pointer = base_ ? reinterpret_cast<U*>(base_ + offset_) : nullptr;
    offset_ += count * sizeof(U);
    return pointer;
  }
  std::size_t bytes() const { return offset_; }

 private:
  static constexpr std::size_t kAlignment = 256;  // what cudaMalloc gives: every vector width works
  char* base_;
  std::size_t offset_ = 0;
};

// The bytes of a layout: layout(carver) run on a carver without memory, which only counts.
template <class Layout>
std::size_t bytes_of_layout(Layout&& layout) {
  ScratchCarver counter;
  layout(counter);
  return counter.bytes();
}

}  // namespace scan_zoo::detail
