// reference.hpp -- seeded input generation, the CPU reference scan and the verification
// (docs/protocol.md, "How it measures"). Host code only, so it is unit-tested without a GPU.
//
// Input: small integers in [-8, 8] drawn from a counter-based generator, so every prefix of
// int32, int64, float32 and float64 data stays far inside the exactly representable range (a
// random walk of 2^32 steps rarely leaves +-2^21, while float32 is exact to 2^24): the check can
// be exact for every type, every operator and every evaluation order a parallel scan may choose.
// Unsigned types get the same values modulo 2^32 or 2^64 (-1 is the largest), and their sums wrap
// exactly.
// Reference: a sequential scan in a wider type (int64 wrapped to 32 bits, or double), run over
// chunks in parallel (chunk totals first, then each chunk re-scanned from its carry-in). Every
// output element is compared; a failure reports the first bad index, the expected and the
// obtained value, and how many elements are wrong.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "../core/ops.cuh"

// The generator and the narrowing are also compiled for the GPU, where the multi-GPU scans
// generate their shards and check them (src/multi_gpu/sharded_problem.cuh): one definition of
// the data.
#ifdef __CUDACC__
#define ZOO_HOST_DEVICE __host__ __device__
#else
#define ZOO_HOST_DEVICE
#endif

namespace zoo {

// SplitMix64 finaliser: a good 64-bit mixer, so value i of stream s is mix64(s + i * golden).
ZOO_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Runs body(begin, end, chunk) over [0, n) split into contiguous chunks, one thread each.
template <class Body>
void parallel_chunks(std::int64_t n, int chunks, Body&& body) {
  std::vector<std::thread> threads;
  for (int c = 0; c < chunks; ++c) {
    std::int64_t begin = n * c / chunks, end = n * (c + 1) / chunks;
    if (c + 1 == chunks) body(begin, end, c);  // the calling thread takes the last chunk
    else threads.emplace_back([&body, begin, end, c] { body(begin, end, c); });
  }
  for (std::thread& thread : threads) thread.join();
}

inline int default_chunks(std::int64_t n) {
  const std::int64_t min_per_chunk = 1 << 20;  // smaller inputs are not worth a thread
  const int hardware = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::clamp<std::int64_t>(n / min_per_chunk, 1, hardware));
}

// Element i of the stream `seed`: an integer in [-8, 8], converted to T.
template <class T>
ZOO_HOST_DEVICE T input_value(std::uint64_t seed, std::int64_t i) {
  const std::uint64_t bits = mix64(seed ^ mix64(static_cast<std::uint64_t>(i)));
  return static_cast<T>(static_cast<int>(bits % 17) - 8);
}

// Fills data[0..n) with input_value(seed, 0 .. n - 1).
template <class T>
void generate_input(T* data, std::int64_t n, std::uint64_t seed) {
  parallel_chunks(n, default_chunks(n), [&](std::int64_t begin, std::int64_t end, int) {
    for (std::int64_t i = begin; i < end; ++i) data[i] = input_value<T>(seed, i);
  });
}

// Narrowing from the reference's wide type back to T: modular for integers, rounding for floats.
template <class T, class Wide>
ZOO_HOST_DEVICE T narrow(Wide value) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<std::uint64_t>(value)));
  else
    return static_cast<T>(value);
}

template <class T>
bool same_value(T expected, T got) {
  if constexpr (std::is_floating_point_v<T>)
    return expected == got || (std::isnan(expected) && std::isnan(got));
  else
    return expected == got;
}

template <class T>
std::string format_value(T value) {
  char text[64];
  if constexpr (std::is_same_v<T, float>) std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value));
  else if constexpr (std::is_floating_point_v<T>) std::snprintf(text, sizeof text, "%.17g", static_cast<double>(value));
  else if constexpr (std::is_unsigned_v<T>) std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(value));
  else std::snprintf(text, sizeof text, "%lld", static_cast<long long>(value));
  return text;
}

struct VerifyResult {
  std::int64_t mismatches = 0;
  std::int64_t first_bad = -1;
  std::string expected, got;  // at first_bad
  std::string note;           // what first_bad is, where it is not an output element's index
  bool ok() const { return mismatches == 0; }

