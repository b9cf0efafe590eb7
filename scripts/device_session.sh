#!/usr/bin/env bash
# device_session.sh -- one GPU session in one call: build, the full test suite with the GPU
# tests executed, the sanitizers, and a benchmark sweep. Logs and results go to $OUT (or
# ./device_out when $OUT is unset). Steps are bounded so the whole call fits in ten minutes.
#   SCAN_ZOO_COMMIT=<sha> scripts/device_session.sh [steps...]
#   steps: build test sanitize stress bench (default: all); SCAN_ZOO_COMMIT names the commit in the
#   timing.txt header, since the copy of the tree on the GPU machine has no .git.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-device_out}
mkdir -p "$out"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(build test sanitize stress bench)
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$out/gpu.txt"
for step in "${steps[@]}"; do
  begin=$SECONDS
  case $step in
    build) timeout 300 make -j"$(nproc)" all test-programs \
             >"$out/build.log" 2>&1
           status=$? ;;
    test) timeout 420 make test >"$out/test.log" 2>&1
          status=$?
          tail -n 15 "$out/test.log" ;;
    sanitize) timeout 300 ./scripts/sanitize.sh ${SANITIZE_ARGS:-} >"$out/sanitize.log" 2>&1
              status=$?
              tail -n 20 "$out/sanitize.log" ;;
    stress) timeout 300 ./scripts/stress.sh ${STRESS_ARGS:-} >"$out/stress.log" 2>&1
            status=$?
            cat "$out/stress.log" ;;
    bench) timeout 400 ./bench.sh ${BENCH_ARGS:-} 2>"$out/bench.log"
           status=$?
           cp bench/timing.txt "$out/timing.txt"
           grep -v '^#' bench/timing.txt ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
  echo "== step $step: exit $status, $((SECONDS - begin)) s"
done
