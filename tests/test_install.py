"""The library where its users are (no GPU needed: everything here compiles and links, nothing runs).

- `cmake --install` lays out the library and nothing else: include/scan_zoo/ (every header of the
  source tree's include/scan_zoo/, its folders included, and nothing of src/),
  lib/cmake/scan_zoo/ (the package files) and share/doc/scan_zoo/LICENSE; from that tree a plain
  `nvcc -I <prefix>/include` builds a consumer of the library, and so does a CMake project that
  finds the package (find_package, as examples/cmake_consumer does with -DSCAN_ZOO_INSTALLED=ON).
- The public headers' include closure stays inside include/scan_zoo/, which is what lets the
  installed tree stand alone.
- CUDA 12: the example builds with CUDA 12.4, the oldest toolkit the
  repository supports (`make cuda12-check`, which assembles that toolkit once into build/cuda12
  from the Python package index and Debian: scripts/cuda12_toolkit.sh; `make test` builds it
  beside the zoo, so here it is usually done already); skipped, with the reason, where the
  registries cannot be reached.
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, run

NVCC = os.environ.get("NVCC", "nvcc")
LIBRARY = ROOT / "include" / "scan_zoo"
HEADERS = sorted(p.relative_to(ROOT) for p in LIBRARY.rglob("*") if p.suffix in (".cuh", ".hpp"))
PUBLIC_HEADERS = sorted(p.name for p in LIBRARY.glob("*.cuh"))


def _env():
    """This process's environment without a parent make's flags (make test runs pytest)."""
    return {key: value for key, value in os.environ.items() if key != "MAKEFLAGS"}


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """The library configured from the source tree and installed into a fresh prefix."""
    if shutil.which("cmake") is None:
        pytest.skip("cmake not installed")
    tmp = tmp_path_factory.mktemp("install")
    configured = run(["cmake", "-S", ROOT, "-B", tmp / "library"], timeout=300)
    assert configured.returncode == 0, configured.stdout + configured.stderr
    installed = run(["cmake", "--install", tmp / "library", "--prefix", tmp / "prefix"], timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return tmp / "prefix"


def test_the_install_tree_is_the_library_its_package_files_and_its_licence(prefix):
    files = {p.relative_to(prefix) for p in prefix.rglob("*") if p.is_file()}
    expected = set(HEADERS) | {Path("lib/cmake/scan_zoo/scan_zooConfig.cmake"),
                               Path("lib/cmake/scan_zoo/scan_zooConfigVersion.cmake"),
                               Path("share/doc/scan_zoo/LICENSE")}
    assert files == expected, f"not installed: {sorted(expected - files)}; not the library's: {sorted(files - expected)}"
    for header in HEADERS:
        assert (prefix / header).read_bytes() == (ROOT / header).read_bytes(), header
    assert (prefix / "share/doc/scan_zoo/LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    config = (prefix / "lib/cmake/scan_zoo/scan_zooConfig.cmake").read_text()
    assert 'INTERFACE_INCLUDE_DIRECTORIES "${_IMPORT_PREFIX}/include"' in config


# A consumer that includes the library and asks it something on the host: enough to prove that the
# installed tree and its CMake package resolve, in seconds. (A scan would instantiate the tuned
# kernel in every configuration of the table: minutes, and the kernels are built and run from the
# source tree by make test and tests/test_api.py.)
CONSUMER = """#include <scan_zoo/scan.cuh>
#include <cstdio>
int main() { std::printf("%zu\\n", scan_zoo::workspace_bytes<float>(1 << 20)); }
"""
CONSUMER_CMAKE = """cmake_minimum_required(VERSION 3.24)
project(scan_zoo_consumer LANGUAGES CXX CUDA)
set(CMAKE_CUDA_ARCHITECTURES 90)
find_package(scan_zoo 1.0 CONFIG REQUIRED)
add_executable(consumer consumer.cu)
target_link_libraries(consumer PRIVATE scan_zoo::scan_zoo)
"""


def test_the_install_serves_plain_nvcc_and_find_package(prefix, tmp_path):
    """Both ways a user builds against the installed tree, compiled at once (2 cores, 2 builds)."""
    (tmp_path / "consumer.cu").write_text(CONSUMER)
    (tmp_path / "CMakeLists.txt").write_text(CONSUMER_CMAKE)
    plain = subprocess.Popen(
        [NVCC, "-std=c++17", "-arch=sm_90", "-I", str(prefix / "include"), "-o", str(tmp_path / "plain"),
         str(tmp_path / "consumer.cu")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        consumer = tmp_path / "build"
        configured = run(["cmake", "-S", tmp_path, "-B", consumer, f"-DCMAKE_PREFIX_PATH={prefix}"], timeout=300)
        assert configured.returncode == 0, configured.stdout + configured.stderr
        found = re.search(r"^scan_zoo_DIR:PATH=(.*)$", (consumer / "CMakeCache.txt").read_text(), re.M)
        assert found and Path(found[1]) == prefix / "lib/cmake/scan_zoo", found and found[1]
        built = run(["cmake", "--build", consumer], timeout=900)
        assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
        assert (consumer / "consumer").exists()
    finally:
        output, _ = plain.communicate(timeout=900)
    assert plain.returncode == 0, f"nvcc -I {prefix / 'include'}:\n{output[-3000:]}"
    assert (tmp_path / "plain").exists()


@pytest.mark.parametrize("header", PUBLIC_HEADERS)
def test_the_public_headers_include_nothing_outside_the_library(header, tmp_path):
    """Every file of this repository that `#include <scan_zoo/HEADER>` reaches (nvcc -M) is under
    include/scan_zoo/; the toolkit's and the system's headers are outside the repository."""
    source = tmp_path / "closure.cu"
    source.write_text(f"#include <scan_zoo/{header}>\n")
    if header == "multi_gpu.cuh":
        probe = subprocess.run([NVCC, "-x", "c++", "-E", "-include", "nccl.h", "-"], stdin=subprocess.DEVNULL,
                               capture_output=True, text=True)
        if probe.returncode != 0:
            pytest.skip(f"multi_gpu.cuh needs NCCL: nccl.h not found by {NVCC}")
    result = run([NVCC, "-std=c++17", "-M", "-I", LIBRARY.parent, source], timeout=300)
    assert result.returncode == 0, result.stderr
    # "closure.o : closure.cu header header ...", continued over lines by backslashes.
    files = [Path(word) for word in result.stdout.replace("\\\n", " ").split(":", 1)[1].split()]
    ours = {(file if file.is_absolute() else ROOT / file).resolve() for file in files}
    outside = sorted(str(file.relative_to(ROOT)) for file in ours
                     if file.is_relative_to(ROOT) and not file.is_relative_to(LIBRARY))
    assert not outside, f"<scan_zoo/{header}> reaches outside include/scan_zoo/: {outside}"


def test_the_library_builds_with_cuda_12():
    """The example (scans of int64 and float through the tuned kernel's every configuration)
    compiled and linked for sm_90 by CUDA 12.4, the oldest toolkit the repository supports (make
    cuda12-check)."""
    toolkit = run([ROOT / "scripts" / "cuda12_toolkit.sh", ROOT / "build" / "cuda12"], timeout=1800, env=_env())
    if toolkit.returncode == 3:
        pytest.skip(toolkit.stderr.strip().splitlines()[-1])
    assert toolkit.returncode == 0, toolkit.stdout[-2000:] + toolkit.stderr[-3000:]
    # The toolkit checked is the oldest one the build accepts (scripts/check_env.sh).
    oldest = re.search(r"^oldest_cuda=(\S+)$", (ROOT / "scripts" / "check_env.sh").read_text(), re.M)[1]
    version = run([ROOT / "build" / "cuda12" / "nvcc", "--version"])
    assert f"release {oldest}," in version.stdout, version.stdout + version.stderr
    built = run(["make", "cuda12-check"], timeout=1800, env=_env())
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-5000:]
    assert (ROOT / "build" / "cuda12-check" / "prefix_offsets").exists()
