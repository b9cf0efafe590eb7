#!/usr/bin/env bash
# stress.sh -- re-verify variants many times with fresh random data, to catch rare races.
#
# The harness's --repeat, across sizes that straddle tile and hierarchy-level boundaries, and a few
# large sizes. A race that strikes one run in a thousand shows up here, not in the single verified
# run of the test suite.
#   scripts/stress.sh [--repeat K] [--single-pass-repeat K] [--large N[,N...]] [--large-repeat K]
#                     [--jobs J] [variant ...]
# Default: every binary in bin/; K = 200 rounds per size, 1000 for those whose tiles hand over to
# each other, as their --help says (their blocks talk through memory: the races live there); large sizes 2^24+1 and
# 2^26+5 at 10 rounds each (fresh data for a 2^26 scan costs the CPU more than the GPU); J = 4
# variants at once (the CPU reference is the bottleneck; the GPU has room). Lines appear as
# variants finish. Each variant runs
# int32 and float32 inclusive sum and int32 exclusive max (a non-invertible operator); those that
# take --segment-length each of those at the default segment length, 1 and 100000 as well.
# Sizes per variant, from its tile T (the binary's --help): 1, T-1, T, T+1, 2T+1, 33T-1, 257T+3,
# and for the hierarchical ones the second level's boundary T^2 and T^2+1 (with the large sizes
# when T^2 > 2^22). Prints one line per variant and a total; on stderr, after each variant, a
# counter (variants done of all) and an ETA. Exit codes: 0 every check passed; 1 a check failed;
# 2 a usage error or a missing binary.
set -u
cd "$(dirname "$0")/.."
repeat=200 single_pass_repeat=1000 large="2^24+1,2^26+5" large_repeat=10 jobs=4
while [ $# -gt 0 ]; do
  case $1 in
    --repeat) repeat=$2; shift 2 ;;
    --single-pass-repeat) single_pass_repeat=$2; shift 2 ;;
    --large) large=$2; shift 2 ;;
    --large-repeat) large_repeat=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "stress.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
variants=("$@")
. scripts/binaries.sh
. scripts/sweep.sh
[ ${#variants[@]} -gt 0 ] || mapfile -t variants < <(zoo_binaries bin)
for name in "${variants[@]}"; do
  [ -x "bin/$name" ] || { echo "stress.sh: no binary bin/$name (run make)" >&2; exit 2; }
done

count() { echo "$1" | tr ',' '\n' | grep -c .; }

# One variant: every combination at the small sizes (rounds K) and the large ones (fewer rounds).
# Prints its summary line; exit status 1 when anything failed.
stress_one() {
  local name=$1 tile rounds small big runs=0 failed=0 waived="" begin=$SECONDS
  tile=$(./bin/"$name" --help | sed -n 's/.*tile: \([0-9]*\) items.*/\1/p')
  [ "${tile:-0}" -gt 0 ] || tile=1024
  rounds=$repeat
  # The binaries whose tiles hand over to each other (a chain or a look-back over descriptors, as
  # their --help says) get the most rounds: their bugs are races. Those that take
  # --segment-length also run at the extreme segment lengths.
  hands_over_across_tiles "bin/$name" && rounds=$single_pass_repeat
  local lengths=("")
  takes_option "bin/$name" --segment-length && lengths=("" "--segment-length 1" "--segment-length 100000")
  small="1,$((tile - 1)),$tile,$((tile + 1)),$((2 * tile + 1)),$((33 * tile - 1)),$((257 * tile + 3))"
  big=$large
  if [[ $name == hierarchical_* ]]; then
    if [ $((tile * tile)) -le $((1 << 22)) ]; then small+=",$((tile * tile)),$((tile * tile + 1))"
    else big+=",$((tile * tile)),$((tile * tile + 1))"; fi
  fi
  for combo in "int32 sum inclusive" "float32 sum inclusive" "int32 max exclusive"; do
    for pass in "$small $rounds" "$big $large_repeat"; do
      for length in "${lengths[@]}"; do
        set -- $combo $pass
        out=$(./bin/"$name" "$4" --type "$1" --op "$2" --mode "$3" --repeat "$5" $length --check-only --timeout 300 \
              2>&1 >/dev/null)
        rc=$?
        # Exit 3: the variant refused something: this type/operator (nothing was run), or the
        # sizes beyond its limit (single_pass_scan_cluster: N <= 2^16), the others verified.
        verified=$(echo "$out" | grep -c "GPU vs CPU check: PASS")
        refused_sizes=$(echo "$out" | grep -c " n=[0-9]*: not supported:")
        [ "$refused_sizes" -gt 0 ] && [[ $waived != *"sizes over"* ]] && waived+=" (sizes over its limit waived)"
        if [ $rc -eq 3 ] && [ "$verified" -eq 0 ]; then
          [ "$refused_sizes" -gt 0 ] || [[ $waived == *"$1 $2 $3"* ]] || waived+=" ($1 $2 $3 waived)"
          continue
        fi
        runs=$((runs + $5 * verified))
        if [ $rc -ne 0 ] && { [ $rc -ne 3 ] || [ $((verified + refused_sizes)) -ne "$(count "$4")" ]; }; then
          failed=$((failed + 1))
          echo "$out" | grep -E "FAIL|watchdog|error" | head -5 | sed "s/^/    $name: /"
        fi
      done
    done
  done
  echo "$([ $failed -eq 0 ] && echo ok || echo FAIL) $name: $runs verified runs ($rounds per size at $small; $large_repeat at $big), $failed failing checks$waived, $((SECONDS - begin)) s"
  [ $failed -eq 0 ]
}

# Each variant's lines appear when it finishes (so a run cut short still shows what it did),
# followed on stderr by the counter.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
started=$SECONDS
# Waits for one running variant, then says how many are done. The ETA counts variants as equal
# work (sweep_eta, scripts/sweep.sh): rough, since a single-pass variant runs five times the rounds.
finish_one() {
  wait -n
  running=$((running - 1)) finished=$((finished + 1))
  echo "stress.sh: $finished/${#variants[@]} variants done, $((SECONDS - started)) s," \
    "$(sweep_eta $((SECONDS - started)) "$finished" ${#variants[@]})" >&2
}
running=0 finished=0
for name in "${variants[@]}"; do
  { stress_one "$name" >"$logs/$name.log" 2>&1; echo $? >"$logs/$name.rc"; cat "$logs/$name.log"; } &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then finish_one; fi
done
while [ $running -gt 0 ]; do finish_one; done
failures=0 total=0
for name in "${variants[@]}"; do
  [ "$(cat "$logs/$name.rc")" = 0 ] || failures=$((failures + 1))
  total=$((total + $(sed -n 's/^[A-Za-z]* [^:]*: \([0-9]*\) verified runs.*/\1/p' "$logs/$name.log" | tail -1)))
done
echo "stress: ${#variants[@]} variants, $total verified runs, $failures with failures"
[ $failures -eq 0 ]
