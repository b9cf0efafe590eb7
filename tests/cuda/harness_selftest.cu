// harness_selftest -- unit tests of the harness's host logic: the CPU references and checks (of
// the scans and of the applications), the input generators, the command-line parser and the
// tuned scan's choice of table. No GPU is touched, so these run
// everywhere (tests/test_harness_cpu.py drives them, one pytest case per test here).
//
//   build/tests/harness_selftest --list     names of the tests
//   build/tests/harness_selftest NAME       run one: prints "PASS NAME" or "FAIL NAME: why", exit 0/1
#include <algorithm>
#include <climits>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "applications/application_reference.hpp"
#include "harness/cli.hpp"
#include "harness/reference.hpp"
#include "single_pass/tuned_scan.cuh"

#include <scan_zoo/axis.cuh>

namespace {

// A 16-byte element (a 2x2 matrix, say): a descriptor of four tagged words. A 36-byte one (a 3x3
// matrix): the two-field descriptors, a status word and value slots.
struct SixteenBytes {
  std::uint32_t words[4];
};
struct ThirtySixBytes {
  std::uint32_t words[9];
};

using zoo::ScanKind;

struct Failure {
  std::string why;
};
void expect(bool condition, const std::string& why) {
  if (!condition) throw Failure{why};
}

// An independent, deliberately plain serial scan (int64 / double accumulation, one loop).
template <class T, class Op>
std::vector<T> plain_scan(const std::vector<T>& in, ScanKind kind) {
  using Wide = typename zoo::TypeInfo<T>::Wide;
  std::vector<T> out(in.size());
  Wide acc = static_cast<Wide>(Op::template identity<T>());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (kind == ScanKind::Exclusive) out[i] = zoo::narrow<T>(acc);
    acc = Op{}(acc, static_cast<Wide>(in[i]));
    if (kind == ScanKind::Inclusive) out[i] = zoo::narrow<T>(acc);
  }
  return out;
}

template <class T, class Op>
zoo::VerifyResult verify(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind, int chunks = 0,
                         bool exact = true) {
  return zoo::verify_scan<T, Op>(in.data(), got.data(), static_cast<std::int64_t>(in.size()), kind, exact, chunks);
}

void expect_args_fail(std::vector<std::string> args, const std::string& fragment) {
  args.insert(args.begin(), "selftest");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  try {
    zoo::parse_command_line(static_cast<int>(argv.size()), argv.data());
  } catch (const zoo::UsageError& error) {
    expect(std::string(error.what()).find(fragment) != std::string::npos,
           "message '" + std::string(error.what()) + "' lacks '" + fragment + "'");
    return;
  }
  throw Failure{"arguments were accepted but should fail with '" + fragment + "'"};
}

zoo::Options parse(std::vector<std::string> args) {
  args.insert(args.begin(), "selftest");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  return zoo::parse_command_line(static_cast<int>(argv.size()), argv.data());
}

