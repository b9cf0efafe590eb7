"""The Makefile's rebuild rules, with a stand-in nvcc that compiles nothing (it touches its -o
file and logs its call), on a copy of the sources: binaries rebuild when ARCH or the flags change
and only then, whichever target wrote build/flags.txt first; the environment check refuses a
CUDA older than the oldest supported one and takes that one; without NCCL the multi_gpu_*
binaries are left out, with one line saying so. And the package's CMake: scan_zoo._torch_kernels
compiled in the C++ standard the found torch's headers ask for."""
import os
import shutil
import subprocess

import pytest

from conftest import ROOT

FAKE_NVCC = """#!/usr/bin/env bash
# A stand-in for nvcc: version, CCCL and NCCL queries answered (nccl.h is found when FAKE_NCCL is
# 1), compiles logged and their output touched.
case "$*" in
  *--version*) echo "Cuda compilation tools, release $FAKE_CUDA, V$FAKE_CUDA.0"; exit 0 ;;
  *"-x cu -E -"*) echo 3000001; exit 0 ;;
  *"-include nccl.h"*) echo probe >> "$(dirname "$0")/nccl_probes.log"; [ "$FAKE_NCCL" = 1 ]; exit ;;
esac
out=""
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
echo "$out" >> "$(dirname "$0")/compiles.log"
touch "$out"
"""


