#!/usr/bin/env bash
# check_env.sh -- what a build will use, said before it starts: nvcc, CCCL, GPU, Python, ...
#
# In full: nvcc and its CUDA version, CCCL (CUB, Thrust), NCCL, the NVIDIA driver and GPU (when one
# is visible), the architectures the binaries are built for, and the Python the scripts and tests
# run with. `make check-env` runs it; `make` once per change of its inputs (build/flags.txt).
#
#   [NCCL=0|1] scripts/check_env.sh ARCH_LIST PYTHON     (NCCL: what make found; no line without it)
#
# Exit codes: 0 ready to build (a missing GPU, NCCL or Python is only a note: everything else
# builds without them); 2 the toolkit is missing or older than this repository supports.
#
# Supported: CUDA 12.4 or later (with its CCCL, 2.3 or later), and 13.x. The tables are measured
# with 13.0. 12.4 is the oldest toolkit the repository is built with: CI compiles the library's
# example and self-test (which includes CUB's reference row) with it, make cuda12-check, and it is
# the oldest CUDA 12 whose compiler the registries CI reaches carry (Debian's package; the Python
# package index's CUDA 12 wheels have no nvcc), so 12.0 to 12.3 were never tried. Older toolkits
# are refused rather than left to fail halfway through a build with a template error from CUB
# (CCCL's APIs move between releases); ALLOW_UNTESTED_CUDA=1 tries one anyway.
set -u
arch_list=${1:?usage: scripts/check_env.sh ARCH_LIST PYTHON}
python=${2:?usage: scripts/check_env.sh ARCH_LIST PYTHON}
oldest_cuda=12.4
status=0

fail() { echo "check-env: $*" >&2; status=2; }

nvcc_path=$(command -v "${NVCC:-nvcc}") || { fail "no nvcc on PATH (install the CUDA toolkit, $oldest_cuda or later, or set NVCC=/path/to/nvcc)"; }
if [ -n "${nvcc_path:-}" ]; then
  cuda=$("$nvcc_path" --version | sed -n 's/.*release \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
  cccl=$(printf '#include <cuda/version>\nCCCL_VERSION\n' | "$nvcc_path" -x cu -E - 2>/dev/null | tail -n 1)
  case "$cccl" in
    ''|*[!0-9]*) cccl_text="not found" ;;
    *) cccl_text="$((cccl / 1000000)).$((cccl / 1000 % 1000)).$((cccl % 1000))" ;;
  esac
  echo "nvcc:    $nvcc_path (CUDA $cuda)"
  echo "CCCL:    $cccl_text (CUB, Thrust, libcu++)"
  if [ "$(printf '%s\n%s\n' "$oldest_cuda" "$cuda" | sort -V | head -n 1)" != "$oldest_cuda" ]; then
    if [ "${ALLOW_UNTESTED_CUDA:-0}" = 1 ]; then
      echo "check-env: CUDA $cuda is older than $oldest_cuda, the oldest this repository is built with; trying anyway (ALLOW_UNTESTED_CUDA=1)" >&2
    else
      fail "CUDA $cuda is older than $oldest_cuda, the oldest this repository is built with (CUB's and Thrust's APIs move between CCCL releases); install CUDA $oldest_cuda or later, or set ALLOW_UNTESTED_CUDA=1 to try"
    fi
  fi
  [ "$cccl_text" = "not found" ] && fail "CCCL headers (<cuda/version>) not found by $nvcc_path"
fi

case "${NCCL:-}" in
  1) echo "NCCL:    found (nccl.h): the multi_gpu_* binaries build" ;;
  0) echo "NCCL:    none (nccl.h not found by nvcc, or NCCL=0): the multi_gpu_* binaries are skipped" ;;
esac

if command -v nvidia-smi >/dev/null && gpus=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null) && [ -n "$gpus" ]; then
  echo "$gpus" | while IFS=, read -r name cc driver; do echo "GPU:     $name (compute capability${cc}, driver${driver})"; done
else
  echo "GPU:     none visible (everything builds; the GPU tests skip; bench.sh needs one)"
fi
echo "ARCH:    $arch_list (make ARCH=\"sm_90 sm_100\" builds one binary for several)"

# The binaries need no Python; the scripts and tests do (make python-deps creates .venv).
if "$python" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
  echo "Python:  $("$python" -c 'import sys; print(sys.executable, sys.version.split()[0])') (scripts and tests)"
elif [ ! -e "$python" ] && [ "${python%/.venv/bin/python}" != "$python" ]; then
  echo "Python:  .venv not created yet (make test and make plots create it from python3)"
else
  echo "Python:  none of 3.9 or later at '$python' (make's PYTHON): the scripts and tests will not run"
fi
exit $status
