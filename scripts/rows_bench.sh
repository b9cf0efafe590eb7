#!/usr/bin/env bash
# rows_bench.sh -- the rows sweep (issue 33; bench/NOTES.md, "Scans along an axis"): scans along
# the last axis of [rows, length] arrays, at the issue's shapes and the row lengths around them,
# each beside a copy of the same bytes, CUB's two ways (scan-by-key over row ids, one scan per
# row), CUB's scan of the whole array as one row, and torch / CuPy's cumsum along the last axis.
#
#   scripts/rows_bench.sh [--out-dir DIR] [--types int32,float32,int64] [--lengths L,L,...] [bench.sh options]
#
# One bench.sh call per (type, row length), its sizes whole numbers of rows (bench.sh
# --row-length), into DIR/<type>_length<L>.txt (default DIR: results/<gpu>/rows; the committed
# reference is bench/<gpu>/rows, written only when named). Shapes, rows x length (N in elements):
#   length 3, 32, 128           short rows, many to a tile: 2^20 .. 2^26 elements
#   length 1024                 64 x 1024 (the issue's in-between shape) .. 2^18 x 1024
#   length 32768                64 x 32768 .. 4096 x 32768
#   length 131072               8, 64 and 512 x 131072 (the issue's table)
#   length 262144               8, 64 and 512 x 262144 (512 x 262144: the issue's largest)
# Other bench.sh options (--hot, --reps ...) pass through. Exit: bench.sh's worst.
set -u
cd "$(dirname "$0")/.."
source scripts/binaries.sh
out_dir="" types=int32,float32,int64 lengths=3,32,128,1024,32768,131072,262144 extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out-dir) out_dir=$2; shift 2 ;;
    --types) types=$2; shift 2 ;;
    --lengths) lengths=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; exit 0 ;;
    *) extra+=("$1"); shift ;;
  esac
done
if [ -z "$out_dir" ]; then
  gpu=$(bin/memcpy_baseline --device-info | "${PYTHON:-python3}" scripts/gpu_slug.py) || exit 4
  out_dir=results/$gpu/rows
fi
mkdir -p "$out_dir"

# The sizes of a row length: whole numbers of rows, as listed above.
sizes_of() {
  case $1 in
    3) echo 3145728,12582912,50331648 ;;      # 2^20, 2^22, 2^24 rows of 3
    32) echo 2^20,2^22,2^24,2^26 ;;
    128) echo 2^20,2^22,2^24,2^26 ;;
    1024) echo 2^16,2^20,2^22,2^24,2^26,2^28 ;;  # 64 .. 2^18 rows
    32768) echo 2^21,2^24,2^27 ;;                # 64, 512, 4096 rows
    131072) echo 2^20,2^23,2^26 ;;               # 8, 64, 512 rows
    262144) echo 2^21,2^24,2^27 ;;               # 8, 64, 512 rows
    *) echo "rows_bench.sh: no sizes for row length $1 (lengths: 3,32,128,1024,32768,131072,262144)" >&2; return 2 ;;
  esac
}

code=0
IFS=, read -r -a type_list <<<"$types"
IFS=, read -r -a length_list <<<"$lengths"
for type in "${type_list[@]}"; do
  for length in "${length_list[@]}"; do
    sizes=$(sizes_of "$length") || exit 2
    ./bench.sh --row-length "$length" --sizes "$sizes" --type "$type" --out "$out_dir/${type}_length$length.txt" \
      "${extra[@]}"
    status=$?
    [ $status -gt $code ] && code=$status
  done
done
exit $code
