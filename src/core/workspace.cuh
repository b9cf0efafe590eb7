// workspace.cuh -- the scratch memory a variant's kernels keep their state in (tile descriptors,
// partial totals), and the carver that lays it out: one layout function serves both the count
// (workspace_bytes) and the pointers (run), so that they cannot disagree.
#pragma once

#include <cstddef>

#include "ops.cuh"

namespace zoo {

// The scratch memory the harness allocated for a variant (workspace_bytes(n) bytes, outside the
// timed region).
struct Workspace {
  void* data = nullptr;
  std::size_t bytes = 0;
};

// Carves aligned sub-buffers out of one workspace allocation. With no base it only counts, so a
// variant's workspace_bytes() and run() share one layout function and cannot disagree.
class WorkspaceCarver {
 public:
  explicit WorkspaceCarver(void* base = nullptr) : base_(static_cast<char*>(base)) {}
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

// The bytes of a layout: layout(carver) run on a carver without memory, which only counts, so
// that workspace_bytes() and run() share one layout function and cannot disagree.
template <class Layout>
std::size_t bytes_of_layout(Layout&& layout) {
  WorkspaceCarver counter;
  layout(counter);
  return counter.bytes();
}

}  // namespace zoo
