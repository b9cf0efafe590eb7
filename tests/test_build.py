"""The Makefile's rebuild rules, with a stand-in nvcc that compiles nothing (it touches its -o
file and logs its call), on a copy of the sources: binaries rebuild when ARCH or the flags change
and only then, whichever target wrote build/flags.txt first; the environment check refuses a
CUDA older than the supported one."""
import shutil
import subprocess

import pytest

from conftest import ROOT

FAKE_NVCC = """#!/usr/bin/env bash
# A stand-in for nvcc: version and CCCL queries answered, compiles logged and their output touched.
case "$*" in
  *--version*) echo "Cuda compilation tools, release $FAKE_CUDA, V$FAKE_CUDA.0"; exit 0 ;;
  *"-x cu -E -"*) echo 3000001; exit 0 ;;
esac
out=""
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
echo "$out" >> "$(dirname "$0")/compiles.log"
touch "$out"
"""


@pytest.fixture
def tree(tmp_path):
    """A copy of what the Makefile builds from, and the stand-in nvcc beside it."""
    for folder in ("src", "include", "tests/cuda", "examples", "scripts", "tune"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    nvcc = tmp_path / "fake_nvcc"
    nvcc.write_text(FAKE_NVCC)
    nvcc.chmod(0o755)
    return tmp_path


def make(tree, *args, cuda="13.0"):
    """Runs make in the copy with the stand-in nvcc; returns (the result, the outputs it compiled)."""
    log = tree / "compiles.log"
    log.unlink(missing_ok=True)
    result = subprocess.run(["make", "-j1", f"NVCC={tree / 'fake_nvcc'}", "PYTHON=python3", *args], cwd=tree,
                            capture_output=True, text=True, timeout=120, env={**_env(), "FAKE_CUDA": cuda})
    return result, log.read_text().split() if log.exists() else []


def _env():
    import os
    return {key: value for key, value in os.environ.items() if key != "MAKEFLAGS"}


def test_targets_with_their_own_flags_do_not_rewrite_the_build_flags(tree):
    # multi_gpu_* link NCCL, cub_* build without the spill check: flags of their own, which must
    # not become the recorded flags of the whole build (every other binary would rebuild).
    result, built = make(tree, "ARCH=sm_90", "bin/multi_gpu_scan", "bin/memcpy_baseline", "bin/cub_scan")
    assert result.returncode == 0, result.stderr
    assert built == ["bin/multi_gpu_scan", "bin/memcpy_baseline", "bin/cub_scan"]
    recorded = (tree / "build" / "flags.txt").read_text()
    assert "-lnccl" not in recorded and "-warn-spills" in recorded
    for target in ("bin/memcpy_baseline", "bin/cub_scan", "bin/multi_gpu_scan"):
        result, built = make(tree, "ARCH=sm_90", target)
        assert result.returncode == 0 and built == [], (target, built, result.stderr)


def test_a_change_of_arch_rebuilds_and_a_list_builds_one_fat_binary(tree):
    assert make(tree, "ARCH=sm_90", "bin/memcpy_baseline")[1] == ["bin/memcpy_baseline"]
    assert make(tree, "ARCH=sm_90", "bin/memcpy_baseline")[1] == []
    result, built = make(tree, "ARCH=sm_80 sm_90", "print-flags", "bin/memcpy_baseline")
    assert built == ["bin/memcpy_baseline"]
    assert "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90" in result.stdout


def test_the_build_refuses_a_cuda_older_than_the_supported_one(tree):
    result, built = make(tree, "ARCH=sm_90", "bin/memcpy_baseline", cuda="12.4")
    assert result.returncode != 0 and built == []
    assert "CUDA 12.4 is older than 13.0" in result.stderr
