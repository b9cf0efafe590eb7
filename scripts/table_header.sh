#!/usr/bin/env bash
# table_header.sh -- the '#' header of a timing or tuning table: GPU, commit, build, sweep.
#
#   scripts/table_header.sh BINARY TITLE L2 SWEEP
# prints the header shared by bench/<gpu>/timing.txt and bench/<gpu>/tuning.txt: the GPU as BINARY
# sees it (--device-info), the commit, nvcc and build flags, cold/hot L2 and a description of the
# sweep. Exit code 4 when the GPU cannot be queried.
set -u
binary=$1 title=$2 l2=$3 sweep=$4
device_info=$("$binary" --device-info 2>&1) || { echo "$device_info" >&2; exit 4; }
echo "# $title"
echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
# SCAN_ZOO_COMMIT names the commit where the tree has no .git (e.g. a copy sent to a GPU box).
if [ -n "${SCAN_ZOO_COMMIT:-}" ]; then commit=$SCAN_ZOO_COMMIT
elif commit=$(git rev-parse --short HEAD 2>/dev/null); then
  git diff --quiet HEAD -- src tune Makefile 2>/dev/null || commit="$commit+uncommitted-src"
else commit=unknown; fi
echo "# git_commit: $commit"
echo "$device_info"
echo "# nvcc: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo unknown)"
echo "# build_flags: $(make -s print-flags 2>/dev/null || echo unknown)"
echo "# l2: $l2"
echo "# sweep: $sweep"
# The column line, as the binary states its rows in --help (src/core/rows.hpp).
columns=$("$binary" --help 2>/dev/null | sed -n 's/^stdout: one row per combination: //p')
[ -n "$columns" ] || { echo "table_header.sh: $binary --help names no row columns" >&2; exit 4; }
echo "$columns"
