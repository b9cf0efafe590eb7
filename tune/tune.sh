#!/usr/bin/env bash
# tune.sh -- the tuning sweep of single_pass_scan_tuned: every configuration of its space
# (include/scan_zoo/detail/tuned_space.cuh), with CUB and memcpy in the same process, at every power of
# two 2^10..2^30, int32 inclusive sum, cold L2, into bench/<gpu>/tuning.txt (timing.txt's format
# and header; the configuration's name in the variant column; <gpu> the GPU's short name, h100,
# h200, from scripts/gpu_slug.py). Beside it, tuning_configs.txt: registers, local memory
# (spills) and resident blocks per SM of every configuration's kernel. Other GPUs' folders are not
# touched: the selection (make tune-select) then builds one table per measured GPU.
#
#   tune/tune.sh [--sizes LIST] [--reps R] [--warmup W] [--configs SUBSTRING] [--out FILE]
#
# Unlike bench.sh (whose sweeps go to results/), this writes into bench/<gpu>/ by default: the
# tuning table is shipped data, and regenerating it is what make tune is for (a maintainer's
# action). Progress goes to stderr: measurements (configurations x sizes) done of the total,
# with an ETA, every 10 seconds.
#
# Needs `make all tuner` (make tune does both, then the selection). If the tuner dies (its
# watchdog caught a hang, or it crashed), the measurement it was on gets a HANG or ERROR row and
# the sweep resumes after it: failures are rows. The table is written to a temporary file and
# renamed at the end, so an interrupted sweep leaves the previous one intact (and what it had
# measured in FILE.interrupted).
set -u
cd "$(dirname "$0")/.."
. scripts/sweep.sh
tuner=build/tune/scan_tuner
sizes="2^10,2^11,2^12,2^13,2^14,2^15,2^16,2^17,2^18,2^19,2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28,2^29,2^30"
reps=15 warmup=2 configs="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "tune.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$tuner" ] || { echo "tune.sh: no $tuner (run make tuner)" >&2; exit 2; }
[ -x bin/memcpy_baseline ] || { echo "tune.sh: no bin/memcpy_baseline (run make)" >&2; exit 2; }

# The work of one configuration over the sizes, for the progress lines' ETA (sweep_work).
size_work=0 size_count=0
IFS=, read -r -a size_list <<<"$sizes"
for size in "${size_list[@]}"; do
  elements=$(sweep_elements "$size") || { echo "tune.sh: bad size in --sizes '$sizes'" >&2; exit 2; }
  size_work=$((size_work + $(sweep_work "$elements"))) size_count=$((size_count + 1))
done

# The header: the GPU as the binaries see it (it names the default folder), the commit, the sweep.
header=$(scripts/table_header.sh bin/memcpy_baseline "scan-zoo tuning table (single_pass_scan_tuned's space)" cold \
  "type=int32 op=sum mode=inclusive sizes=$sizes reps=$reps warmup=$warmup configs=${configs:-all}") || exit 4
[ -n "$out" ] || out=$(sweep_default_out "$header" bench tuning.txt) || exit 4
configs_out="$(dirname "$out")/tuning_configs.txt"
# An interrupted tuning sweep keeps what it measured beside the table, and says where it was.
sweep_on_interrupt() {
  cp -f "$sweep_tmp" "$sweep_out.interrupted" 2>/dev/null
  [ -f "$sweep_tmp.err" ] && echo "tune.sh: the tuner was at: $(grep '^tuning ' "$sweep_tmp.err" | tail -n 1)" >&2
  rm -f "$configs_out.partial"
  echo "tune.sh: what was measured: $sweep_out.interrupted" >&2
}
sweep_start "$out" "$header" tune.sh
tmp=$sweep_tmp
"$tuner" --describe ${configs:+--configs "$configs"} >"$configs_out.partial" || exit 4

# Progress (stderr): the tuner measures every configuration, then CUB and memcpy, at each size.
measured_per_size=$(($(grep -vc '^config ' "$configs_out.partial") + 2))
total=$((measured_per_size * size_count)) total_work=$((measured_per_size * size_work))
progress_every_s=10 last_report=$SECONDS
sweep_on_progress() {
  # Every progress_every_s seconds while the tuner runs, and once when it has ended.
  [ -z "$sweep_child" ] || [ $((SECONDS - last_report)) -ge $progress_every_s ] || return 0
  last_report=$SECONDS
  local measured work_done
  read -r measured work_done < <(awk -v fixed="$sweep_fixed_work" \
    '!/^#/ && $5 ~ /^[0-9]+$/ { rows++; work += $5 + fixed } END { printf "%d %.0f\n", rows, work }' "$tmp")
  echo "tune.sh: $measured/$total measured (configurations x sizes), $((SECONDS - started)) s," \
    "$(sweep_eta $((SECONDS - started)) "$work_done" "$total_work")" >&2
}

started=$SECONDS
resume=()
while true; do
  sweep_run --append "$tmp" "$tmp.err" "$tuner" "$sizes" --reps "$reps" --warmup "$warmup" --timeout 20 \
    ${configs:+--configs "$configs"} "${resume[@]}"
  rc=$?
  # 0: all passed; 1: some verification failed (FAIL rows are in the table). Anything else: it died.
  { [ $rc -eq 0 ] || [ $rc -eq 1 ]; } && break
  where=$(grep '^tuning ' "$tmp.err" | tail -n 1)
  [ -n "$where" ] || { echo "tune.sh: the tuner failed before measuring (exit $rc): $(tail -n 3 "$tmp.err")" >&2; exit 4; }
  name=$(echo "$where" | awk '{print $2}')
  n=$(echo "$where" | awk '{print $3}' | sed 's/^n=//')
  echo "tune.sh: the tuner died (exit $rc) at $name n=$n: $(tail -n 2 "$tmp.err" | tr '\n' ' ')" >&2
  # The watchdog prints its own HANG row; a crash leaves none.
  if ! awk -v name="$name" -v n="$n" '$1 == name && $5 == n' "$tmp" | grep -q .; then
    sweep_failure_row "${header##*$'\n'}" "$name" int32 sum inclusive "$n" "ERROR(exit-$rc)" 1 >>"$tmp"
  fi
  resume=(--resume-after "$name@$n")
done
mv -f "$configs_out.partial" "$configs_out"
sweep_finish "$out"
echo "tune.sh: wrote $out ($(grep -vc '^#' "$out") lines, $((SECONDS - started)) s) and $configs_out" >&2
