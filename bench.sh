#!/usr/bin/env bash
# bench.sh -- run every binary in bin/ over a list of sizes and collect the rows in
# bench/<gpu>/timing.txt (format: README "Benchmarking: bench.sh and timing.txt").
#
#   ./bench.sh                         every variant, default sizes, int32 inclusive sum, cold L2
#   ./bench.sh --variants cub_scan,memcpy_baseline --sizes 2^20,2^28
#   ./bench.sh --type float32 --op max --exclusive --hot --out /tmp/t.txt
#
# <gpu> is the GPU's short name (h100, h200: scripts/gpu_slug.py on the first binary's
# --device-info), so that each GPU's results have a folder of their own.
# Default: int32 inclusive sum at every power of two from 2^10 to 2^30 plus a few awkward sizes.
# One process per binary runs its whole size list (a CUDA context costs ~0.2 s to create). If a
# process dies or is killed before it printed a row for every size, the first size without a row
# gets a HANG or ERROR row and the sweep resumes with the next size in a fresh process: failures
# are rows, never gaps. The table is written to a temporary file and renamed over the old one
# only when the sweep is complete, so an interrupted sweep leaves the previous results intact.
set -u

. "$(dirname "$0")/scripts/binaries.sh"
. "$(dirname "$0")/scripts/sweep.sh"

usage() {
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  cat <<'EOF'
options:
  --variants a,b      binaries to run (default: every file in the binary folder but the
                      multi_gpu_* ones, which scripts/multi_gpu_bench.sh sweeps)
  --sizes LIST        comma list of N, increasing (default: 2^10 .. 2^30 and 100000, 1000000,
                      4194303, 2^24+1)
  --type T, --op O    element type and operator (default int32, sum)
  --exclusive         exclusive scans (default inclusive)
  --hot               do not flush L2 between timed reps
  --in-place          scan in place (the binaries' --in-place; the header's sweep line says so;
                      binaries whose problem cannot run in place give WAIVED rows)
  --timeout SEC       watchdog for one GPU step inside a binary (default 30)
  --budget-ms MS      a binary skips (SKIPPED row) an N whose one run would exceed MS,
                      extrapolated from its smaller N (default 1000: keeps the serial
                      scan from eating the sweep; the whole zoo then sweeps in ~9 minutes
                      on an H100)
  --process-limit SEC wall-clock limit for one binary process (default 600)
  --gpus G            passed to the multi-GPU binaries (multi_gpu_*) only: spread each N over
                      G GPUs (scripts/multi_gpu_bench.sh sweeps them this way)
  --bin-dir DIR       where the binaries are (default bin)
  --out FILE          result table (default bench/<gpu>/timing.txt, <gpu> as above)
EOF
}

# Default sizes: every power of two from 2^10 to 2^30 plus awkward sizes (not a power of two,
# one past a power of two), in increasing order so that --budget-ms can extrapolate.
default_sizes="2^10,2^11,2^12,2^13,2^14,2^15,2^16,100000,2^17,2^18,2^19,1000000,2^20,2^21,4194303,2^22"
default_sizes="$default_sizes,2^23,2^24,2^24+1,2^25,2^26,2^27,2^28,2^29,2^30"
variants="" sizes=$default_sizes type=int32 op=sum mode=inclusive hot="" in_place=""
timeout_s=30 budget_ms=1000 process_limit=600 bin_dir=bin out="" gpus=""
while [ $# -gt 0 ]; do
  case "$1" in
    --variants) variants=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --type) type=$2; shift 2 ;;
    --op) op=$2; shift 2 ;;
    --exclusive) mode=exclusive; shift ;;
    --hot) hot=--hot; shift ;;
    --in-place) in_place=--in-place; shift ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --budget-ms) budget_ms=$2; shift 2 ;;
    --process-limit) process_limit=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

binaries=()
if [ -n "$variants" ]; then
  IFS=, read -r -a names <<<"$variants"
  for name in "${names[@]}"; do
    [ -x "$bin_dir/$name" ] || { echo "bench.sh: no binary $bin_dir/$name (run make)" >&2; exit 2; }
    binaries+=("$bin_dir/$name")
  done