  template <class T>
  void record(std::int64_t index, T expected_value, T got_value) {
    if (mismatches++ == 0) {
      first_bad = index;
      expected = format_value(expected_value);
      got = format_value(got_value);
    }
  }
};

// Merges per-chunk results; chunks are in index order, so the first chunk with a mismatch holds
// the first bad index.
inline VerifyResult merge_chunk_results(const std::vector<VerifyResult>& results) {
  VerifyResult total;
  for (const VerifyResult& result : results) {
    if (result.mismatches && total.mismatches == 0) total = result;
    else total.mismatches += result.mismatches;
  }
  return total;
}

// Exact comparison is used wherever the data allows it (all generated data, every integer, max
// and min). Only a float sum over user-supplied real-valued data (--input) is compared with a
// tolerance: |got - expected| <= kFloatSumTolerance * sum_{j<=i} |x_j|, the accumulated rounding
// any summation order may legitimately produce.
constexpr double kFloatSumTolerance = 1e-4;

// The parallel three-pass scan behind the checks: pass 1 reduces each chunk, pass 2 scans the
// chunk totals serially (each chunk's carry-in), pass 3 re-scans each chunk from its carry-in and
// calls check(result, i, before, after) with the accumulator before and after element i.
// `element(i)` is input i as an accumulator, `combine(a, b)` the operator (a earlier than b).
template <class Acc, class Element, class Combine, class Check>
VerifyResult chunked_scan_check(std::int64_t n, int chunks, Acc identity, Element&& element, Combine&& combine,
                                Check&& check) {
  if (chunks <= 0) chunks = default_chunks(n);
  std::vector<Acc> chunk_total(chunks, identity);
  parallel_chunks(n, chunks, [&](std::int64_t begin, std::int64_t end, int c) {
    Acc total = identity;
    for (std::int64_t i = begin; i < end; ++i) total = combine(total, element(i));
    chunk_total[c] = total;
  });
  std::vector<Acc> carry(chunks, identity);
  Acc running = identity;
  for (int c = 0; c < chunks; ++c) {
    carry[c] = running;
    running = combine(running, chunk_total[c]);
  }
  std::vector<VerifyResult> results(chunks);
  parallel_chunks(n, chunks, [&](std::int64_t begin, std::int64_t end, int c) {
    Acc acc = carry[c];
    for (std::int64_t i = begin; i < end; ++i) {
      const Acc before = acc;
      acc = combine(acc, element(i));
      check(results[c], i, before, acc);
    }
  });
  return merge_chunk_results(results);
}

// Compares got[0..n) with the scan of in[0..n) under Op, computed on the CPU in the wide type.
template <class T, class Op>
VerifyResult verify_scan(const T* in, const T* got, std::int64_t n, ScanKind kind, bool exact,
                         int chunks = 0) {
  using Wide = typename TypeInfo<T>::Wide;
  const Op op;
  const Wide identity = static_cast<Wide>(Op::template identity<T>());
  const auto expected = [kind](Wide before, Wide after) {
    return narrow<T>(kind == ScanKind::Inclusive ? after : before);
  };
  if (exact || !std::is_floating_point_v<T> || !std::is_same_v<Op, Sum>) {
    return chunked_scan_check(
        n, chunks, identity, [in](std::int64_t i) { return static_cast<Wide>(in[i]); }, op,
        [&](VerifyResult& result, std::int64_t i, Wide before, Wide after) {
          const T want = expected(before, after);
          if (!same_value(want, got[i])) result.record(i, want, got[i]);
        });
  }
  // Tolerant: the accumulator also carries the sum of magnitudes up to each element.
  struct Tracked {
    Wide value;
    double magnitude;
  };
  return chunked_scan_check(
      n, chunks, Tracked{identity, 0.0},
      [in](std::int64_t i) { return Tracked{static_cast<Wide>(in[i]), std::fabs(static_cast<double>(in[i]))}; },
      [op](Tracked a, Tracked b) { return Tracked{op(a.value, b.value), a.magnitude + b.magnitude}; },
      [&](VerifyResult& result, std::int64_t i, Tracked before, Tracked after) {
        const T want = expected(before.value, after.value);
        const bool good = same_value(want, got[i]) ||
                          std::fabs(static_cast<double>(got[i]) - static_cast<double>(want)) <=
                              kFloatSumTolerance * after.magnitude;
        if (!good) result.record(i, want, got[i]);
      });
}

