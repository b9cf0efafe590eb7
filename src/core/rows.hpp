// rows.hpp -- what a zoo binary tells its caller: the exit codes (docs/cli.md, "Exit codes") and the
// result row of the timing.txt schema (docs/bench.md). Host
// code only.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace zoo {

// One meaning each (docs/cli.md, "Exit codes"). In a list run the worst outcome wins: 5, 4, 1, 3, 0.
enum ExitCode : int {
  kExitPass = 0,
  kExitVerifyFailed = 1,
  kExitUsage = 2,
  kExitUnsupported = 3,
  kExitCudaOrMemory = 4,
  kExitWatchdog = 5,
};

inline int exit_severity(int code) {
  switch (code) {
    case kExitWatchdog: return 4;
    case kExitCudaOrMemory: return 3;
    case kExitVerifyFailed: return 2;
    case kExitUnsupported: return 1;
    default: return 0;
  }
}
inline int worse_exit(int a, int b) { return exit_severity(b) > exit_severity(a) ? b : a; }

// The combination being worked on. It names the row that a fatal error still prints.
struct RowLabel {
  std::string variant, type, op, mode;
  std::int64_t n = -1;  // -1: no row in progress (the global N of a multi-GPU run)
  int gpus = 1;         // the GPUs the run was spread over
};
inline RowLabel& current_row() {
  static RowLabel row;
  return row;
}

// The name of the current combination in stderr lines: "variant type op mode n=N".
inline std::string row_label(const RowLabel& row) {
  return row.variant + " " + row.type + " " + row.op + " " + row.mode + " n=" + std::to_string(row.n);
}

// The figures of a timed row: how many reps, and their spread (timing.cuh, summarize). NaN where
// nothing was timed, so that an untimed row cannot pass for a fast one.
struct Stats {
  int reps = 0;
  double median_ms = NAN, min_ms = NAN, max_ms = NAN;
  double p10_ms = NAN, p90_ms = NAN;  // the 10th and 90th percentiles: the spread without its outliers
};

// The columns of a row, in order: stated here once for the C++ side (--help prints them, the
// tables' headers take them from there: scripts/table_header.sh), and once for Python
// (scripts/timing_table.py COLUMNS), a test holding the two equal.
inline constexpr const char* kRowColumns =
    "variant type op mode n reps median_ms min_ms max_ms p10_ms p90_ms gbps status gpus";

// One result row on stdout, kRowColumns in order. It takes the whole Stats, so that no caller
// can leave a column of the spread out.
inline void print_row(const RowLabel& row, const Stats& stats, double gbps, const std::string& status) {
  std::printf("%s %s %s %s %lld %d %.6f %.6f %.6f %.6f %.6f %.2f %s %d\n", row.variant.c_str(), row.type.c_str(),
              row.op.c_str(), row.mode.c_str(), static_cast<long long>(row.n), stats.reps, stats.median_ms,
              stats.min_ms, stats.max_ms, stats.p10_ms, stats.p90_ms, gbps, status.c_str(), row.gpus);
  std::fflush(stdout);
}
inline void print_untimed_row(const RowLabel& row, const std::string& status) { print_row(row, Stats{}, NAN, status); }

}  // namespace zoo
