#!/usr/bin/env bash
# multi_gpu_bench.sh -- the sweep of the scans across GPUs, into results/<gpu>_x<G>/timing.txt.
#
# That folder is the default (ignored by git; the committed reference,
# bench/multi_gpu/<gpu>_x<G>/timing.txt, is written only when --out names it).
#
#   ./scripts/multi_gpu_bench.sh                  every visible GPU, per-GPU shards 2^20 .. 2^34
#   ./scripts/multi_gpu_bench.sh --gpus 2 --per-gpu 2^24,2^28
#   ./scripts/multi_gpu_bench.sh --gpus 8 --out bench/multi_gpu/h200_x8/timing.txt
#
# One bench.sh sweep (same rows, header, failure handling, interrupt safety, progress and JSON)
# of, at global N = G x the per-GPU size:
#   multi_gpu_memcpy          the aggregate ceiling: every GPU copies its own shard at once
#   multi_gpu_scan            reduce, all-gather the totals, scan with the carry in front
#   multi_gpu_scan_then_add   the baseline: scan, all-gather, add the carry
#   single_pass_scan_tuned    the same N on one GPU, where it fits (else a SKIPPED row)
# make plots FROM=results/<gpu>_x<G> then draws aggregate_gbps.png beside the table (make plots
# alone draws the reference's).
# Exit codes: bench.sh's; 2 also when bin/multi_gpu_scan is missing, 4 when no GPU is visible.
set -u
gpus="" per_gpu="2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28,2^29,2^30,2^31,2^32,2^33,2^34" out="" extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --gpus) gpus=$2; shift 2 ;;
    --per-gpu) per_gpu=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
               echo "other options go to bench.sh (e.g. --type, --exclusive)"; exit 0 ;;
    *) extra+=("$1"); shift ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$root/bin/multi_gpu_scan" ] || { echo "multi_gpu_bench.sh: no bin/multi_gpu_scan (run make, on a machine with NCCL: make says when it skips the multi_gpu_* binaries for lack of it)" >&2; exit 2; }
if [ -z "$gpus" ]; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') || true
  [ "${gpus:-0}" -ge 1 ] || { echo "multi_gpu_bench.sh: no GPU visible" >&2; exit 4; }
fi
# Global sizes: G x each per-GPU size (the binaries' syntax, scripts/sizes.py), as plain integers.
sizes=$(cd "$root" && "${PYTHON:-python3}" - "$per_gpu" "$gpus" <<'PY'
import sys
from scripts.sizes import parse_sizes
try:
    print(",".join(str(n * int(sys.argv[2])) for n in parse_sizes(sys.argv[1])))
except ValueError as error:
    sys.exit(f"multi_gpu_bench.sh: --per-gpu: {error}")
PY
) || exit 2
if [ -z "$out" ]; then
  slug=$("$root/bin/multi_gpu_scan" --device-info | (cd "$root" && "${PYTHON:-python3}" -m scripts gpu-slug)) || exit 4
  out="$root/results/${slug}_x${gpus}/timing.txt"
fi
exec "$root/bench.sh" --variants multi_gpu_memcpy,multi_gpu_scan,multi_gpu_scan_then_add,single_pass_scan_tuned \
  --gpus "$gpus" --sizes "$sizes" --out "$out" "${extra[@]}"
