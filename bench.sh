#!/usr/bin/env bash
# bench.sh -- run every binary in bin/ over a list of sizes and collect the rows in a timing
# table (format: docs/bench.md), by default
# results/<gpu>/timing.txt, with timing.json (the same data as JSON) beside it.
#
#   ./bench.sh                         every variant, default sizes, int32 inclusive sum, cold L2
#   ./bench.sh --variants cub_scan,memcpy_baseline --sizes 2^20,2^28
#   ./bench.sh --type float32 --op max --exclusive --hot --out /tmp/t.txt
#   ./bench.sh --out bench/h100/timing.txt      replace the committed reference table (maintainers)
#
# <gpu> is the GPU's short name (h100, h200: scripts/gpu_slug.py on the first binary's
# --device-info), so that each GPU's results have a folder of their own. results/ is ignored by
# git: a sweep never overwrites the reference data committed in bench/<gpu>/ unless --out names
# it. Compare a sweep with the reference: python3 -m scripts compare bench/h100/timing.txt
# results/h100/timing.txt; draw its charts: make plots FROM=results/h100.
# Default: int32 inclusive sum at every power of two from 2^10 to 2^30 plus a few awkward sizes.
# One process per binary runs its whole size list (a CUDA context costs ~0.2 s to create). If a
# process dies or is killed before it printed a row for every size, the first size without a row
# gets a HANG or ERROR row and the sweep resumes with the next size in a fresh process: failures
# are rows, never gaps. The table is written to a temporary file and renamed over the old one
# only when the sweep is complete, so an interrupted sweep leaves the previous results intact.
# Progress goes to stderr, one line per row as the binaries print them, with an ETA.
# Exit codes: 0 the table is written (failures are rows in it); 2 a usage error or a missing
# binary; 4 the GPU cannot be queried; 130 interrupted (the previous table left as it was).
set -u

script_dir=$(dirname "$0")
. "$script_dir/scripts/binaries.sh"
. "$script_dir/scripts/sweep.sh"

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
  cat <<'EOF_USAGE'

options:
  --variants a,b      binaries to run (default: every file in the binary folder but the
                      multi_gpu_* ones, which scripts/multi_gpu_bench.sh sweeps), and the
                      framework rows torch_cumsum, cupy_cumsum, jax_cumsum, cuda_compute_scan
                      (NVIDIA's cuda.compute), and the zoo's scan from Python, scan_zoo_torch,
                      scan_zoo_cupy and scan_zoo_jax (scripts/framework_scans.py; in the default
                      too, for the int32/float32 inclusive sum; make bench installs the scan_zoo
                      package first)
  --sizes LIST        comma list of N, increasing (default: 2^10 .. 2^30 and 100000, 1000000,
                      4194303, 2^24+1)
  --type T, --op O    element type and operator (default int32, sum)
  --exclusive         exclusive scans (default inclusive)
  --hot               do not flush L2 between timed reps
  --row-length L      a rows sweep: each N is N / L rows of L, scanned along the last axis by the
                      binaries that take --row-length (their --help says so: src/axis/), beside
                      memcpy_baseline, cub_scan and single_pass_scan_tuned of the same N and the
                      framework rows' cumsum along the last axis (default variants: those, but
                      cuda_compute_scan, which scans one array only); the rows' mode is
                      inclusive-lengthL. Every N must be a multiple of L
  --columns C         a columns sweep, the same down the columns of N / C rows of C (the binaries
                      that take --columns; the frameworks' cumsum along axis 0); mode
                      inclusive-columnsC
  --segment-length L  a segments sweep: the binaries that take --segment-length (the segmented
                      scans) scan random segments of mean length L (1: every element its own
                      segment; more than N: one segment), beside memcpy_baseline and cub_scan
                      (default variants: those); the header's sweep line says segment-length=L
  --in-place          scan in place (the binaries' --in-place; the header's sweep line says so;
                      binaries whose problem cannot run in place give WAIVED rows)
  --timeout SEC       watchdog for one GPU step inside a binary (default 30)
  --budget-ms MS      a binary skips (SKIPPED row) an N whose one run would exceed MS,
                      extrapolated from its smaller N (default 1000: keeps the serial
                      scan from eating the sweep; the whole zoo then sweeps in ~9 minutes
                      on an H100)
  --process-limit SEC wall-clock limit for one binary process (default 600)
  --part K/N          the K-th of N parts of the sweep (1 <= K <= N): memcpy_baseline and
                      cub_scan in every part, the other binaries and the framework rows
                      dealt out in turn; the header says "# part: K/N". For sessions that
                      cannot run the whole sweep at once (the zoo takes ~11 minutes on an
                      H100): run every part on one machine, then join them with
                      scripts/merge_tables.py
  --gpus G            passed to the multi-GPU binaries (multi_gpu_*) only: spread each N over
                      G GPUs (scripts/multi_gpu_bench.sh sweeps them this way)
  --bin-dir DIR       where the binaries are (default bin)
  --out FILE          result table (default results/<gpu>/timing.txt, <gpu> as above; the
                      committed reference is written only when named: --out bench/<gpu>/timing.txt);
                      its JSON goes beside it, FILE with .json for .txt
environment:
  PYTHON              the interpreter that writes the JSON (default python3; it needs pandas)
EOF_USAGE
}

