#!/usr/bin/env bash
# cuda12_toolkit.sh -- CUDA 12.4, the oldest toolkit the library supports, assembled for CI.
#
# Assembled beside the system's one so that CI compiles the library with it too (make cuda12-check).
# Nothing is installed system-wide: everything lands in DIR, once; a complete DIR is reused.
#
#   scripts/cuda12_toolkit.sh DIR        (make uses build/cuda12)
#   DIR/nvcc                             the compiler, called like any nvcc
#
# Where the parts come from, the registries CI reaches (about 110 MB downloaded):
#   the Python package index  nvidia-cuda-nvcc-cu12 12.4.131 (its crt/ headers), nvidia-cuda-runtime-cu12
#                             12.4.127 (the runtime's headers and libcudart.so.12) and
#                             nvidia-cuda-cccl-cu12 12.4.127.post1 (CCCL 2.3.2: CUB, Thrust, libcu++);
#   Debian (trixie, non-free) nvidia-cuda-toolkit 12.4.131: nvcc itself, cudafe++, cicc, ptxas,
#                             fatbinary, nvlink and libdevice. The package index's nvcc wheels of
#                             CUDA 12 carry ptxas, NVVM and the crt/ headers but no compiler driver
#                             and no front end, so they cannot compile a .cu file alone.
# Debian's package is fetched with apt-get download and unpacked with dpkg-deb under DIR, with an
# apt configuration of its own there: the system's sources and packages are left alone.
#
# Exit codes: 0 DIR/nvcc is ready; 2 assembling it failed; 3 a registry could not be reached, or
# this machine has no pip or no apt-get (the last line of stderr says which: the tests skip with it).
set -u
# Absolute: apt reads the folders of its configuration below as relative to /.
dir=$(realpath -m "${1:?usage: scripts/cuda12_toolkit.sh DIR}")
python=${PYTHON:-python3}
nvcc_version=12.4.131
debian_suite=trixie
wheels=(nvidia-cuda-nvcc-cu12==12.4.131 nvidia-cuda-runtime-cu12==12.4.127 nvidia-cuda-cccl-cu12==12.4.127.post1)
# What a complete DIR holds: the versions it was assembled from.
stamp="$dir/ASSEMBLED_FROM"
want="nvcc $nvcc_version (Debian $debian_suite); ${wheels[*]}"

[ -x "$dir/nvcc" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && exit 0

unreachable() { echo "cuda12_toolkit.sh: $*" >&2; exit 3; }
fail() { echo "cuda12_toolkit.sh: $*" >&2; exit 2; }

"$python" -m pip --version >/dev/null 2>&1 || unreachable "no pip for $python: CUDA 12's wheels cannot be fetched"
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
  unreachable "no apt-get and dpkg-deb (Debian's tools): CUDA 12's compiler cannot be fetched"

# Assembled in a scratch folder beside DIR and moved into place at the end, so that an interrupted
# run leaves no half toolkit behind.
work="$dir.partial"
rm -rf "$work" "$dir"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
echo "cuda12_toolkit.sh: assembling CUDA $nvcc_version into $dir (once; about 110 MB from the Python package index and Debian)" >&2

# The wheels: a failure to reach the index is told apart from a failure to install by a first,
# small download (the runtime, under 1 MB), with few retries so that an offline machine learns it
# in seconds.
"$python" -m pip download --disable-pip-version-check --quiet --retries 1 --timeout 30 --no-deps --dest "$work/wheels" "${wheels[1]}" \
  >"$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; unreachable "the Python package index cannot be reached, or lacks ${wheels[1]} (pip download failed, its output above)"; }
"$python" -m pip install --disable-pip-version-check --quiet --no-deps --target "$work/wheels" "${wheels[@]}" \
  >"$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; fail "pip could not install ${wheels[*]}"; }

# Debian's compiler package, from its suite's non-free index alone (a few hundred KB of lists).
apt_dir="$work/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
echo "deb http://deb.debian.org/debian $debian_suite non-free" >"$apt_dir/sources.list"
apt=(apt-get -q -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o Debug::NoLocking=1
     -o "APT::Sandbox::User=$(id -un)")
"${apt[@]}" update >"$work/apt.log" 2>&1
compgen -G "$apt_dir/lists/*_Packages*" >/dev/null ||
  { cat "$work/apt.log" >&2; unreachable "Debian's archive cannot be reached (apt-get update of $debian_suite non-free failed)"; }
(cd "$work" && "${apt[@]}" download nvidia-cuda-toolkit) >>"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log" >&2; fail "apt-get download nvidia-cuda-toolkit ($debian_suite) failed"; }
deb=$(echo "$work"/nvidia-cuda-toolkit_*.deb)
case "$(dpkg-deb -f "$deb" Version)" in
  "$nvcc_version"~*) ;;
  *) fail "$debian_suite's nvidia-cuda-toolkit is $(dpkg-deb -f "$deb" Version), not $nvcc_version: update this script's versions together" ;;
esac
dpkg-deb -x "$deb" "$work/deb" || fail "dpkg-deb could not unpack $deb"

# NVIDIA's layout, which nvcc.profile below describes: bin/ (nvcc and the tools it runs),
# nvvm/ (cicc, libdevice), include/ (runtime, crt/, CCCL), lib64/ (the runtime library).
toolkit="$work/toolkit" debian_bin="$work/deb/usr/lib/nvidia-cuda-toolkit/bin" wheel="$work/wheels/nvidia"
mkdir -p "$toolkit/bin/crt" "$toolkit/nvvm/bin" "$toolkit/nvvm/libdevice" "$toolkit/include" "$toolkit/lib64"
cp "$debian_bin/nvcc" "$work"/deb/usr/bin/{cudafe++,ptxas,fatbinary,nvlink,bin2c} "$toolkit/bin/" &&
  cp "$debian_bin"/crt/*.stub "$toolkit/bin/crt/" &&
  cp "$debian_bin/cicc" "$toolkit/nvvm/bin/" &&
  cp "$work/deb/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc" "$toolkit/nvvm/libdevice/" &&
  cp -r "$wheel"/cuda_runtime/include/. "$wheel"/cuda_nvcc/include/. "$wheel"/cuda_cccl/include/. "$toolkit/include/" &&
  cp "$wheel/cuda_runtime/lib/libcudart.so.12" "$toolkit/lib64/" &&
  ln -s libcudart.so.12 "$toolkit/lib64/libcudart.so" || fail "a part of the toolkit is missing from its package"
find "$toolkit" \( -name __init__.py -o -name __pycache__ \) -prune -exec rm -rf {} +
cat >"$toolkit/bin/nvcc.profile" <<'EOF'
TOP                = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
PATH              += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES          += "-I$(TOP)/include" $(_SPACE_)
LIBRARIES          =+ $(_SPACE_) "-L$(TOP)/lib64"
EOF
# The runtime's wheel carries libcudart.so.12 but not libcudart_static.a, which nvcc links by
# default: the programs built here link the shared runtime.
cat >"$toolkit/nvcc" <<'EOF'
#!/bin/sh
exec "$(dirname "$0")/bin/nvcc" "$@" -cudart shared
EOF
chmod +x "$toolkit/nvcc"
"$toolkit/nvcc" --version | grep -q "release ${nvcc_version%.*}," || fail "the assembled nvcc does not run: $("$toolkit/nvcc" --version 2>&1 | tail -n 1)"
echo "$want" >"$toolkit/ASSEMBLED_FROM"
mv "$toolkit" "$dir" || fail "could not move the toolkit to $dir"
echo "cuda12_toolkit.sh: $dir/nvcc is CUDA $nvcc_version" >&2
