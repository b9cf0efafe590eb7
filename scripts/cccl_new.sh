#!/usr/bin/env bash
# cccl_new.sh -- the headers of a CCCL newer than the toolkit's, for the one binary that needs them.
#
# That binary is bin/cub_device_segmented_scan, CUB's DeviceSegmentedScan, which the toolkit's CCCL
# 3.0 lacks. They come from the Python package index's nvidia-cuda-cccl (about 4 MB) and are
# unpacked once into DIR/include; nothing is installed, and no other binary sees them (Makefile).
#
#   scripts/cccl_new.sh DIR        (make uses build/cccl-new)
#
# The wheel is taken from .whl/ when one is there (a GPU machine without network gets it carried:
# python3 -m pip download --no-deps -d .whl nvidia-cuda-cccl==VERSION), else downloaded.
# Exit codes: 0 DIR/include is ready; 2 unpacking failed; 3 the package index cannot be reached
# (or this Python has no pip) and .whl/ holds no wheel of it: the binary is then left out.
set -u
cd "$(dirname "$0")/.."
dir=$(realpath -m "${1:?usage: scripts/cccl_new.sh DIR}")
python=${PYTHON:-python3}
version=13.3.5.0.6
stamp="$dir/UNPACKED_FROM"
[ -f "$dir/include/cub/device/device_segmented_scan.cuh" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ] && exit 0

work="$dir.partial"
rm -rf "$work" "$dir"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
wheel=$(ls .whl/nvidia_cuda_cccl-"$version"-*.whl 2>/dev/null | head -n 1)
if [ -z "$wheel" ]; then
  "$python" -m pip download --disable-pip-version-check --quiet --retries 1 --timeout 30 --no-deps --dest "$work" \
    "nvidia-cuda-cccl==$version" >"$work/pip.log" 2>&1 || {
    cat "$work/pip.log" >&2
    echo "cccl_new.sh: the Python package index cannot be reached (or lacks nvidia-cuda-cccl==$version), and .whl/ holds no such wheel" >&2
    exit 3
  }
  wheel=$(ls "$work"/nvidia_cuda_cccl-*.whl)
fi
"$python" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wheel" "$work/unpacked" ||
  { echo "cccl_new.sh: could not unpack $wheel" >&2; exit 2; }
include=$(find "$work/unpacked" -type d -path '*/include/cccl' | head -n 1)
[ -n "$include" ] && [ -f "$include/cub/device/device_segmented_scan.cuh" ] ||
  { echo "cccl_new.sh: $wheel holds no include/cccl/cub/device/device_segmented_scan.cuh" >&2; exit 2; }
mkdir -p "$dir"
mv "$include" "$dir/include"
echo "$version" >"$stamp"
echo "cccl_new.sh: CUB $(sed -n 's/^#define CUB_VERSION \([0-9]*\).*/\1/p' "$dir/include/cub/version.cuh") headers (nvidia-cuda-cccl $version) in $dir/include" >&2
