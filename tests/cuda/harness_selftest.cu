// harness_selftest -- unit tests of the harness's host logic: the CPU reference, the
// verification, the input generator and the command-line parser. No GPU is touched, so these run
// everywhere (tests/test_harness_cpu.py drives them, one pytest case per test here).
//
//   build/tests/harness_selftest --list     names of the tests
//   build/tests/harness_selftest NAME       run one: prints "PASS NAME" or "FAIL NAME: why", exit 0/1
#include <climits>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/reference.hpp"

namespace {

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
    {"option_lists", [] {
       zoo::Options options = parse({"1,31,2^10", "--type", "int32,float32", "--op=sum,max", "--exclusive", "--hot"});
       expect(options.sizes == std::vector<std::int64_t>{1, 31, 1024}, "size list");
       expect(options.types.size() == 2 && options.ops.size() == 2, "type/op lists");
       expect(options.kinds == std::vector<ScanKind>{ScanKind::Exclusive}, "--exclusive");
       expect(options.hot && !options.check_only, "flags");
       zoo::Options both = parse({"5", "--mode", "inclusive,exclusive"});
       expect(both.kinds.size() == 2, "--mode list");
       expect_args_fail({"5", "--mode", "both"}, "unknown --mode");
       expect_args_fail({"5", "--hot=1"}, "takes no value");
       expect_args_fail({"5", "--output", "x.bin", "--type", "int32,float32"}, "one result");
       expect_args_fail({"--input", "x.bin", "--type", "int32,float32"}, "single --type");
       expect_args_fail({"5", "--timeout", "0"}, "positive");
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
