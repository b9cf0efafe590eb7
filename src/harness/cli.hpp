// cli.hpp -- the command line every zoo binary shares (docs/cli.md).
//
// Pure host code with no CUDA calls: a usage error is reported (exit code 2) before the GPU is
// touched, so these paths work and are tested on machines without a GPU.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../core/ops.cuh"
#include "../core/rows.hpp"

namespace zoo {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::vector<std::int64_t> sizes;         // N list (empty only with --input, which sets N)
  std::vector<std::string> types{"int32"};
  std::vector<std::string> ops{"sum"};
  std::vector<ScanKind> kinds{ScanKind::Inclusive};
  int reps = 0;                            // 0 = adaptive
  int warmup = 3;
  int repeat = 1;                          // verified runs, each with fresh data (stress)
  bool hot = false;                        // skip the L2 flush between timed reps
  bool check_only = false;                 // verify, do not time
  bool in_place = false;                   // scan the array in place: the output is the input's buffer
  bool values = false;                     // sorts: key-value pairs (a 32-bit value with each key)
  std::uint64_t seed = 1;
  double timeout_s = 60.0;                 // watchdog: longest wait for any one GPU step
  double budget_ms = 0;                    // skip an N whose one run is predicted to exceed this
  std::string input_path, output_path;     // scan a user's raw little-endian array
  std::int64_t segment_length = 0;         // segmented scans: mean segment length (0: their default)
  std::int64_t row_length = 0;             // scans along rows: every N is rows x this (0: one row of N)
  std::int64_t columns = 0;                // scans down columns: every N is this x rows (0: one column)
  bool help = false;
  bool device_info = false;                // print the GPU description header and exit
  bool inject_hang = false;                // test-only: make the verified scan never finish
  // The multi-GPU binaries (multi_gpu_*) only: how many GPUs, and one process per GPU.
  int gpus = 0;                            // 0: every visible GPU (one process), or the world size
  std::string nccl_id_path;                // one process per GPU: the file that carries NCCL's id
  int rank = -1;                           // one process per GPU: this process's rank
};

inline std::string usage_text() {
  return std::string() +
      "usage: VARIANT N[,N...] [options]\n"
      "  N                 element count: 1000, 4096, 64K, 16M, 1G (K/M/G = 2^10/2^20/2^30),\n"
      "                    2^20, optionally +/- an offset (2^24-1); a comma list runs each size\n"
      "  --type T[,T...]   element type: " + names_of(AllTypes{}) + " (default int32)\n"
      "  --op O[,O...]     operator: " + names_of(AllOps{}) + " (default sum)\n"
      "  --mode M[,M...]   inclusive exclusive (default inclusive)\n"
      "  --inclusive, --exclusive   shorthands for --mode\n"
      "  --reps R          timed repetitions (default: adaptive, 10..300 reps / ~0.25 s)\n"
      "  --warmup W        untimed runs before timing (default 3)\n"
      "  --hot             do not flush L2 between timed reps (default: flush, cold L2)\n"
      "  --check-only      verify against the CPU reference, skip timing\n"
      "  --in-place        scan in place (output buffer = input buffer); each timed rep scans the\n"
      "                    previous rep's output (a scan's time does not depend on the values)\n"
      "  --repeat K        verify K times, fresh random data each time (stress; default 1)\n"
      "  --seed S          seed of the random input (default 1); each combination draws fresh data\n"
      "  --timeout SEC     watchdog: any one GPU step longer than this ends the run (default 60)\n"
      "  --budget-ms MS    skip (SKIPPED row, exit 0) an N whose single run, extrapolated linearly\n"
      "                    from a smaller N of the same list, would take longer than MS\n"
      "  --input FILE      scan FILE, a raw little-endian array of --type (N = file size)\n"
      "  --output FILE     write the scanned array to FILE (one combination only)\n"
      "  --values          sorts only: sort key-value pairs, a 32-bit value with each key (the\n"
      "                    rows' mode: ascending-pairs; --output writes the keys)\n"
      "  --segment-length L  segmented scans only: mean length of the random segments\n"
      "                    (default 1024; 1: every element its own segment; > N: one segment)\n"
      "  --row-length L    scans along rows only (src/axis/): each N is N / L rows of L elements,\n"
      "                    every row scanned on its own (default: one row of N)\n"
      "  --columns C       scans down columns only (src/axis/): each N is N / C rows of C columns,\n"
      "                    every column scanned on its own (default: one column of N)\n"
      "  --device-info     print the GPU description as '# key: value' lines and exit\n"
      "  --inject-hang     test only: the scan never finishes (the zoo's single-pass scans: tile 0\n"
      "                    never publishes; others and the library's: a stand-in kernel), to\n"
      "                    exercise the watchdog\n"
      "  multi-GPU binaries (multi_gpu_*) only; N is the global size, sharded contiguously:\n"
      "  --gpus G          scan over G GPUs (default: every visible GPU)\n"
      "  --nccl-id FILE --rank R   one process per GPU: this process is rank R of --gpus G;\n"
      "                    rank 0 writes NCCL's unique id to FILE (which must not exist), the\n"
      "                    others wait for it (--timeout); rank 0 deletes it once all have joined\n"
      "  -h, --help        this text\n"
      "stdout: one row per combination: " + kRowColumns + "\n"
      "exit codes: 0 pass, 1 verification failed, 2 usage error, 3 combination not supported,\n"
      "            4 CUDA error or not enough memory, 5 watchdog (the scan did not finish)\n";
}