# Default sizes: every power of two from 2^10 to 2^30 plus awkward sizes (not a power of two,
# one past a power of two), in increasing order so that --budget-ms can extrapolate.
default_sizes="2^10,2^11,2^12,2^13,2^14,2^15,2^16,100000,2^17,2^18,2^19,1000000,2^20,2^21,4194303,2^22"
default_sizes="$default_sizes,2^23,2^24,2^24+1,2^25,2^26,2^27,2^28,2^29,2^30"
variants="" sizes=$default_sizes type=int32 op=sum mode=inclusive hot="" in_place="" axis_option="" axis_extent=""
segment_length=""
timeout_s=30 budget_ms=1000 process_limit=600 bin_dir=bin out="" gpus="" part=""
while [ $# -gt 0 ]; do
  case "$1" in
    --variants) variants=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --type) type=$2; shift 2 ;;
    --op) op=$2; shift 2 ;;
    --exclusive) mode=exclusive; shift ;;
    --hot) hot=--hot; shift ;;
    --in-place) in_place=--in-place; shift ;;
    --row-length|--columns)
      [ -z "$axis_option" ] || { echo "bench.sh: give one of --row-length and --columns" >&2; exit 2; }
      axis_option=$1 axis_extent=$2; shift 2 ;;
    --segment-length) segment_length=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --budget-ms) budget_ms=$2; shift 2 ;;
    --process-limit) process_limit=$2; shift 2 ;;
    --bin-dir) bin_dir=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --part) part=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# The scans Python users call, rows of scripts/framework_scans.py rather than binaries.
framework_variants=(torch_cumsum cupy_cumsum jax_cumsum cuda_compute_scan scan_zoo_torch scan_zoo_cupy scan_zoo_jax)
# Those that scan along an axis (cuda.compute scans one array).
axis_framework_variants=(torch_cumsum cupy_cumsum jax_cumsum scan_zoo_torch scan_zoo_cupy scan_zoo_jax)
binaries=() frameworks=()
if [ -n "$variants" ]; then
  IFS=, read -r -a names <<<"$variants"
  for name in "${names[@]}"; do
    if [[ " ${framework_variants[*]} " == *" $name "* ]]; then frameworks+=("$name"); continue; fi
    [ -x "$bin_dir/$name" ] || { echo "bench.sh: no binary $bin_dir/$name (run make)" >&2; exit 2; }
    binaries+=("$bin_dir/$name")
  done
elif [ -n "$axis_option" ] || [ -n "$segment_length" ]; then
  # A sweep along an axis, or of segments: the binaries that scan them (their --help says they
  # take the option), beside a copy of the same bytes, CUB's scan of the whole array and the
  # zoo's (single_pass_scan_tuned, where built: what a batch of lines should cost, issue 33);
  # the frameworks' cumsum along the axis (they have no segmented scan).
  binaries=("$bin_dir/memcpy_baseline" "$bin_dir/cub_scan")
  [ -x "$bin_dir/single_pass_scan_tuned" ] && binaries+=("$bin_dir/single_pass_scan_tuned")
  while read -r name; do
    { [ -n "$axis_option" ] && takes_option "$bin_dir/$name" "$axis_option"; } ||
      { [ -n "$segment_length" ] && takes_option "$bin_dir/$name" --segment-length; } && binaries+=("$bin_dir/$name")
  done < <(zoo_binaries "$bin_dir" --single-gpu)
  [ -n "$axis_option" ] && frameworks=("${axis_framework_variants[@]}")
else
  # The multi-GPU binaries have a sweep of their own (scripts/multi_gpu_bench.sh): their rows
  # spread one N over several GPUs and would not compare with the rest of this table.
  while read -r name; do binaries+=("$bin_dir/$name"); done < <(zoo_binaries "$bin_dir" --single-gpu)
  frameworks=("${framework_variants[@]}")