@pytest.fixture
def tree(tmp_path):
    """A copy of what the Makefile builds from, and the stand-in nvcc beside it."""
    for folder in ("src", "include", "tests/cuda", "examples", "scripts", "tune", "probes"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    nvcc = tmp_path / "fake_nvcc"
    nvcc.write_text(FAKE_NVCC)
    nvcc.chmod(0o755)
    return tmp_path


def make(tree, *args, cuda="13.0", nccl=True):
    """Runs make in the copy with the stand-in nvcc; returns (the result, the outputs it compiled)."""
    log = tree / "compiles.log"
    log.unlink(missing_ok=True)
    # GPU_TESTS=1: the GPU-only test programs are targets too, whatever this machine has.
    result = subprocess.run(["make", "-j1", f"NVCC={tree / 'fake_nvcc'}", "PYTHON=python3", "GPU_TESTS=1", *args],
                            cwd=tree,
                            capture_output=True, text=True, timeout=120,
                            env=_env(FAKE_CUDA=cuda, FAKE_NCCL=str(int(nccl))))
    return result, log.read_text().split() if log.exists() else []


def _env(**extra):
    """This process's environment without what a parent make exports (make test runs pytest: its
    flags, its NCCL, which would stand in for the probe, and its GPU_TESTS), plus extra."""
    return {**{key: value for key, value in os.environ.items() if key not in ("MAKEFLAGS", "NCCL", "GPU_TESTS")}, **extra}


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
    for old in ("12.3", "11.8"):
        result, built = make(tree, "ARCH=sm_90", "bin/memcpy_baseline", cuda=old)
        assert result.returncode != 0 and built == []
        assert f"CUDA {old} is older than 12.4, the oldest this repository is built with" in result.stderr


def test_the_build_takes_the_oldest_supported_cuda(tree):
    result, built = make(tree, "ARCH=sm_90", "bin/memcpy_baseline", cuda="12.4")
    assert result.returncode == 0 and built == ["bin/memcpy_baseline"], result.stderr
    assert "nvcc:" in result.stdout and "(CUDA 12.4)" in result.stdout


NO_NCCL_LINE = "the multi_gpu_* binaries are skipped; install NCCL to build them"


def multi_gpu(names):
    return [name for name in names if "/multi_gpu_" in name]


def test_without_nccl_the_multi_gpu_binaries_are_left_out_with_one_line(tree):
    result, built = make(tree, "ARCH=sm_90", "all", "test-programs", nccl=False)
    assert result.returncode == 0, result.stderr
    assert multi_gpu(built) == [] and "bin/memcpy_baseline" in built and "build/tests/harness_selftest" in built
    assert result.stdout.count(NO_NCCL_LINE) == 1, result.stdout
    assert (tree / "nccl_probes.log").read_text().split() == ["probe"], "nccl.h is probed once per make"
    # The tests skip the binaries left out, with the line (tests/conftest.py reads it there).
    assert NO_NCCL_LINE in (tree / "build" / "no_nccl.txt").read_text()
    result, built = make(tree, "ARCH=sm_90", "multi-gpu-phases", nccl=False)
    assert result.returncode != 0 and built == [] and "needs NCCL" in result.stderr

    # NCCL found later: the binaries are built and the note of their absence is gone.
    result, built = make(tree, "ARCH=sm_90", "all", "test-programs", nccl=True)
    assert result.returncode == 0, result.stderr
    assert set(multi_gpu(built)) == {"bin/multi_gpu_scan", "bin/multi_gpu_scan_then_add", "bin/multi_gpu_memcpy",
                                     "build/tests/multi_gpu_skips_last_element"}, built
    assert NO_NCCL_LINE not in result.stdout and not (tree / "build" / "no_nccl.txt").exists()


def test_nccl_on_the_command_line_overrides_the_probe(tree):
    result, built = make(tree, "ARCH=sm_90", "NCCL=0", "all", nccl=True)
    assert result.returncode == 0 and multi_gpu(built) == [] and NO_NCCL_LINE in result.stdout
    assert not (tree / "nccl_probes.log").exists()
    result, built = make(tree, "ARCH=sm_90", "NCCL=1", "all", nccl=False)
    assert result.returncode == 0 and "bin/multi_gpu_scan" in built and NO_NCCL_LINE not in result.stdout


# What brings CUB's device-wide scan into a program: CUB and Thrust themselves, the zoo's CUB
# reference (src/baselines/cub_reference.cuh) and the scans across GPUs' check (sharded_problem.cuh).
CUB_SCAN_HEADERS = ("cub_reference.cuh", "sharded_problem.cuh", "<cub/", "<thrust/")


def test_every_program_that_compiles_cubs_device_scan_keeps_o2(tree):
    """gcc's -Wmaybe-uninitialized misfires inside CUB's DeviceScan dispatch at -O1 (the zoo's host
    level), failing the build: every program that includes CUB's or Thrust's scans, or the zoo's
    CUB reference, is built at -O2 (the Makefile's CUB_SCAN_PROGRAMS). A GPU-only self-test that
    was missed failed only on the GPU machine, where it is built."""
    includers = [path for folder in ("src", "tests/cuda", "tune") for path in sorted((ROOT / folder).rglob("*.cu"))
                 if any(marker in path.read_text() for marker in CUB_SCAN_HEADERS)]
    targets = {}
    for path in includers:
        relative = path.relative_to(ROOT)
        if relative.parts[0] == "tests":
            targets[f"build/tests/{path.stem}"] = relative
        elif relative.parts[0] == "tune":
            targets[f"build/tune/{path.stem}.o"] = relative
        elif path.stem != "cub_device_segmented_scan":  # built only beside the newer CCCL, which the copy lacks
            targets[f"bin/{path.stem}"] = relative
    assert "build/tests/api_selftest" in targets and "bin/cub_scan" in targets
    result = subprocess.run(["make", "-n", "-B", f"NVCC={tree / 'fake_nvcc'}", "PYTHON=python3", "GPU_TESTS=1",
                             "ARCH=sm_90", *targets], cwd=tree, capture_output=True, text=True, timeout=120,
                            env=_env(FAKE_CUDA="13.0", FAKE_NCCL="1"))
    assert result.returncode == 0, result.stderr
    for target, source in targets.items():
        lines = [line for line in result.stdout.splitlines() if f" -o {target} " in line]
        assert lines, (target, result.stdout[-2000:])
        assert all(" -O2 " in line for line in lines), (target, str(source), lines)


@pytest.mark.parametrize("oldest, standard", [("201703L", "17"), ("202002L", "20")])
def test_the_torch_kernels_take_the_cxx_standard_torchs_headers_ask(tmp_path, oldest, standard):
    """python/torch_cxx_standard.cmake on a stand-in torch whose ATen.h demands C++17 (torch 2.11)
    or C++20 (later releases, where a C++17 compile of scan_zoo._torch_kernels stopped the package's
    build): the standard python/CMakeLists.txt then gives that module."""
    if shutil.which("cmake") is None:
        pytest.skip("cmake not installed")
    (tmp_path / "torch/include/ATen").mkdir(parents=True)
    (tmp_path / "torch/include/ATen/ATen.h").write_text(
        "#pragma once\n#if !defined(_MSC_VER) && __cplusplus < " + oldest + "\n"
        "#error C++ or later compatible compiler is required to use ATen.\n#endif\n")
    driver = tmp_path / "driver.cmake"
    driver.write_text(f'include("{ROOT}/python/torch_cxx_standard.cmake")\n'
                      f'torch_cxx_standard("{tmp_path}/torch" chosen)\nmessage(STATUS "chosen ${{chosen}}")\n')
    result = subprocess.run(["cmake", "-P", driver], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert f"chosen {standard}" in result.stdout
    assert 'include("${CMAKE_CURRENT_LIST_DIR}/torch_cxx_standard.cmake")' in (ROOT / "python/CMakeLists.txt").read_text()