inline std::vector<std::string> split_list(const std::string& text, const char* what) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw UsageError(std::string("empty item in the ") + what + " list '" + text + "'");
    items.push_back(item);
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

// Parses one non-negative decimal integer that must fill the whole string.
inline std::int64_t parse_plain_count(const std::string& text, const std::string& whole) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError("bad N '" + whole + "': expected a non-negative integer such as 1048576, 1M or 2^20");
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE || value > (1ull << 62)) throw UsageError("N '" + whole + "' is too large");
  return static_cast<std::int64_t>(value);
}

// Parses one size term: 123, 64K, 16M, 1G, 2^20.
inline std::int64_t parse_size_term(const std::string& term, const std::string& whole) {
  std::size_t caret = term.find('^');
  if (caret != std::string::npos) {
    std::int64_t base = parse_plain_count(term.substr(0, caret), whole);
    std::int64_t exponent = parse_plain_count(term.substr(caret + 1), whole);
    if (base != 2 || exponent > 62) throw UsageError("bad N '" + whole + "': powers must be 2^k with k <= 62");
    return std::int64_t(1) << exponent;
  }
  int shift = 0;
  std::string digits = term;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      default: break;
    }
    if (shift) digits.pop_back();
  }
  std::int64_t value = parse_plain_count(digits, whole);
  if (value > ((std::int64_t(1) << 62) >> shift)) throw UsageError("N '" + whole + "' is too large");
  return value << shift;
}

// Parses N: a size term optionally followed by +OFFSET or -OFFSET (e.g. 2^24-1, 1M+3).
inline std::int64_t parse_size(const std::string& text) {
  std::size_t sign = text.find_first_of("+-", 1);
  if (!text.empty() && text[0] == '-') throw UsageError("bad N '" + text + "': N must not be negative");
  std::int64_t value = parse_size_term(text.substr(0, sign), text);
  if (sign == std::string::npos) return value;
  std::int64_t offset = parse_plain_count(text.substr(sign + 1), text);
  if (text[sign] == '+') {
    if (value > (std::int64_t(1) << 62) - offset) throw UsageError("N '" + text + "' is too large");
    return value + offset;
  }
  if (offset > value) throw UsageError("bad N '" + text + "': N must not be negative");
  return value - offset;
}

inline int parse_int_option(const std::string& flag, const std::string& text, int minimum) {
  char* end = nullptr;
  errno = 0;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || value < minimum || value > 1000000000L)
    throw UsageError(flag + " expects an integer >= " + std::to_string(minimum) + ", got '" + text + "'");
  return static_cast<int>(value);
}