else
  # The multi-GPU binaries have a sweep of their own (scripts/multi_gpu_bench.sh): their rows
  # spread one N over several GPUs and would not compare with the rest of this table.
  while read -r name; do binaries+=("$bin_dir/$name"); done < <(zoo_binaries "$bin_dir" --single-gpu)
fi
[ ${#binaries[@]} -gt 0 ] || { echo "bench.sh: no binaries in $bin_dir (run make)" >&2; exit 2; }

# Header: the GPU as the binaries see it, and what was built how. It names the default folder.
header=$("$(dirname "$0")/scripts/table_header.sh" "${binaries[0]}" "scan-zoo timing table" \
  "$([ -n "$hot" ] && echo hot || echo cold)" \
  "type=$type op=$op mode=$mode$([ -n "$in_place" ] && echo " in_place=yes") sizes=$sizes budget_ms=$budget_ms${gpus:+ gpus=$gpus}") || {
  echo "bench.sh: cannot query the GPU" >&2
  exit 4
}
[ -n "$out" ] || out=$(sweep_default_out "$header" timing.txt) || exit 4
sweep_start "$out" "$header" bench.sh
tmp=$sweep_tmp

IFS=, read -r -a all_sizes <<<"$sizes"
started=$SECONDS
index=0
for binary in "${binaries[@]}"; do
  index=$((index + 1))
  name=$(basename "$binary")
  remaining=("${all_sizes[@]}")
  while [ ${#remaining[@]} -gt 0 ]; do
    list=$(IFS=,; echo "${remaining[*]}")
    echo "[$index/${#binaries[@]}] $name n=$list ($((SECONDS - started)) s elapsed)" >&2
    spread=1 gpu_args=()
    if [ -n "$gpus" ] && [[ $name == multi_gpu_* ]]; then spread=$gpus gpu_args=(--gpus "$gpus"); fi
    child_started=$SECONDS
    sweep_run "$tmp.rows" "$tmp.err" timeout --kill-after=5 "$process_limit" "$binary" "$list" --type "$type" \
      --op "$op" "--$mode" --timeout "$timeout_s" --budget-ms "$budget_ms" $hot $in_place "${gpu_args[@]}"
    rc=$?
    # Keep only well-formed rows (12 fields, this variant's name first).
    awk -v name="$name" 'NF == 12 && $1 == name' "$tmp.rows" >"$tmp.good"
    cat "$tmp.good" >>"$tmp"
    done_rows=$(wc -l <"$tmp.good")
    [ "$done_rows" -ge ${#remaining[@]} ] && break
    # The process ended early. A binary that caught its own failure (watchdog, CUDA error) has
    # already printed a HANG/ERROR row for it; otherwise the first size without a row gets one.
    last_status=$(tail -n 1 "$tmp.good" | awk '{print $11}')
    echo "bench.sh: $name stopped early (exit $rc): $(tail -n 3 "$tmp.err" | tr '\n' ' ')" >&2
    if [ "$done_rows" -gt 0 ] && { [ "$last_status" = HANG ] || [ "$last_status" = ERROR ]; }; then
      remaining=("${remaining[@]:$done_rows}")
    else
      case $rc in
        124) status="HANG(process-limit-${process_limit}s)" ;;
        # SIGKILL: timeout's, after the limit and its grace, or another's (the out-of-memory killer).
        137) if [ $((SECONDS - child_started)) -ge "$process_limit" ]; then status="HANG(process-limit-${process_limit}s)"
             else status="KILLED(exit-137)"; fi ;;
        *) status="ERROR(exit-$rc)" ;;
      esac
      echo "$name $type $op $mode ${remaining[$done_rows]} 0 nan nan nan nan $status $spread" >>"$tmp"
      remaining=("${remaining[@]:$((done_rows + 1))}")
    fi
  done
done
sweep_finish "$out"
echo "bench.sh: wrote $out ($(grep -vc '^#' "$out") lines, $((SECONDS - started)) s)" >&2
