// segmented_scan_offsets -- the segmented scan with its segments given as offsets, the way CSR
// row pointers and ragged batches give them: the library's inclusive_segmented_scan /
// exclusive_segmented_scan (include/scan_zoo/segmented.cuh) over begin = offsets, end =
// offsets + 1. The same segments as segmented_scan's labels (one draw of the same generator), so
// the two rows compare how the segments are given.
//
// Idea: the row kernel of the axis scans (include/scan_zoo/detail/rows_kernel.cuh): the array as
// one line under the lifted operator that restarts at every segment start (Schwartz 1980;
// Blelloch 1990, "Prefix sums and their applications"), tiles cut from the whole array, a tile
// with a start closed (INCLUSIVE at once, so no look-back walks past it), a tile without one
// plain (the tuned kernel's steps). The starts come from the offsets
// (detail/segment_starts.cuh): each tile's block finds its first segment by a 256-way search of
// the offsets, and marks the tile's starts in shared memory. No label is read.
//
// Work: O(N + segments); depth: O(log tile) + the search (log256 segments rounds) + the look-back.
// Barriers: one a search round and one a marking round, then 4 per tile. Launches: 1. Global
// traffic: 2 accesses per element plus 8 bytes per segment (a tile reads the offsets of its own
// segments, and the search a few more): the bound is a copy of the values' bytes when segments
// are long, plus 1 byte per element at the default mean length of 1024 elements for int32
// (0.8%). GB/s counts values in and out and the offsets.
//
// Forward progress: as the tuned scan (blocks in blockIdx.x order).
//
// Constraints: every type, sum/max/min, inclusive and exclusive (the identity at every segment
// start), 64-bit offsets; not in place here (the library allows it). Input generated: values in
// [-8, 8], segment lengths geometric with mean --segment-length (default 1024).
//
// In the charts: none yet; its first sweep (scripts/device_session.sh segments) puts it beside
// segmented_scan and cub_segmented_scan over the same segments (bench/NOTES.md, "Scans along an
// axis").
//
// Run: make bin/segmented_scan_offsets && ./bin/segmented_scan_offsets 2^28 --segment-length 1000
#include <scan_zoo/segmented.cuh>

#include "../harness/harness.cuh"
#include "applications.cuh"

namespace zoo {

// The segmented scan's problem with the segments also as offsets (the labels stay for the
// check): offsets[s] = the first element of segment s, offsets[segments] = n.
template <class T, class Op>
class OffsetsSegmentedScanProblem : public SegmentedScanProblem<T, Op> {
  using Base = SegmentedScanProblem<T, Op>;

 public:
  static constexpr const char* kName = "segmented scan by offsets";
  static constexpr const char* kInputDescription =
      "values in [-8, 8] and random segments as int64 offsets, see --segment-length";
  using Base::Base;

  // Room for the most offsets n elements can have (a segment each, and the end).
  std::size_t device_bytes() const { return add_bytes(Base::device_bytes(), offset_bytes(this->n_ + 1)); }
  std::size_t host_bytes() const { return add_bytes(Base::host_bytes(), offset_bytes(this->n_ + 1)); }
  std::string device_bytes_detail() const {
    return Base::device_bytes_detail() + ", offsets up to " + bytes_text(offset_bytes(this->n_ + 1));
  }
  bool allocate_device() { return Base::allocate_device() && offsets_.allocate(offset_bytes(this->n_ + 1)); }
  bool allocate_host() {
    host_offsets_ = try_host_array<std::int64_t>(this->n_ + 1);
    return Base::allocate_host() && host_offsets_;
  }
  void prepare(std::uint64_t seed, cudaStream_t stream) {
    Base::prepare(seed, stream);
    segments_ = 0;
    for (std::int64_t i = 0; i < this->n_; ++i)
      if (starts_segment(this->host_labels_.get(), i)) host_offsets_[segments_++] = i;
    host_offsets_[segments_] = this->n_;
    ZOO_CUDA(cudaMemcpyAsync(offsets_.pointer, host_offsets_.get(), offset_bytes(segments_ + 1),
                             cudaMemcpyHostToDevice, stream));
  }
  template <class Variant>
  void run(Workspace, cudaStream_t stream) const {
    Variant::template run<T, Op>(this->values_.template as<const T>(), this->out_.template as<T>(), this->n_,
                                 offsets_.as<const std::int64_t>(), segments_, this->kind_, stream);
  }
  // Values read and written, and the offsets read, once each.
  double bytes_moved() const {
    return 2.0 * double(checked_bytes(this->n_, sizeof(T))) + double(offset_bytes(segments_ + 1));
  }

 private:
  static std::size_t offset_bytes(std::int64_t count) { return checked_bytes(count, sizeof(std::int64_t)); }

  DeviceBuffer offsets_;
  std::unique_ptr<std::int64_t[]> host_offsets_;
  std::int64_t segments_ = 0;
};

}  // namespace zoo

namespace {

struct SegmentedScanOffsets : zoo::VariantDefaults {
  static constexpr bool kHandsOverAcrossTiles = true;
  template <class T, class Op>
  using Problem = zoo::OffsetsSegmentedScanProblem<T, Op>;
  using Types = zoo::AllTypes;
  // The tile of 32-bit accumulators; 64-bit ones take half as many items (RowsConfig).
  static constexpr std::int64_t kTileItems = scan_zoo::detail::RowsScan<std::int32_t>::Config::kTileItems;

  // The library keeps its own workspace, as single_pass_scan_tuned's does.
  template <class T, class Op>
  static void run(const T* in, T* out, std::int64_t n, const std::int64_t* offsets, std::int64_t segments,
                  zoo::ScanKind kind, cudaStream_t stream) {
    static scan_zoo::Workspace workspace;
    ZOO_CUDA(kind == zoo::ScanKind::Inclusive
                 ? scan_zoo::inclusive_segmented_scan(in, out, n, offsets, offsets + 1, segments, Op{}, workspace,
                                                      stream)
                 : scan_zoo::exclusive_segmented_scan(in, out, n, offsets, offsets + 1, segments,
                                                      Op::template identity<T>(), Op{}, workspace, stream));
  }
};

}  // namespace

ZOO_MAIN(SegmentedScanOffsets)
