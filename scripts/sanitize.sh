#!/usr/bin/env bash
# sanitize.sh -- every binary under compute-sanitizer's memcheck, racecheck, synccheck, initcheck.
#
# At small and tile-boundary sizes, every type/op/mode, buffers allocated at exactly N
# (the harness allocates exactly N elements, so any overrun is outside an allocation).
# Prints one line per (tool, binary), a summary line per tool and a total; exit 1 if any run
# reported an error.
#   ./scripts/sanitize.sh [variant ...]       (default: every binary in bin/ but the multi_gpu_* ones)
set -u
cd "$(dirname "$0")/.."
command -v compute-sanitizer >/dev/null || { echo "sanitize.sh: compute-sanitizer not found" >&2; exit 2; }
binaries=("$@")
. scripts/binaries.sh
[ ${#binaries[@]} -gt 0 ] || mapfile -t binaries < <(zoo_binaries bin --single-gpu)

failures=0 runs=0 tool_summaries=()
for tool in memcheck racecheck synccheck initcheck; do
  tool_failures=0
  for name in "${binaries[@]}"; do
    tile=$(./bin/"$name" --help | sed -n 's/.*tile: \([0-9]*\) items.*/\1/p')
    [ "${tile:-0}" -gt 0 ] || tile=1024
    sizes="1,33,1025,$((tile - 1)),$((tile + 1)),$((2 * tile + 1)),$((3 * tile + 7))"
    log=$(mktemp)
    compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 \
      ./bin/"$name" "$sizes" --type int32,float32 --op sum,max --mode inclusive,exclusive \
      --check-only --timeout 120 >"$log" 2>&1
    rc=$?
    runs=$((runs + 1))
    summary=$(grep -m1 -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" || echo "no hazard reported")
    # Exit 3 is the binary's own answer for combinations it waives (e.g. float32 for a 30-bit
    # descriptor), not a sanitizer finding; the tool's findings exit with 99.
    if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
      failures=$((failures + 1)) tool_failures=$((tool_failures + 1))
      echo "FAIL $tool $name (exit $rc): $summary"
      grep -m 10 -E "=========   |Invalid|Race|hazard|Uninitialized|FAIL" "$log" | sed 's/^/    /'
    else
      echo "ok   $tool $name: $summary"
    fi
    rm -f "$log"
  done
  tool_summaries+=("$tool: ${#binaries[@]} binaries, $tool_failures with errors")
done
printf '%s\n' "${tool_summaries[@]}"
echo "sanitize: $runs runs, $failures failed"
[ $failures -eq 0 ]