inline Options parse_command_line(int argc, char** argv) {
  Options options;
  bool sizes_given = false;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::string value;
    bool has_inline_value = false;
    if (arg.rfind("--", 0) == 0) {
      std::size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline_value = true;
      }
    }
    auto take_value = [&]() -> std::string {
      if (has_inline_value) return value;
      if (i + 1 >= args.size()) throw UsageError(arg + " needs a value");
      return args[++i];
    };
    auto reject_value = [&]() {
      if (has_inline_value) throw UsageError(arg + " takes no value");
    };

    if (arg == "-h" || arg == "--help") { reject_value(); options.help = true; }
    else if (arg == "--type") options.types = split_list(take_value(), "--type");
    else if (arg == "--op") options.ops = split_list(take_value(), "--op");
    else if (arg == "--mode") {
      options.kinds.clear();
      for (const std::string& mode : split_list(take_value(), "--mode")) {
        if (mode == "inclusive") options.kinds.push_back(ScanKind::Inclusive);
        else if (mode == "exclusive") options.kinds.push_back(ScanKind::Exclusive);
        else throw UsageError("unknown --mode '" + mode + "' (expected inclusive or exclusive)");
      }
    }
    else if (arg == "--inclusive") { reject_value(); options.kinds = {ScanKind::Inclusive}; }
    else if (arg == "--exclusive") { reject_value(); options.kinds = {ScanKind::Exclusive}; }
    else if (arg == "--reps") options.reps = parse_int_option(arg, take_value(), 1);
    else if (arg == "--warmup") options.warmup = parse_int_option(arg, take_value(), 0);
    else if (arg == "--repeat") options.repeat = parse_int_option(arg, take_value(), 1);
    else if (arg == "--hot") { reject_value(); options.hot = true; }
    else if (arg == "--check-only") { reject_value(); options.check_only = true; }
    else if (arg == "--in-place") { reject_value(); options.in_place = true; }
    else if (arg == "--values") { reject_value(); options.values = true; }
    else if (arg == "--seed") {
      std::string text = take_value();
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        throw UsageError("--seed expects a non-negative integer, got '" + text + "'");
      errno = 0;
      options.seed = std::strtoull(text.c_str(), nullptr, 10);
      if (errno == ERANGE) throw UsageError("--seed '" + text + "' is too large");
    }
    else if (arg == "--timeout") {
      std::string text = take_value();
      char* end = nullptr;
      double seconds = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(seconds > 0) || seconds > 1e6)
        throw UsageError("--timeout expects a positive number of seconds, got '" + text + "'");
      options.timeout_s = seconds;
    }
    else if (arg == "--budget-ms") {
      std::string text = take_value();
      char* end = nullptr;
      double ms = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(ms > 0))
        throw UsageError("--budget-ms expects a positive number of milliseconds, got '" + text + "'");
      options.budget_ms = ms;
    }
    else if (arg == "--input") options.input_path = take_value();
    else if (arg == "--output") options.output_path = take_value();
    else if (arg == "--segment-length" || arg == "--row-length" || arg == "--columns") {
      std::int64_t length = 0;
      try {
        length = parse_size(take_value());
      } catch (const UsageError& error) {
        throw UsageError(arg + ": " + error.what());
      }
      if (length < 1) throw UsageError(arg + " expects a length >= 1");
      (arg == "--row-length" ? options.row_length : arg == "--columns" ? options.columns : options.segment_length) = length;
    }
    else if (arg == "--device-info") { reject_value(); options.device_info = true; }
    else if (arg == "--inject-hang") { reject_value(); options.inject_hang = true; }
    else if (arg == "--gpus") options.gpus = parse_int_option(arg, take_value(), 1);
    else if (arg == "--nccl-id") options.nccl_id_path = take_value();
    else if (arg == "--rank") options.rank = parse_int_option(arg, take_value(), 0);
    else if (arg.size() > 1 && arg[0] == '-' && !(arg[1] >= '0' && arg[1] <= '9'))
      throw UsageError("unknown option '" + arg + "'");
    else {
      if (sizes_given) throw UsageError("N given twice ('" + arg + "'): use a comma list, e.g. 1024,4096");
      for (const std::string& item : split_list(arg, "N")) options.sizes.push_back(parse_size(item));
      sizes_given = true;
    }
  }
  if (options.help || options.device_info) return options;

  for (const std::string& type : options.types)
    if (!is_known_name(type, AllTypes{}))
      throw UsageError("unknown --type '" + type + "' (expected one of: " + names_of(AllTypes{}) + ")");
  for (const std::string& op : options.ops)
    if (!is_known_name(op, AllOps{}))
      throw UsageError("unknown --op '" + op + "' (expected one of: " + names_of(AllOps{}) + ")");

  if (!options.input_path.empty()) {
    if (options.types.size() != 1) throw UsageError("--input reads one element type: give a single --type");
    if (options.sizes.size() > 1) throw UsageError("--input takes N from the file: give at most one N");
  } else if (!sizes_given) {
    throw UsageError("missing N (the number of elements to scan)");
  }
  if (options.nccl_id_path.empty() != (options.rank < 0))
    throw UsageError("one process per GPU takes both --nccl-id FILE and --rank R");
  if (options.rank >= 0 && options.gpus == 0)
    throw UsageError("one process per GPU (--rank) needs the number of processes: --gpus G");
  if (options.rank >= options.gpus && options.rank >= 0)
    throw UsageError("--rank " + std::to_string(options.rank) + " is not below --gpus " + std::to_string(options.gpus));
  for (const auto& [extent, what] : {std::pair{options.row_length, "rows of --row-length"},
                                     std::pair{options.columns, "rows of --columns"}})
    if (extent > 0)
      for (const std::int64_t n : options.sizes)
        if (n % extent != 0)
          throw UsageError("N = " + std::to_string(n) + " is not a whole number of " + what + " " +
                           std::to_string(extent));
  if (!options.output_path.empty() &&
      (options.types.size() * options.ops.size() * options.kinds.size() * std::max<std::size_t>(options.sizes.size(), 1) != 1))
    throw UsageError("--output writes one result: give a single N, type, op and mode");
  return options;
}

}  // namespace zoo