// Compares got[0..n) with the scan of every row of `length` elements of in[0..n) on its own (the
// scans along rows, src/axis/): the same parallel check, under the lifted operator that restarts
// at every row start (i % length == 0), so that rows of any length split over the chunks. An
// exclusive scan starts every row with the identity. Exact: the rows problem scans generated
// data only.
template <class T, class Op>
VerifyResult verify_rows_scan(const T* in, const T* got, std::int64_t n, std::int64_t length, ScanKind kind) {
  using Wide = typename TypeInfo<T>::Wide;
  struct Headed {
    Wide value;
    bool head;  // a row starts at (or within the range of) this value
  };
  const Op op;
  const Wide identity = static_cast<Wide>(Op::template identity<T>());
  return chunked_scan_check(
      n, 0, Headed{identity, false}, [=](std::int64_t i) { return Headed{static_cast<Wide>(in[i]), i % length == 0}; },
      [op](Headed a, Headed b) { return Headed{b.head ? b.value : op(a.value, b.value), a.head || b.head}; },
      [&](VerifyResult& result, std::int64_t i, Headed before, Headed after) {
        const Wide scanned = kind == ScanKind::Inclusive ? after.value : i % length == 0 ? identity : before.value;
        const T want = narrow<T>(scanned);
        if (!same_value(want, got[i])) result.record(i, want, got[i]);
      });
}

// Compares got with the scan of every column of the [rows, columns] matrix in[] on its own (the
// scans down columns, src/axis/), the columns dealt out to the threads in chunks. Exact, as above.
template <class T, class Op>
VerifyResult verify_columns_scan(const T* in, const T* got, std::int64_t rows, std::int64_t columns, ScanKind kind) {
  using Wide = typename TypeInfo<T>::Wide;
  const Op op;
  const Wide identity = static_cast<Wide>(Op::template identity<T>());
  const int chunks = static_cast<int>(std::min<std::int64_t>(columns, default_chunks(rows * columns)));
  std::vector<VerifyResult> results(chunks);
  parallel_chunks(columns, chunks, [&](std::int64_t begin, std::int64_t end, int c) {
    for (std::int64_t column = begin; column < end; ++column) {
      Wide running = identity;
      for (std::int64_t row = 0; row < rows; ++row) {
        const std::int64_t i = row * columns + column;
        const Wide before = running;
        running = op(running, static_cast<Wide>(in[i]));
        const T want = narrow<T>(kind == ScanKind::Inclusive ? running : before);
        if (!same_value(want, got[i])) results[c].record(i, want, got[i]);
      }
    }
  });
  // Each chunk's first mismatch is its lowest column's, not its lowest index: the first bad index
  // overall is the least of them.
  VerifyResult total;
  for (const VerifyResult& result : results) {
    if (result.mismatches == 0) continue;
    const std::int64_t mismatches = total.mismatches + result.mismatches;
    if (total.mismatches == 0 || result.first_bad < total.first_bad) total = result;
    total.mismatches = mismatches;
  }
  return total;
}

// The check of a copy (memcpy_baseline): every output element equals its input element.
template <class T>
VerifyResult verify_copy(const T* in, const T* got, std::int64_t n) {
  const int chunks = default_chunks(n);
  std::vector<VerifyResult> results(chunks);
  parallel_chunks(n, chunks, [&](std::int64_t begin, std::int64_t end, int c) {
    for (std::int64_t i = begin; i < end; ++i) {
      if (!same_value(in[i], got[i])) results[c].record(i, in[i], got[i]);
    }
  });
  return merge_chunk_results(results);
}

}  // namespace zoo
