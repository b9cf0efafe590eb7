"""Shared helpers for the scan-zoo test suite.

CPU tests run everywhere. GPU tests ask for the `gpu` fixture, which probes the device through
a real binary (`memcpy_baseline --device-info`) and skips with the binary's own message when no
GPU is visible, so a skip always says why.
"""
import functools
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.timing_table import COLUMNS as ROW_FIELDS  # the timing.txt schema, one list

ROOT = Path(__file__).resolve().parents[1]
# The scripts the tests start (bench.sh, the helpers it runs) use $PYTHON: make it the
# interpreter running the tests, which has the packages, not whichever python3 the PATH finds.
os.environ["PYTHON"] = sys.executable
BIN = ROOT / "bin"
TEST_BIN = ROOT / "build" / "tests"
# python3 -m scripts COMMAND ...: the tools, run from ROOT (run()'s folder) by this interpreter.
SCRIPTS = [sys.executable, "-m", "scripts"]
SOURCES = {p.stem: p for p in (ROOT / "src").glob("*/*.cu")}  # src/<family>/<variant>.cu
VARIANTS = sorted(SOURCES)
# A build without NCCL leaves the multi_gpu_* binaries and fixtures out and writes its line
# saying so into this file (the Makefile's nccl-status); their tests skip with that line.
NO_NCCL = ROOT / "build" / "no_nccl.txt"
# Likewise bin/cub_device_segmented_scan without the newer CCCL's headers (the Makefile's
# cccl-new-status).
NO_CCCL_NEW = ROOT / "build" / "no_cccl_new.txt"
TYPES = ["int32", "float32"]
OPS = ["sum", "max", "min"]
MODES = ["inclusive", "exclusive"]
# The tests past 2^32 elements hold 34-56 GB of device memory each. Run in parallel (the device
# session's pytest-xdist, --dist loadgroup), two of them at once exhaust an 80 GB GPU and the
# tests beside them fail to create a stream: this group keeps them on one worker, one at a time.
# Without xdist the mark is inert (registered in pytest_configure, below).
ONE_AT_A_TIME = pytest.mark.xdist_group("beyond_2_to_the_32")


def pytest_configure(config):
    config.addinivalue_line("markers", "xdist_group(name): pytest-xdist runs a group's tests on one worker")


def no_nccl():
    """The Makefile's line when this build had no NCCL and so left the multi_gpu_* binaries out, else None."""
    return NO_NCCL.read_text().strip() if NO_NCCL.exists() else None


def left_out(name):
    """Why the build left the binary or fixture `name` out on purpose, or None."""
    if name.startswith("multi_gpu_"):
        return no_nccl()
    if name == "cub_device_segmented_scan" and NO_CCCL_NEW.exists():
        return NO_CCCL_NEW.read_text().strip()
    return None


def built(names):
    """names as pytest parameters, those the build left out marked to skip with its reason."""
    return [pytest.param(name, marks=pytest.mark.skip(reason=left_out(name))) if left_out(name) else name
            for name in names]


@pytest.fixture(scope="session")
def nccl():
    """For the tests of the multi_gpu_* binaries: skips, with the build's line, when it left them out."""
    if no_nccl():
        pytest.skip(no_nccl())


def run(args, timeout=600, **kwargs):
    """Runs a command, returns the CompletedProcess (text mode, output captured)."""
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, **kwargs)


def parse_rows(stdout):
    """The result rows of a binary's stdout, as dicts keyed by ROW_FIELDS."""
    rows = []
    for line in stdout.splitlines():
        fields = line.split()
        if len(fields) != len(ROW_FIELDS):
            raise AssertionError(f"malformed row: {line!r}")
        rows.append(dict(zip(ROW_FIELDS, fields)))
    return rows


@functools.lru_cache(maxsize=None)
def described(variant):
    """The first line of a binary's --help (src/harness/harness.cuh, print_help): what it solves
    and how, so that the tests class binaries by what they say rather than by lists of names.
    Empty when the binary is not built (its tests then fail or skip as they would anyway)."""
    path = BIN / variant
    if not path.exists():
        return ""
    result = run([path, "--help"])
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.partition("\n")[0]


def problem_of(variant):
    """"scan", "copy", "sort", "segmented scan", ... as the binary's --help names it (None unbuilt)."""
    match = re.search(r"\(problem: ([^;]+);", described(variant))
    return match.group(1) if match else None


def runs_in_place(variant):
    return "; runs in place" in described(variant)


def tile_items(variant):
    """The tile size a binary reports in --help (0 when it has none)."""
    match = re.search(r"tile: (\d+) items", described(variant))
    assert match, f"{variant}: no tile in the first line of its --help: {described(variant)!r}"
    return int(match.group(1))


def built_types(variant):
    """The element types a binary was built for, as its --help names them."""
    match = re.search(r"element types: ([\w ]+)[;)]", described(variant))
    assert match, f"{variant}: no element types in the first line of its --help: {described(variant)!r}"
    return set(match.group(1).split())


@pytest.fixture(scope="session")
def gpu():
    probe = run([BIN / "memcpy_baseline", "--device-info"], timeout=120)
    if probe.returncode != 0:
        pytest.skip("no GPU visible: " + (probe.stderr.strip() or probe.stdout.strip()))
    return dict(re.findall(r"^# (\w+): (.*)$", probe.stdout, re.M))


@pytest.fixture(scope="session")
def seed():
    """A fresh seed per session (override with SCAN_ZOO_SEED); printed in every failure."""
    return int(os.environ.get("SCAN_ZOO_SEED", random.SystemRandom().randrange(1, 2**62)))


@pytest.fixture(scope="module")
def torch():
    """PyTorch with a CUDA device it sees (the Python package's GPU tests); skips, saying which is
    missing, elsewhere."""
    import importlib.util
    if importlib.util.find_spec("torch") is None:
        pytest.skip("PyTorch is not installed here")
    import torch as module
    if not module.cuda.is_available():
        pytest.skip("no CUDA device visible to PyTorch")
    return module


@pytest.fixture(scope="module")
def cupy():
    """CuPy with a CUDA device it sees; skips, saying which is missing, elsewhere."""
    import importlib.util
    if importlib.util.find_spec("cupy") is None:
        pytest.skip("CuPy is not installed here")
    import cupy as module
    try:
        module.cuda.runtime.getDeviceCount()
    except module.cuda.runtime.CUDARuntimeError as error:
        pytest.skip(f"no CUDA device visible to CuPy: {error}")
    return module