fi
[ ${#binaries[@]} -gt 0 ] || { echo "bench.sh: no binaries in $bin_dir (run make)" >&2; exit 2; }
# The frameworks' rows exist for what they compute: an int32 or float32 inclusive sum of its own
# output buffer, on one GPU.
if [ ${#frameworks[@]} -gt 0 ] && { [ "$op/$mode" != sum/inclusive ] || [ -n "$in_place" ] || [ -n "$gpus" ] ||
                                    [[ $type != int32 && $type != float32 ]]; }; then
  echo "bench.sh: no ${frameworks[*]} rows: they run the int32/float32 inclusive sum, out of place, on one GPU" >&2
  frameworks=()
fi

# --part K/N: the anchors (memcpy_baseline, cub_scan) in every part, against which each part's
# rows are read; every other binary, then the framework rows as one item, dealt out in turn.
if [ -n "$part" ]; then
  [[ $part =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] && [ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[2]}" ] ||
    { echo "bench.sh: --part expects K/N with 1 <= K <= N, e.g. 2/3 (got '$part')" >&2; exit 2; }
  part_k=${BASH_REMATCH[1]} part_n=${BASH_REMATCH[2]}
  anchors=() dealt=()
  for binary in "${binaries[@]}"; do
    case $(basename "$binary") in memcpy_baseline|cub_scan) anchors+=("$binary") ;; *) dealt+=("$binary") ;; esac
  done
  [ ${#frameworks[@]} -gt 0 ] && dealt+=(frameworks)
  binaries=("${anchors[@]}") part_frameworks=()
  for i in "${!dealt[@]}"; do
    [ $((i % part_n + 1)) -eq "$part_k" ] || continue
    if [ "${dealt[$i]}" = frameworks ]; then part_frameworks=("${frameworks[@]}"); else binaries+=("${dealt[$i]}"); fi
  done
  frameworks=("${part_frameworks[@]}")
  [ ${#binaries[@]} -gt 0 ] || { echo "bench.sh: part $part has no binary (name memcpy_baseline or cub_scan among the variants)" >&2; exit 2; }
fi

# The sweep's work, for the ETA of the progress lines (sweep_work in scripts/sweep.sh): the
# work of the size list, once per binary.
IFS=, read -r -a all_sizes <<<"$sizes"
list_work=0
for size in "${all_sizes[@]}"; do
  elements=$(sweep_elements "$size") || { echo "bench.sh: bad size in --sizes '$sizes'" >&2; exit 2; }
  list_work=$((list_work + $(sweep_work "$elements")))
done
total_work=$((list_work * ${#binaries[@]})) total_rows=$((${#all_sizes[@]} * ${#binaries[@]}))

# Header: the GPU as the binaries see it, and what was built how. It names the default folder.
header=$("$script_dir/scripts/table_header.sh" "${binaries[0]}" "scan-zoo timing table" \
  "$([ -n "$hot" ] && echo hot || echo cold)" \
  "type=$type op=$op mode=$mode$([ -n "$in_place" ] && echo " in_place=yes")${axis_option:+ ${axis_option#--}=$axis_extent}${segment_length:+ segment-length=$segment_length} sizes=$sizes budget_ms=$budget_ms${gpus:+ gpus=$gpus}") || {
  echo "bench.sh: cannot query the GPU" >&2
  exit 4
}
[ -n "$out" ] || out=$(sweep_default_out "$header" results "timing${part:+_part${part_k}of${part_n}}.txt") || exit 4
# The rows' columns, as the binaries state them (the header's last line): a row is well formed
# when it has that many fields, and its status and median are found by name.
columns=${header##*$'\n'}
# A part says which it is, on a line of its own (not the sweep line, which the parts share).
[ -n "$part" ] && header="${header%$'\n'*}"$'\n'"# part: $part"$'\n'"$columns"
read -r -a column_names <<<"$columns"
for i in "${!column_names[@]}"; do
  case ${column_names[$i]} in status) status_field=$i ;; median_ms) median_field=$i ;; esac
done
sweep_start "$out" "$header" bench.sh
tmp=$sweep_tmp

# One progress line (stderr) for a row of the table.
report_row() {
  local fields
  read -r -a fields <<<"$1"
  local n=${fields[4]} status=${fields[$status_field]}
  rows_done=$((rows_done + 1)) work_done=$((work_done + $(sweep_work "$n")))
  echo "bench.sh: [$index/${#binaries[@]}] $name n=$n $status$([ "$status" = PASS ] && echo " median ${fields[$median_field]} ms")" \
    "($rows_done/$total_rows rows, $((SECONDS - started)) s, $(sweep_eta $((SECONDS - started)) "$work_done" "$total_work"))" >&2
}

# Called by sweep_run while a binary runs: reports the rows it has printed since the last call
# (whole lines only; the binaries flush each row as they print it).
sweep_on_progress() {
  local complete line
  complete=$(wc -l <"$tmp.rows")
  while IFS= read -r line; do report_row "$line"; done < <(
    awk -v name="$name" -v fields=${#column_names[@]} -v from="$lines_seen" -v to="$complete" \
      'NR > from && NR <= to && NF == fields && $1 == name' "$tmp.rows")
  lines_seen=$complete
}

started=$SECONDS rows_done=0 work_done=0
index=0
for binary in "${binaries[@]}"; do
  index=$((index + 1))
  name=$(basename "$binary")
  remaining=("${all_sizes[@]}")
  while [ ${#remaining[@]} -gt 0 ]; do
    list=$(IFS=,; echo "${remaining[*]}")
    echo "bench.sh: [$index/${#binaries[@]}] $name, sizes ${remaining[0]} .. ${remaining[-1]} (${#remaining[@]})" >&2
    spread=1 gpu_args=() axis_args=() segment_args=() row_mode=$mode
    if [ -n "$gpus" ] && [[ $name == multi_gpu_* ]]; then spread=$gpus gpu_args=(--gpus "$gpus"); fi
    if [ -n "$axis_option" ] && takes_option "$binary" "$axis_option"; then
      axis_args=("$axis_option" "$axis_extent")
      row_mode=$mode-$([ "$axis_option" = --columns ] && echo columns || echo length)$axis_extent
    fi
    [ -n "$segment_length" ] && takes_option "$binary" --segment-length && segment_args=(--segment-length "$segment_length")
    child_started=$SECONDS
    # Emptied here, not by the child's redirection, so that the first progress poll cannot
    # read the previous process's rows.
    : >"$tmp.rows"
    lines_seen=0
    sweep_run "$tmp.rows" "$tmp.err" timeout --kill-after=5 "$process_limit" "$binary" "$list" --type "$type" \
      --op "$op" "--$mode" --timeout "$timeout_s" --budget-ms "$budget_ms" $hot $in_place "${gpu_args[@]}" \
      "${axis_args[@]}" "${segment_args[@]}"
    rc=$?
    # Keep only well-formed rows (every column, this variant's name first).
    awk -v name="$name" -v fields=${#column_names[@]} 'NF == fields && $1 == name' "$tmp.rows" >"$tmp.good"
    cat "$tmp.good" >>"$tmp"
    done_rows=$(wc -l <"$tmp.good")
    [ "$done_rows" -ge ${#remaining[@]} ] && break
    # The process ended early. A binary that caught its own failure (watchdog, CUDA error) has
    # already printed a HANG/ERROR row for it; otherwise the first size without a row gets one.
    last_status=$(tail -n 1 "$tmp.good" | awk -v field=$((status_field + 1)) '{print $field}')
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
      failure_row=$(sweep_failure_row "$columns" "$name" "$type" "$op" "$row_mode" \
        "$(sweep_elements "${remaining[$done_rows]}")" "$status" "$spread")
      echo "$failure_row" >>"$tmp"
      report_row "$failure_row"
      remaining=("${remaining[@]:$((done_rows + 1))}")
    fi
  done
done
# By the binaries' protocol (scripts/framework_scans.py), one process a framework, as each binary
# has its own: no framework's runtime (JAX's XLA client and its memory, CuPy's pools) is alive
# while another is measured. A framework that is not importable, or a Python without numpy, gives
# SKIPPED rows or a line here: the sweep goes on.
[ ${#frameworks[@]} -gt 0 ] && echo "bench.sh: ${frameworks[*]} (scripts/framework_scans.py)" >&2
for framework in "${frameworks[@]}"; do
  : >"$tmp.rows"
  scripts_command framework-scans "$sizes" --type "$type" $hot \
    --variants "$framework" ${axis_option:+"$axis_option" "$axis_extent"} >"$tmp.rows" 2>"$tmp.err"
  rc=$?
  awk -v fields=${#column_names[@]} 'NF == fields' "$tmp.rows" >>"$tmp"
  { [ $rc -eq 0 ] || [ $rc -eq 1 ] || [ $rc -eq 4 ]; } ||
    echo "bench.sh: scripts/framework_scans.py --variants $framework failed (exit $rc): $(tail -n 3 "$tmp.err" | tr '\n' ' ')" >&2
  grep -h 'not importable\|sees no GPU\|no usable' "$tmp.err" >&2
done
sweep_finish "$out"
echo "bench.sh: wrote $out ($(grep -vc '^#' "$out") lines, $((SECONDS - started)) s)" >&2

# The same table as JSON (scripts/timing_json.py), for tools that read nvbench's; removed first,
# so that a JSON left beside the table always describes it.
json=${out%.txt}.json
rm -f "$json"
scripts_command timing-json "$out" -o "$json" ||
  echo "bench.sh: warning: $json not written (the table is complete; see above)" >&2