const std::vector<std::pair<std::string, std::function<void()>>> kTests = {
    {"inclusive_sum_small", [] {
       std::vector<int> in{3, -1, 4, -1, 5}, want{3, 2, 6, 5, 10};
       expect(plain_scan<int, zoo::Sum>(in, ScanKind::Inclusive) == want, "plain scan disagrees with the hand result");
       expect(verify<int, zoo::Sum>(in, want, ScanKind::Inclusive).ok(), "correct output rejected");
     }},
    {"exclusive_sum_small", [] {
       std::vector<int> in{3, -1, 4}, want{0, 3, 2};
       expect(verify<int, zoo::Sum>(in, want, ScanKind::Exclusive).ok(), "correct exclusive output rejected");
       expect(!verify<int, zoo::Sum>(in, {3, 2, 6}, ScanKind::Exclusive).ok(), "inclusive output accepted as exclusive");
     }},
    {"int32_sum_wraps_like_the_gpu", [] {
       std::vector<int> in{INT_MAX, 1, 1, INT_MIN};
       std::vector<int> want{INT_MAX, INT_MIN, INT_MIN + 1, 1};
       expect(verify<int, zoo::Sum>(in, want, ScanKind::Inclusive).ok(), "two's-complement wraparound not modelled");
       expect(zoo::Sum{}(INT_MAX, 1) == INT_MIN, "zoo::Sum does not wrap");
     }},
    {"wide_and_unsigned_types", [] {
       // The reference for the 64-bit and unsigned types: exact, wrapping like the GPU.
       std::vector<std::int64_t> big{std::int64_t(1) << 40, 3, -(std::int64_t(1) << 41)};
       expect(verify<std::int64_t, zoo::Sum>(big, {std::int64_t(1) << 40, (std::int64_t(1) << 40) + 3,
                                                  -(std::int64_t(1) << 40) + 3}, ScanKind::Inclusive).ok(),
              "int64 sum beyond 32 bits");
       std::vector<std::uint32_t> u{0xFFFFFFFFu, 2u, 5u};
       expect(verify<std::uint32_t, zoo::Sum>(u, {0xFFFFFFFFu, 1u, 6u}, ScanKind::Inclusive).ok(), "uint32 sum wraps");
       expect(verify<std::uint32_t, zoo::Max>(u, {0u, 0xFFFFFFFFu, 0xFFFFFFFFu}, ScanKind::Exclusive).ok(),
              "uint32 exclusive max starts at 0");
       std::vector<std::uint64_t> w{~0ull, 1ull};
       expect(verify<std::uint64_t, zoo::Sum>(w, {~0ull, 0ull}, ScanKind::Inclusive).ok(), "uint64 sum wraps");
       expect(verify<std::uint64_t, zoo::Min>(w, {~0ull, ~0ull}, ScanKind::Exclusive).ok(), "uint64 min identity");
       std::vector<double> d(1000);
       zoo::generate_input(d.data(), 1000, 7);
       std::vector<double> prefix(1000);
       double running = 0;
       for (int i = 0; i < 1000; ++i) prefix[i] = running += d[i];
       expect(verify<double, zoo::Sum>(d, prefix, ScanKind::Inclusive).ok(), "float64 sum of generated data is exact");
       prefix[500] += 1;
       expect(verify<double, zoo::Sum>(d, prefix, ScanKind::Inclusive).first_bad == 500, "float64 error at 500 found");
       expect(zoo::format_value(~0ull) == "18446744073709551615", "uint64 printed unsigned");
     }},
    {"max_min_with_identities", [] {
       std::vector<int> in{-3, 5, 2, 7};
       expect(verify<int, zoo::Max>(in, {-3, 5, 5, 7}, ScanKind::Inclusive).ok(), "inclusive max");
       expect(verify<int, zoo::Max>(in, {INT_MIN, -3, 5, 5}, ScanKind::Exclusive).ok(), "exclusive max starts at INT_MIN");
       expect(verify<int, zoo::Min>(in, {INT_MAX, -3, -3, -3}, ScanKind::Exclusive).ok(), "exclusive min starts at INT_MAX");
       std::vector<float> fin{1.5f, -2.0f};
       expect(verify<float, zoo::Max>(fin, {-INFINITY, 1.5f}, ScanKind::Exclusive).ok(), "float max identity is -inf");
       expect(verify<float, zoo::Min>(fin, {INFINITY, 1.5f}, ScanKind::Exclusive).ok(), "float min identity is +inf");
     }},
    {"planted_error_is_found_at_its_index", [] {
       const std::int64_t n = 3'000'001;  // several chunks
       std::vector<int> in(n);
       zoo::generate_input(in.data(), n, 42);
       std::vector<int> got = plain_scan<int, zoo::Sum>(in, ScanKind::Inclusive);
       expect(verify<int, zoo::Sum>(in, got, ScanKind::Inclusive, 7).ok(), "correct output rejected");
       got[2'000'000] += 1;
       got[2'500'000] -= 1;
       zoo::VerifyResult result = verify<int, zoo::Sum>(in, got, ScanKind::Inclusive, 7);
       expect(!result.ok(), "planted errors not detected");
       expect(result.first_bad == 2'000'000, "first bad index " + std::to_string(result.first_bad));
       expect(result.mismatches == 2, "mismatch count " + std::to_string(result.mismatches));
       expect(result.got == std::to_string(got[2'000'000]), "reported value " + result.got);
     }},
    {"poisoned_element_is_found", [] {
       std::vector<float> in(5000);
       zoo::generate_input(in.data(), 5000, 7);
       std::vector<float> got = plain_scan<float, zoo::Min>(in, ScanKind::Exclusive);
       std::uint32_t poison = 0xA5A5A5A5u;
       std::memcpy(&got[4999], &poison, sizeof poison);  // the last element left unwritten
       zoo::VerifyResult result = verify<float, zoo::Min>(in, got, ScanKind::Exclusive);
       expect(result.first_bad == 4999, "unwritten last element not detected");
     }},
    {"chunking_does_not_change_the_answer", [] {
       const std::int64_t n = 1'000'003;
       std::vector<float> in(n);
       zoo::generate_input(in.data(), n, 3);
       std::vector<float> got = plain_scan<float, zoo::Sum>(in, ScanKind::Exclusive);
       for (int chunks : {1, 2, 5, 16})
         expect(verify<float, zoo::Sum>(in, got, ScanKind::Exclusive, chunks).ok(),
                std::to_string(chunks) + " chunks rejected a correct scan");
     }},
    {"float_tolerance_only_for_real_valued_sums", [] {
       std::vector<float> in{0.1f, 0.2f, 0.3f, 1e7f, -1e7f, 0.4f};
       std::vector<float> got(in.size());
       float running = 0;  // float accumulation: a legitimate rounding of the exact sum
       for (std::size_t i = 0; i < in.size(); ++i) got[i] = running += in[i];
       expect(!verify<float, zoo::Sum>(in, got, ScanKind::Inclusive, 1, true).ok(), "exact mode accepted rounding");
       expect(verify<float, zoo::Sum>(in, got, ScanKind::Inclusive, 1, false).ok(), "tolerant mode rejected rounding");
       got[2] += 0.01f;
       expect(!verify<float, zoo::Sum>(in, got, ScanKind::Inclusive, 1, false).ok(), "tolerant mode accepted a real error");
     }},
    {"generator_is_small_random_and_seeded", [] {
       const std::int64_t n = 100'000;
       std::vector<int> a(n), b(n), c(n);
       zoo::generate_input(a.data(), n, 1);
       zoo::generate_input(b.data(), n, 1);
       zoo::generate_input(c.data(), n, 2);
       expect(a == b, "the same seed gave different data");
       expect(a != c, "different seeds gave the same data");
       std::set<int> seen(a.begin(), a.end());
       expect(seen.size() == 17 && *seen.begin() == -8 && *seen.rbegin() == 8, "values are not exactly [-8, 8]");
     }},
    {"copy_check", [] {
       std::vector<int> in{1, 2, 3}, got{1, 2, 3};
       expect(zoo::verify_copy(in.data(), got.data(), 3).ok(), "identical copy rejected");
       got[1] = 5;
       expect(zoo::verify_copy(in.data(), got.data(), 3).first_bad == 1, "bad copy not caught at index 1");
     }},
    {"segmented_scan_small", [] {
       // Segments start where the label changes: [1 2] [3 4 5] [6].
       const std::vector<std::uint8_t> labels{7, 7, 9, 9, 9, 3};
       const std::vector<int> in{1, 2, 3, 4, 5, 6}, inclusive{1, 3, 3, 7, 12, 6}, exclusive{0, 1, 0, 3, 7, 0};
       const auto check = [&](const std::vector<int>& got, ScanKind kind, int chunks) {
         return zoo::verify_segmented_scan<int, zoo::Sum>(in.data(), labels.data(), got.data(), 6, kind, chunks);
       };
       for (int chunks : {1, 2, 4}) {
         expect(check(inclusive, ScanKind::Inclusive, chunks).ok(), "correct inclusive output rejected");
         expect(check(exclusive, ScanKind::Exclusive, chunks).ok(), "correct exclusive output rejected");
       }
       std::vector<int> wrong = inclusive;
       wrong[2] = 6;  // 1 + 2 + 3: the scan did not restart at the segment start
       expect(check(wrong, ScanKind::Inclusive, 2).first_bad == 2, "a missed restart was not caught at index 2");
       const std::vector<int> plain_max{1, 2, 3, 4, 5, 6};
       expect(zoo::verify_segmented_scan<int, zoo::Max>(in.data(), labels.data(), plain_max.data(), 6,
                                                         ScanKind::Inclusive)
                  .ok(),
              "segmented max rejected");
     }},
    {"segment_labels_follow_the_mean_length", [] {
       const std::int64_t n = 1 << 20;
       std::vector<std::uint8_t> labels(n);
       const auto segments = [&](std::int64_t mean) {
         zoo::generate_segment_labels(labels.data(), n, 42, mean);
         std::int64_t starts = 0;
         for (std::int64_t i = 0; i < n; ++i) starts += zoo::starts_segment(labels.data(), i);
         return starts;
       };
       expect(segments(1) == n, "mean 1: every element should start a segment");
       expect(segments(std::int64_t(1) << 40) == 1, "a mean far beyond N should give one segment");
       const std::int64_t thousand = segments(1000);
       expect(thousand > n / 1000 * 9 / 10 && thousand < n / 1000 * 11 / 10, "mean 1000: " + std::to_string(thousand) + " segments");
     }},
    {"compaction_check", [] {
       const std::vector<int> in{3, -1, 0, 5, -2, 7};
       std::vector<int> got(6);
       std::memset(got.data(), 0xA5, sizeof(int) * got.size());
       got[0] = 3, got[1] = 5, got[2] = 7;
       expect(zoo::verify_compaction(in.data(), 6, got.data(), 3, 0xA5).ok(), "correct compaction rejected");
       const zoo::VerifyResult wrong_count = zoo::verify_compaction(in.data(), 6, got.data(), 4, 0xA5);
       expect(!wrong_count.ok() && wrong_count.note == "the count of kept elements" && wrong_count.expected == "3",
              "a wrong count was not reported as such");
       got[4] = 0;
       expect(zoo::verify_compaction(in.data(), 6, got.data(), 3, 0xA5).first_bad == 4,
              "a write past the count was not caught");
       got[4] = got[5];
       std::swap(got[1], got[2]);
       expect(zoo::verify_compaction(in.data(), 6, got.data(), 3, 0xA5).first_bad == 1, "the order was not checked");
     }},
    {"reference_sort_matches_std_sort", [] {
       const std::int64_t n = 3 << 20;  // several chunks on a multi-core machine
       std::vector<int> keys(n), got(n);
       zoo::generate_keys(keys.data(), n, 7);
       zoo::reference_sort(keys.data(), got.data(), n);
       std::vector<int> want = keys;
       std::sort(want.begin(), want.end());
       expect(got == want, "int32 keys: the radix reference differs from std::sort");
       std::vector<float> floats{2.5f, -0.0f, 0.0f, -1e30f, 1e-40f, -2.5f, 0.0f, -0.0f};
       std::vector<float> sorted(floats.size());
       zoo::reference_sort(floats.data(), sorted.data(), static_cast<std::int64_t>(floats.size()));
       // -0.0 and +0.0 are equal keys: they keep their input order (stable), as in CUB.
       const std::vector<float> order{-1e30f, -2.5f, -0.0f, 0.0f, 0.0f, -0.0f, 1e-40f, 2.5f};
       for (std::size_t i = 0; i < order.size(); ++i)
         expect(std::memcmp(&sorted[i], &order[i], sizeof(float)) == 0, "float order wrong at " + std::to_string(i));
       expect(zoo::verify_sort(floats.data(), sorted.data(), 8).ok(), "a correct float sort rejected");
       std::swap(sorted[2], sorted[3]);  // equal values, but not in input order: not stable
       expect(zoo::verify_sort(floats.data(), sorted.data(), 8).first_bad == 2, "stability of equal zeros not checked");
     }},
    {"reference_sort_of_64_bit_keys_matches_std_sort", [] {
       // 8 passes of the 64-bit words: against std::sort on keys whose high halves decide (the
       // low 32 bits alone would sort them wrongly), and doubles with signed zeros and denormals.
       const std::int64_t n = 3 << 18;
       std::vector<std::int64_t> keys(n), got(n);
       zoo::generate_keys(keys.data(), n, 11);
       zoo::reference_sort(keys.data(), got.data(), n);
       std::vector<std::int64_t> want = keys;
       std::sort(want.begin(), want.end());
       expect(got == want, "int64 keys: the radix reference differs from std::sort");
       std::vector<std::uint64_t> unsigned_keys(n), unsigned_got(n);
       zoo::generate_keys(unsigned_keys.data(), n, 12);
       zoo::reference_sort(unsigned_keys.data(), unsigned_got.data(), n);
       std::sort(unsigned_keys.begin(), unsigned_keys.end());
       expect(unsigned_got == unsigned_keys, "uint64 keys: the radix reference differs from std::sort");
       const std::vector<double> doubles{2.5, -0.0, 0.0, -1e300, 5e-324, -2.5, 0.0, -0.0, -5e-324, 1e300};
       std::vector<double> sorted(doubles.size());
       zoo::reference_sort(doubles.data(), sorted.data(), static_cast<std::int64_t>(doubles.size()));
       const std::vector<double> order{-1e300, -2.5, -5e-324, -0.0, 0.0, 0.0, -0.0, 5e-324, 2.5, 1e300};
       for (std::size_t i = 0; i < order.size(); ++i)
         expect(std::memcmp(&sorted[i], &order[i], sizeof(double)) == 0, "double order wrong at " + std::to_string(i));
     }},
    {"reference_sort_of_pairs_moves_each_value_with_its_key", [] {
       // Equal keys with distinct values: a stable sort keeps the values of equal keys in input
       // order, and each value stays beside its key.
       const std::vector<int> keys{3, -1, 3, 0, -1, 3, 7, 0};
       const std::vector<std::uint32_t> values{0, 1, 2, 3, 4, 5, 6, 7};
       std::vector<int> sorted(keys.size());
       std::vector<std::uint32_t> moved(keys.size());
       zoo::reference_sort(keys.data(), sorted.data(), 8, values.data(), moved.data());
       expect(sorted == std::vector<int>{-1, -1, 0, 0, 3, 3, 3, 7}, "pairs: keys out of order");
       expect(moved == std::vector<std::uint32_t>{1, 4, 3, 7, 0, 2, 5, 6}, "pairs: a value left its key or its order");
       expect(zoo::verify_sort(keys.data(), sorted.data(), 8, values.data(), moved.data()).ok(), "a correct pair sort rejected");
       std::swap(moved[0], moved[1]);  // keys still right, the two -1s' values swapped: not stable
       const zoo::VerifyResult swapped = zoo::verify_sort(keys.data(), sorted.data(), 8, values.data(), moved.data());
       expect(swapped.first_bad == 0 && !swapped.note.empty(), "swapped values of equal keys not caught");
     }},
    {"sort_keys_are_full_range_and_finite", [] {
       const std::int64_t n = 1 << 16;
       std::vector<float> floats(n);
       zoo::generate_keys(floats.data(), n, 3);
       int negative = 0;
       for (float f : floats) {
         expect(std::isfinite(f), "a generated float key is not finite");
         negative += f < 0;
       }
       expect(negative > n / 3 && negative < 2 * n / 3, "float keys are not spread over both signs");
       std::vector<int> ints(n);
       zoo::generate_keys(ints.data(), n, 3);
       expect(*std::max_element(ints.begin(), ints.end()) > (1 << 30) &&
                  *std::min_element(ints.begin(), ints.end()) < -(1 << 30),
              "int32 keys do not cover the range");
       std::vector<double> doubles(n);
       zoo::generate_keys(doubles.data(), n, 3);
       int negative_doubles = 0, huge = 0;
       for (double d : doubles) {
         expect(std::isfinite(d), "a generated double key is not finite");
         negative_doubles += d < 0;
         huge += std::fabs(d) > 1e100;
       }
       expect(negative_doubles > n / 3 && negative_doubles < 2 * n / 3, "double keys are not spread over both signs");
       expect(huge > n / 8, "double keys do not reach large exponents");
       std::vector<std::int64_t> longs(n);
       zoo::generate_keys(longs.data(), n, 3);
       expect(*std::max_element(longs.begin(), longs.end()) > (std::int64_t(1) << 62) &&
                  *std::min_element(longs.begin(), longs.end()) < -(std::int64_t(1) << 62),
              "int64 keys do not cover the range");
     }},
    {"size_syntax", [] {
       expect(zoo::parse_size("1048576") == 1048576, "plain");
       expect(zoo::parse_size("1M") == (1 << 20) && zoo::parse_size("64K") == 65536, "K/M suffixes");
       expect(zoo::parse_size("2^20+1") == (1 << 20) + 1, "2^20+1");
       expect(zoo::parse_size("2^24-1") == (1 << 24) - 1, "2^24-1");
       expect(zoo::parse_size("2^32+1") == (std::int64_t(1) << 32) + 1, "64-bit sizes");
       expect(zoo::parse_size("0") == 0, "zero is the empty scan");
       expect_args_fail({"1.5"}, "bad N");
       expect_args_fail({"3^4"}, "2^k");
       expect_args_fail({"1M-2M"}, "bad N");
       expect_args_fail({"2^10-2000"}, "negative");
     }},
    {"tuned_table_choice", [] {
       // By name; then, for a GPU nobody measured, the same compute capability, nearest SM count,
       // then nearest bandwidth; another architecture gets none (the fallback configuration).
       using zoo::TunedDispatch;
       const zoo::tuned::Table* h100 = TunedDispatch::table_for("NVIDIA H100 80GB HBM3", 9, 0, 132, 3352);
       const zoo::tuned::Table* h200 = TunedDispatch::table_for("NVIDIA H200", 9, 0, 132, 4814);
       expect(h100 && std::string(h100->gpu) == "NVIDIA H100 80GB HBM3", "the H100 by name");
       expect(h200 && std::string(h200->gpu) == "NVIDIA H200", "the H200 by name");
       expect(TunedDispatch::table_for("NVIDIA H200", 8, 0, 108, 1555) == h200, "a name match wins over the rest");
       expect(TunedDispatch::table_for("NVIDIA H100 PCIe", 9, 0, 114, 2039) == h100, "H100 PCIe: nearest bandwidth");
       expect(TunedDispatch::table_for("NVIDIA GH200 480GB", 9, 0, 132, 4900) == h200, "GH200: nearest bandwidth");
       expect(TunedDispatch::table_for("NVIDIA A100-SXM4-80GB", 8, 0, 108, 2039) == nullptr, "another architecture");
     }},
    {"workspace_plan", [] {
       // scan_zoo::Workspace's bookkeeping (include/scan_zoo/scan.cuh): when a scan allocates,
       // zeroes, refuses, and which epoch it takes.
       using scan_zoo::detail::plan_scan;
       using scan_zoo::detail::WorkspaceBook;
       WorkspaceBook fresh;  // owned, no memory yet
       auto plan = plan_scan(fresh, 4096, 1);
       expect(plan.grow && plan.zero && !plan.refuse && plan.epoch == 1, "a new workspace allocates and zeroes");
       const WorkspaceBook used{4096, true, true, 1, 1};
       plan = plan_scan(used, 4096, 1);
       expect(!plan.grow && !plan.zero && plan.epoch == 2, "the next scan of the same layout: no reset, next epoch");
       plan = plan_scan(used, 1024, 1);
       expect(!plan.grow && !plan.zero && plan.epoch == 2, "a smaller scan fits");
       plan = plan_scan(used, 8192, 1);
       expect(plan.grow && plan.zero, "a larger scan grows the memory and zeroes it");
       plan = plan_scan(used, 4096, 7);
       expect(!plan.grow && plan.zero && plan.epoch == 2, "another descriptor layout zeroes first");
       const WorkspaceBook last{4096, true, true, zoo::kEpochMask, 1};
       plan = plan_scan(last, 4096, 1);
       expect(plan.zero && plan.epoch == 1, "after the last epoch: zero, and start again at 1");
       const WorkspaceBook before_last{4096, true, true, zoo::kEpochMask - 1, 1};
       plan = plan_scan(before_last, 4096, 1);
       expect(!plan.zero && plan.epoch == zoo::kEpochMask, "the last epoch itself is used");
       const WorkspaceBook adopted{4096, false, false, 0, 0};
       plan = plan_scan(adopted, 4096, 1);
       expect(!plan.grow && plan.zero && plan.epoch == 1, "the caller's memory is zeroed on first use, not grown");
       plan = plan_scan(adopted, 4097, 1);
       expect(plan.refuse && !plan.grow && !plan.zero, "the caller's memory too small: refused");
       const WorkspaceBook failed_memset{4096, true, false, 5, 1};
       plan = plan_scan(failed_memset, 4096, 1);
       expect(plan.zero && plan.epoch == 6, "after a failed zeroing: zero again, never reuse an epoch");
       // Descriptors of tagged words (4 bytes, or 8 to 32 in 4-byte pieces) share one layout;
       // status words with value slots (36 bytes) lie by kernel and tile count.
       using scan_zoo::detail::descriptor_layout;
       expect(descriptor_layout<float>(0, 5) == 1 && descriptor_layout<double>(3, 9) == 1 &&
                  descriptor_layout<SixteenBytes>(0, 5) == 1 && descriptor_layout<SixteenBytes>(7, 6) == 1,
              "tagged words: one layout");
       expect(descriptor_layout<ThirtySixBytes>(0, 5) != 1 &&
                  descriptor_layout<ThirtySixBytes>(0, 5) != descriptor_layout<ThirtySixBytes>(0, 6) &&
                  descriptor_layout<ThirtySixBytes>(0, 5) != descriptor_layout<ThirtySixBytes>(1, 5),
              "status words and value slots: a layout per kernel and tile count");
     }},
    {"axis_shapes", [] {
       // scan_zoo::Shape's element count (include/scan_zoo/axis.cuh), and the row kernel's
       // descriptors within what workspace_bytes promises for any scan of that many elements.
       using scan_zoo::Shape;
       using scan_zoo::detail::element_count;
       expect(element_count(Shape{8, 131072}) == 8 * 131072, "8 x 131072");
       expect(element_count(Shape{3, 5, 7}) == 105, "3 x 5 x 7");
       expect(element_count(Shape{0, 5}) == 0 && element_count(Shape{5, 0}) == 0, "no rows, empty rows");
       expect(element_count(Shape{-1, 5}) == -1 && element_count(Shape{1, 5, -2}) == -1, "a negative extent");
       expect(element_count(Shape{std::int64_t(1) << 40, std::int64_t(1) << 30}) == -1, "2^70 elements");
       expect(element_count(Shape{std::int64_t(1) << 31, std::int64_t(1) << 31, 2}) == -1, "2^63 elements");
       expect(element_count(Shape{std::int64_t(1) << 31, (std::int64_t(1) << 31) - 1, 2}) > 0, "just below 2^63");
       expect(element_count(Shape{std::int64_t(1) << 62, 1 << 20, 0}) == 0, "2^82 x 0: no elements, no overflow");
       for (const std::int64_t n : {std::int64_t(1), std::int64_t(4097), std::int64_t(1) << 20, (std::int64_t(1) << 30) + 3}) {
         using scan_zoo::detail::RowsScan;
         expect(RowsScan<std::int32_t>::workspace_bytes(n) <= scan_zoo::workspace_bytes<std::int32_t>(n) &&
                    RowsScan<double>::workspace_bytes(n) <= scan_zoo::workspace_bytes<double>(n) &&
                    RowsScan<SixteenBytes>::workspace_bytes(n) <= scan_zoo::workspace_bytes<SixteenBytes>(n) &&
                    RowsScan<ThirtySixBytes>::workspace_bytes(n) <= scan_zoo::workspace_bytes<ThirtySixBytes>(n),
                "the row scan fits in workspace_bytes(" + std::to_string(n) + ")");
       }
     }},
    {"row_cursor", [] {
       // The row kernel's cursor (include/scan_zoo/detail/rows_kernel.cuh) walked round by round
       // as a thread does, against plain division, for rows shorter than a vector, of a vector,
       // around a round (32 V) and long, from first items inside and at the edges of rows.
       using scan_zoo::detail::RowCursor;
       bool right = true;
       const auto walk = [&](auto vector, std::int64_t first, std::int64_t length) {
         constexpr int V = decltype(vector)::value;
         RowCursor<V> cursor(first, length);
         for (int round = 0; round < 8; ++round) {
           const std::int64_t base = first + std::int64_t(round) * 32 * V;
           for (int j = 0; j < V; ++j) {
             const std::int64_t i = base + j;
             right = right && cursor.starts_row(j) == (i % length == 0) &&
                     cursor.ends_row(j) == ((i + 1) % length == 0) && cursor.row_of(j) == i / length;
           }
           cursor.next_round();
         }
       };
       for (const std::int64_t length : {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 127, 128, 129, 255, 256, 257, 511,
                                          512, 513, 4096, 131072, 1 << 30})
         for (const std::int64_t first : {std::int64_t(0), std::int64_t(1), length - 1, length, 3 * length + 2,
                                          std::int64_t(1) << 33, (std::int64_t(1) << 33) + 5}) {
           if (first < 0) continue;
           walk(std::integral_constant<int, 1>{}, first, length);
           walk(std::integral_constant<int, 4>{}, first, length);
           walk(std::integral_constant<int, 16>{}, first, length);
         }
       expect(right, "every start, end and row matches i % length and i / length");
     }},
    {"column_geometry", [] {
       // The column kernel's cover of an [outer, length, inner] array (columns_kernel.cuh): whole
       // lane groups in a warp, every column in exactly one tile of a band, every row in a band.
       using scan_zoo::detail::ColumnGeometry;
       using Config = scan_zoo::detail::ColumnsDefaultConfig;
       bool right = true;
       for (const int vector : {1, 2, 4, 8})
         for (const std::int64_t inner : {2, 3, 4, 5, 8, 16, 31, 64, 100, 127, 128, 129, 256, 512, 1000, 4096}) {
           if (vector > 1 && inner % vector != 0) continue;
           const ColumnGeometry g = ColumnGeometry::make<Config>(3, 1000, inner, vector, 4);
           const std::int64_t vectors = (inner + vector - 1) / vector;
           right = right && g.group_lanes >= 1 && g.group_lanes <= 32 && g.groups == 32 / g.group_lanes &&
                   g.width == g.group_lanes * vector && g.column_blocks * g.width >= inner &&
                   (g.column_blocks - 1) * g.width < inner && g.bands * g.tile_rows >= 1000 &&
                   (g.bands - 1) * g.tile_rows < 1000 &&
                   g.tile_rows == 8 * g.groups * Config::rows_per_chunk(vector, 4) &&
                   g.tiles() == 3 * g.bands * g.column_blocks &&
                   g.group_lanes == (vectors < Config::kGroupLanes ? vectors : Config::kGroupLanes);
         }
       expect(right, "lane groups, column blocks and bands cover the array once");
     }},
    {"option_lists", [] {
       zoo::Options options = parse({"1,31,2^10", "--type", "int32,float32", "--op=sum,max", "--exclusive", "--hot"});
       expect(options.sizes == std::vector<std::int64_t>{1, 31, 1024}, "size list");
       expect(options.types.size() == 2 && options.ops.size() == 2, "type/op lists");
       expect(options.kinds == std::vector<ScanKind>{ScanKind::Exclusive}, "--exclusive");
       expect(options.hot && !options.check_only && !options.in_place, "flags");
       expect(parse({"5", "--in-place"}).in_place, "--in-place");
       zoo::Options both = parse({"5", "--mode", "inclusive,exclusive"});
       expect(both.kinds.size() == 2, "--mode list");
       expect_args_fail({"5", "--mode", "both"}, "unknown --mode");
       expect_args_fail({"5", "--hot=1"}, "takes no value");
       expect_args_fail({"5", "--output", "x.bin", "--type", "int32,float32"}, "one result");
       expect_args_fail({"--input", "x.bin", "--type", "int32,float32"}, "single --type");
       expect_args_fail({"5", "--timeout", "0"}, "positive");
       expect(parse({"5", "--segment-length", "1K"}).segment_length == 1024, "--segment-length 1K");
       expect_args_fail({"5", "--segment-length", "0"}, "length >= 1");
       expect_args_fail({"5", "--segment-length", "x"}, "--segment-length: bad N");
     }},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const auto& test : kTests) std::printf("%s\n", test.first.c_str());
    return 0;
  }
  std::set<std::string> wanted(argv + 1, argv + argc);
  int failures = 0, ran = 0;
  for (const auto& test : kTests) {
    if (!wanted.empty() && !wanted.count(test.first)) continue;
    ++ran;
    try {
      test.second();
      std::printf("PASS %s\n", test.first.c_str());
    } catch (const Failure& failure) {
      std::printf("FAIL %s: %s\n", test.first.c_str(), failure.why.c_str());
      ++failures;
    }
  }
  if (ran != static_cast<int>(wanted.empty() ? kTests.size() : wanted.size())) {
    std::printf("FAIL: unknown test name among the arguments\n");
    return 1;
  }
  return failures ? 1 : 0;
}
