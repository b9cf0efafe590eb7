#!/usr/bin/env bash
# axis_bench.sh -- the sweep along an axis: scans along rows and down columns, beside copies.
#
# Issue 33 (bench/NOTES.md, "Scans along an axis"): scans along the rows of [rows, length] arrays
# and down the columns of [rows, columns] arrays, at the issue's shapes and around them, each beside
# a copy of the same bytes, CUB's ways (scan-by-key over row ids, a scan per row or per column),
# CUB's scan of the whole array as one line, and torch / CuPy's cumsum along the same axis.
#
#   scripts/axis_bench.sh [--out-dir DIR] [--types int32,float32,int64] [--lengths L,...]
#                         [--columns C,...] [bench.sh options]
#
# One bench.sh call per (type, row length) and per (type, column count), its sizes whole numbers
# of rows (bench.sh --row-length / --columns), into DIR/<type>_length<L>.txt and
# DIR/<type>_columns<C>.txt (default DIR: results/<gpu>/axis; the committed reference is
# bench/<gpu>/axis, written only when named). Shapes (N in elements):
#   rows of 3, 32, 128          many to a tile: 2^20 .. 2^26 elements
#   rows of 1024                64 x 1024 (the issue's in-between shape) .. 2^18 x 1024
#   rows of 32768               64, 512 and 4096 rows
#   rows of 131072, 262144      8, 64 and 512 rows (the issue's table)
#   2, 3, 4, 8 columns          2^20 .. 2^26 elements
#   64 columns                  2^14, 2^17 (the issue's 131072 x 64) and 2^20 rows
#   512 columns                 2^12, 2^15 and 2^18 rows (the issue's 262144 x 512)
#   4096 columns                2^8, 2^12 and 2^14 rows
# An empty list or none (--lengths "", --columns none: the word survives an unquoted variable,
# scripts/device_session.sh's AXIS_ARGS) leaves that axis out. Other bench.sh options
# (--hot, --reps ...) pass through. Exit: bench.sh's worst.
set -u
cd "$(dirname "$0")/.."
out_dir="" types=int32,float32,int64 lengths=3,32,128,1024,32768,131072,262144 columns=2,3,8,64,512,4096 extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out-dir) out_dir=$2; shift 2 ;;
    --types) types=$2; shift 2 ;;
    --lengths) lengths=$2; shift 2 ;;
    --columns) columns=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; exit 0 ;;
    *) extra+=("$1"); shift ;;
  esac
done
[ "$lengths" = none ] && lengths=""
[ "$columns" = none ] && columns=""
if [ -z "$out_dir" ]; then
  gpu=$(bin/memcpy_baseline --device-info | "${PYTHON:-python3}" -m scripts gpu-slug) || exit 4
  out_dir=results/$gpu/axis
fi
mkdir -p "$out_dir"

# The sizes of a row length or a column count: whole numbers of rows, as listed above.
sizes_of() {
  case $1:$2 in
    length:3|columns:3) echo 3145728,12582912,50331648 ;;
    length:32|length:128|columns:2|columns:4|columns:8) echo 2^20,2^22,2^24,2^26 ;;
    length:1024) echo 2^16,2^20,2^22,2^24,2^26,2^28 ;;
    length:32768|length:262144) echo 2^21,2^24,2^27 ;;
    length:131072) echo 2^20,2^23,2^26 ;;
    columns:64) echo 2^20,2^23,2^26 ;;
    columns:512) echo 2^21,2^24,2^27 ;;
    columns:4096) echo 2^20,2^24,2^26 ;;
    *) echo "axis_bench.sh: no sizes for $1 $2 (see --help)" >&2; return 2 ;;
  esac
}

code=0
IFS=, read -r -a type_list <<<"$types"
IFS=, read -r -a length_list <<<"$lengths"
IFS=, read -r -a column_list <<<"$columns"
for type in "${type_list[@]}"; do
  for axis in length columns; do
    if [ $axis = length ]; then extents=("${length_list[@]}") option=--row-length
    else extents=("${column_list[@]}") option=--columns; fi
    for extent in "${extents[@]}"; do
      sizes=$(sizes_of $axis "$extent") || exit 2
      ./bench.sh "$option" "$extent" --sizes "$sizes" --type "$type" --out "$out_dir/${type}_$axis$extent.txt" \
        "${extra[@]}"
      status=$?
      [ $status -gt $code ] && code=$status
    done
  done
done
exit $code
