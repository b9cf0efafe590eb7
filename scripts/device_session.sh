#!/usr/bin/env bash
# device_session.sh -- one GPU session in one call: build, the full test suite with the GPU
# tests executed, the sanitizers, and a benchmark sweep. Logs and results go to $OUT (or
# ./device_out when $OUT is unset). Steps are bounded so the whole call fits in ten minutes
# (TEST_LIMIT, STRESS_LIMIT, SANITIZE_LIMIT, BENCH_LIMIT, TUNE_LIMIT: seconds per step).
#   SCAN_ZOO_COMMIT=<sha> scripts/device_session.sh [steps...]
#   One device call may run 10 minutes: with the whole zoo, split the steps over calls, e.g.
#   "build test sanitize", then "build stress", then "build bench bench-hot".
#   steps: build test sanitize stress bench bench-hot (default: all), and tune (build the tuner
#   and run the tuning sweep: not in the default); SCAN_ZOO_COMMIT names the commit in the
#   timing.txt header, since the copy of the tree on the GPU machine has no .git.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-device_out}
mkdir -p "$out"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(build test sanitize stress bench bench-hot)
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
for step in "${steps[@]}"; do
  begin=$SECONDS
  case $step in
    build) timeout 300 make -j"$(nproc)" all test-programs \
             >"$out/build.log" 2>&1
           status=$? ;;
    test) timeout ${TEST_LIMIT:-540} make test >"$out/test.log" 2>&1
          status=$?
          tail -n 15 "$out/test.log" ;;
    sanitize) timeout ${SANITIZE_LIMIT:-300} ./scripts/sanitize.sh ${SANITIZE_ARGS:-} >"$out/sanitize.log" 2>&1
              status=$?
              tail -n 20 "$out/sanitize.log" ;;
    stress) timeout ${STRESS_LIMIT:-300} ./scripts/stress.sh ${STRESS_ARGS:-} >"$out/stress.log" 2>&1
            status=$?
            cat "$out/stress.log" ;;
    bench) timeout ${BENCH_LIMIT:-480} ./bench.sh ${BENCH_ARGS:-} 2>"$out/bench.log"
           status=$?
           cp bench/timing.txt "$out/timing.txt"
           tail -n 2 "$out/bench.log" ;;
    bench-hot)  # the cache-regime chart's hot sweep: memcpy, CUB and the fastest variant of the cold sweep
           fastest=$(python3 -c 'import sys; sys.path.insert(0, "scripts"); import plots, timing_table as t
_, rows = t.load("bench/timing.txt"); rows = t.scan_rows(rows); ok = plots.passed(rows)
sizes = sorted(n for n in ok["n"].unique() if n & (n - 1) == 0)
print(plots.fastest(rows, [v for v in ok["variant"].unique() if v not in plots.REFERENCES], sizes)[0])')
           timeout 240 ./bench.sh --hot --variants "memcpy_baseline,cub_scan,$fastest" --out bench/timing_hot.txt \
             2>"$out/bench_hot.log"
           status=$?
           cp bench/timing_hot.txt "$out/timing_hot.txt"
           tail -n 2 "$out/bench_hot.log" ;;
    tune) # A tuner built elsewhere for this GPU may come along (carry build/tune/scan_tuner).
          { [ -x build/tune/scan_tuner ] || timeout 240 make -j"$(nproc)" tuner >"$out/tuner_build.log" 2>&1; } &&
          timeout ${TUNE_LIMIT:-480} ./scripts/tune.sh ${TUNE_ARGS:-} 2>"$out/tune.log"
          status=$?
          cp bench/tuning.txt bench/tuning.txt.interrupted bench/tuning_configs.txt "$out/" 2>/dev/null
          tail -n 3 "$out/tune.log" ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
  echo "== step $step: exit $status, $((SECONDS - begin)) s"
done
