// application_reference.hpp -- inputs and CPU checks of the scan applications: the
// segmented scan, stream compaction and radix sort. Host code only, unit-tested without a GPU
// (tests/cuda/harness_selftest.cu), like reference.hpp whose generator and three-pass scan it
// reuses.
//
// Segments: a segment starts where the 8-bit label changes (labels[i] != labels[i-1]; element 0
// always starts one). The labels are the segment number mod 256, so neighbouring segments
// always differ: the same bytes are the head flags of our segmented scan and the keys of CUB's
// scan-by-key. Segment lengths are geometric with a given mean (a head at each element with
// probability 1/mean), drawn from their own stream of the combination's seed.
// Keys for sorting: uniformly random bit patterns of the key's width (floats: every finite value,
// NaN and infinity mapped into the finite range), because a sort of [-8, 8] would exercise 5 bits.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "../harness/reference.hpp"
#include "radix_keys.cuh"

namespace zoo {

constexpr std::int64_t kDefaultSegmentLength = 1024;

// labels[0..n): segment number mod 256, a new segment at each i > 0 with probability 1/mean.
inline void generate_segment_labels(std::uint8_t* labels, std::int64_t n, std::uint64_t seed, std::int64_t mean) {
  const std::uint64_t stream = mix64(seed ^ 0x5E65E65E65E65E6ull);  // not the values' stream
  const auto draws_segment_start = [&](std::int64_t i) {
    return i > 0 && mix64(stream ^ mix64(static_cast<std::uint64_t>(i))) % static_cast<std::uint64_t>(mean) == 0;
  };
  const int chunks = default_chunks(n);
  std::vector<std::uint64_t> heads(chunks, 0);
  parallel_chunks(n, chunks, [&](std::int64_t begin, std::int64_t end, int c) {
    for (std::int64_t i = begin; i < end; ++i) heads[c] += draws_segment_start(i);
  });
  std::uint64_t before = 0;
  for (int c = 0; c < chunks; ++c) {  // each chunk's count -> the heads before it
    const std::uint64_t count = heads[c];
    heads[c] = before;
    before += count;
  }
  parallel_chunks(n, chunks, [&](std::int64_t begin, std::int64_t end, int c) {
    std::uint64_t segment = heads[c];
    for (std::int64_t i = begin; i < end; ++i) {
      segment += draws_segment_start(i);
      labels[i] = static_cast<std::uint8_t>(segment);
    }
  });
}

inline bool starts_segment(const std::uint8_t* labels, std::int64_t i) { return i == 0 || labels[i] != labels[i - 1]; }

// Compares got[0..n) with the segmented scan of values under Op: the scan restarts at every
// segment start (inclusive: the element itself; exclusive: the identity).
template <class T, class Op>
VerifyResult verify_segmented_scan(const T* values, const std::uint8_t* labels, const T* got, std::int64_t n,
                                   ScanKind kind, int chunks = 0) {
  using Wide = typename TypeInfo<T>::Wide;
  // The segmented operator on (starts a segment, value): associative, not commutative.
  struct Flagged {
    bool head;
    Wide value;
  };
  const Op op;
  const Wide identity = static_cast<Wide>(Op::template identity<T>());
  return chunked_scan_check(
      n, chunks, Flagged{false, identity},
      [&](std::int64_t i) { return Flagged{starts_segment(labels, i), static_cast<Wide>(values[i])}; },
      [op](Flagged a, Flagged b) { return Flagged{a.head || b.head, b.head ? b.value : op(a.value, b.value)}; },
      [&](VerifyResult& result, std::int64_t i, Flagged before, Flagged after) {
        const T want = narrow<T>(kind == ScanKind::Inclusive ? after.value
                                 : starts_segment(labels, i) ? identity
                                                             : before.value);
        if (!same_value(want, got[i])) result.record(i, want, got[i]);
      });
}

// The predicate of the stream compaction rows (ours, CUB's and the CPU check): keep x > 0.
struct KeepPositive {
  template <class T>
  __host__ __device__ __forceinline__ bool operator()(T x) const { return x > T(0); }
};

// Checks a stream compaction: count == the number of elements > 0, got[0..count) == those
// elements in order, got[count..n) untouched (still the poison pattern: nothing written past the
// end). A wrong count is reported at index -1 with the two counts.
template <class T>
VerifyResult verify_compaction(const T* in, std::int64_t n, const T* got, std::int64_t count, int poison_byte) {
  const int chunks = default_chunks(n);
  std::vector<std::int64_t> offset(chunks + 1, 0);
  parallel_chunks(n, chunks, [&](std::int64_t begin, std::int64_t end, int c) {
    for (std::int64_t i = begin; i < end; ++i) offset[c + 1] += KeepPositive{}(in[i]);
  });
  for (int c = 0; c < chunks; ++c) offset[c + 1] += offset[c];
  VerifyResult result;
  if (count != offset[chunks]) {
    result.record(-1, offset[chunks], count);
    result.note = "the count of kept elements";
    return result;
  }
  std::vector<VerifyResult> results(chunks);
  parallel_chunks(n, chunks, [&](std::int64_t begin, std::int64_t end, int c) {
    std::int64_t j = offset[c];
    for (std::int64_t i = begin; i < end; ++i)
      if (KeepPositive{}(in[i])) {
        if (!same_value(in[i], got[j])) results[c].record(j, in[i], got[j]);
        ++j;
      }
  });
  result = merge_chunk_results(results);
  T poison;
  std::memset(&poison, poison_byte, sizeof poison);
  for (std::int64_t j = count; j < n; ++j)
    if (std::memcmp(&got[j], &poison, sizeof(T)) != 0) {
      if (result.ok()) result.note = "an element past the count (written, should be untouched)";
      result.record(j, poison, got[j]);
    }
  return result;
}

// Keys over the whole range of their width (floats: finite ones; an all-ones exponent loses its
// top bit).
template <class T>
void generate_keys(T* keys, std::int64_t n, std::uint64_t seed) {
  using Bits = typename RadixKey<T>::Bits;
  constexpr int kMantissaBits = sizeof(T) == 4 ? 23 : 52;
  constexpr Bits kExponent = (RadixKey<T>::kSign - 1) >> kMantissaBits;  // the all-ones exponent
  parallel_chunks(n, default_chunks(n), [&](std::int64_t begin, std::int64_t end, int) {
    for (std::int64_t i = begin; i < end; ++i) {
      Bits bits = static_cast<Bits>(mix64(seed ^ mix64(static_cast<std::uint64_t>(i))) >> (64 - 8 * sizeof(T)));
      if (std::is_floating_point_v<T> && ((bits >> kMantissaBits) & kExponent) == kExponent)
        bits &= ~(RadixKey<T>::kSign >> 1);
      std::memcpy(&keys[i], &bits, sizeof bits);
    }
  });
}

// The CPU reference sort: an LSD radix sort over RadixKey's ordered words, chunk-parallel (each
// chunk counts its digits, chunk c's bucket d starts after every earlier bucket and after
// bucket d of chunks < c, so the scatter is stable), 4 passes of 8 bits (8 for 64-bit keys).
// O(n): std::sort of 2^30 keys would take minutes on one core.
template <class T>
void reference_sort(const T* in, T* out, std::int64_t n, const std::uint32_t* values_in = nullptr,
                    std::uint32_t* values_out = nullptr) {
  // With values (key-value pairs): each value moves with its key, pass by pass.
  const bool pairs = values_in != nullptr;
  std::vector<T> buffer(static_cast<std::size_t>(n));
  std::vector<std::uint32_t> value_buffer(pairs ? static_cast<std::size_t>(n) : 0);
  const int chunks = default_chunks(n);
  std::vector<std::array<std::int64_t, kRadixBuckets>> start(chunks);
  const T* from = in;
  const std::uint32_t* values_from = values_in;
  static_assert(RadixKey<T>::kPasses % 2 == 0, "the passes ping-pong: an even number lands in out");
  for (int pass = 0; pass < RadixKey<T>::kPasses; ++pass) {
    T* to = pass % 2 == 0 ? buffer.data() : out;
    std::uint32_t* values_to = pass % 2 == 0 ? value_buffer.data() : values_out;
    parallel_chunks(n, chunks, [&](std::int64_t begin, std::int64_t end, int c) {
      start[c].fill(0);
      for (std::int64_t i = begin; i < end; ++i) ++start[c][radix_digit_of(from[i], pass)];
    });
    std::int64_t running = 0;  // counts -> starts, bucket by bucket, chunk by chunk
    for (int d = 0; d < kRadixBuckets; ++d)
      for (int c = 0; c < chunks; ++c) {
        const std::int64_t count = start[c][d];
        start[c][d] = running;
        running += count;
      }
    parallel_chunks(n, chunks, [&](std::int64_t begin, std::int64_t end, int c) {
      for (std::int64_t i = begin; i < end; ++i) {
        const std::int64_t at = start[c][radix_digit_of(from[i], pass)]++;
        to[at] = from[i];
        if (pairs) values_to[at] = values_from[i];
      }
    });
    from = to;
    values_from = values_to;
  }
}

// Checks got[0..n) against the reference sort of in, bit for bit: the sort must be stable, so
// equal keys (-0.0 and +0.0 included) keep their input order. With values (key-value pairs),
// got_values[0..n) too: each key's own value, which a stable sort of distinct values pins down.
template <class T>
VerifyResult verify_sort(const T* in, const T* got, std::int64_t n, const std::uint32_t* values_in = nullptr,
                         const std::uint32_t* got_values = nullptr) {
  std::vector<T> expected(static_cast<std::size_t>(n));
  std::vector<std::uint32_t> expected_values(values_in ? static_cast<std::size_t>(n) : 0);
  reference_sort(in, expected.data(), n, values_in, values_in ? expected_values.data() : nullptr);
  const int chunks = default_chunks(n);
  std::vector<VerifyResult> results(chunks), value_results(chunks);
  parallel_chunks(n, chunks, [&](std::int64_t begin, std::int64_t end, int c) {
    for (std::int64_t i = begin; i < end; ++i) {
      if (std::memcmp(&expected[i], &got[i], sizeof(T)) != 0) results[c].record(i, expected[i], got[i]);
      if (values_in && expected_values[i] != got_values[i])
        value_results[c].record(i, expected_values[i], got_values[i]);
    }
  });
  VerifyResult keys = merge_chunk_results(results);
  if (!keys.ok() || !values_in) return keys;
  VerifyResult values = merge_chunk_results(value_results);
  if (!values.ok()) values.note = "a value: the keys are right, the value beside this one is not its own";
  return values;
}

}  // namespace zoo
