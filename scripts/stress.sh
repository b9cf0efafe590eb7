#!/usr/bin/env bash
# stress.sh -- re-verify variants many times with fresh random data (the harness's --repeat),
# across sizes that straddle tile boundaries and one large size. A race that strikes one run in
# a hundred shows up here, not in the single verified run of the test suite.
#   scripts/stress.sh [--repeat K] [--large N] [variant ...]
# Default: the single-pass variants (inter-block protocols), K = 200, large N = 2^24+1, int32
# and float32 inclusive sum plus int32 exclusive max. Prints one line per variant; exit 1 on
# any failure.
set -u
cd "$(dirname "$0")/.."
repeat=200 large="2^24+1"
while [ $# -gt 0 ]; do
  case $1 in
    --repeat) repeat=$2; shift 2 ;;
    --large) large=$2; shift 2 ;;
    *) break ;;
  esac
done
variants=("$@")
[ ${#variants[@]} -gt 0 ] || for path in bin/single_pass_*; do variants+=("$(basename "$path")"); done

failures=0
for name in "${variants[@]}"; do
  tile=$(./bin/"$name" --help | sed -n 's/.*tile: \([0-9]*\) items.*/\1/p')
  [ "${tile:-0}" -gt 0 ] || tile=1024
  sizes="1,$((tile - 1)),$tile,$((tile + 1)),$((2 * tile + 1)),$((33 * tile - 1)),$((257 * tile + 3)),$large"
  begin=$SECONDS
  runs=0 failed=0 waived=""
  for combo in "int32 sum inclusive" "float32 sum inclusive" "int32 max exclusive"; do
    set -- $combo
    out=$(./bin/"$name" "$sizes" --type "$1" --op "$2" --mode "$3" --repeat "$repeat" --check-only --timeout 60 2>&1 >/dev/null)
    rc=$?
    if [ $rc -eq 3 ]; then  # the variant refuses this type/operator (exit 3): nothing was run
      waived+=" ($combo waived)"
      continue
    fi
    runs=$((runs + repeat * $(echo "$sizes" | tr ',' '\n' | wc -l)))
    if [ $rc -ne 0 ]; then
      failed=$((failed + 1))
      echo "$out" | grep -E "FAIL|watchdog|error" | head -5 | sed "s/^/    $name: /"
    fi
  done
  [ $failed -eq 0 ] || failures=$((failures + 1))
  echo "$([ $failed -eq 0 ] && echo ok || echo FAIL) $name: $runs verified runs ($repeat per size, sizes $sizes), $failed failing combinations$waived, $((SECONDS - begin)) s"
done
echo "stress: ${#variants[@]} variants, $failures with failures"
[ $failures -eq 0 ]
