"""The library is a guest in its user's translation unit (CPU only): every header under
include/scan_zoo/ includes only headers under include/scan_zoo/ and the toolkit's, and none
carries a piece of the zoo's harness: no exit or abort, no printing, no device-wide or stream
synchronization, no __constant__ variable, no ZOO_ macro, no zoo:: name. And an operator or an
initial value that cannot work is refused at compile time in one line that names the fix."""
import os
import re
import subprocess

import pytest

from conftest import ROOT

LIBRARY = ROOT / "include" / "scan_zoo"
HEADERS = sorted(LIBRARY.rglob("*.cuh"))

FORBIDDEN = {
    "ends the process": r"\b(std::)?(exit|abort|quick_exit|_Exit)\s*\(",
    "prints": r"\b(std::)?(printf|fprintf|puts|fputs|perror)\s*\(|std::(cout|cerr)",
    "synchronizes behind the caller's back": r"\bcuda(Device|Stream|Event)Synchronize\s*\(",
    "defines a __constant__ variable": r"__constant__",
    "uses the harness's macros": r"\bZOO_[A-Z_]+",
    "names the zoo": r"(?<!scan_)\bzoo::",
}


def code_of(path):
    """The header without its comments and string literals (they may name anything)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", path.read_text(), flags=re.S)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


def test_the_library_has_its_headers():
    names = {p.relative_to(LIBRARY).as_posix() for p in HEADERS}
    assert {"scan.cuh", "operators.cuh", "detail/tuned_kernel.cuh", "detail/tuned_table.cuh"} <= names


@pytest.mark.parametrize("header", HEADERS, ids=lambda p: p.relative_to(LIBRARY).as_posix())
def test_a_library_header_includes_only_the_library_and_the_toolkit(header):
    for included in re.findall(r'^\s*#\s*include\s+"([^"]+)"', header.read_text(), re.M):
        target = (header.parent / included).resolve()
        assert target.is_relative_to(LIBRARY) and target.exists(), f"{header.name} includes {included}"
    for included in re.findall(r"^\s*#\s*include\s+<([^>]+)>", header.read_text(), re.M):
        assert not included.startswith(("src/", "harness/", "core/", "single_pass/")), included
        if included.startswith("scan_zoo/"):
            assert (ROOT / "include" / included).exists(), included


@pytest.mark.parametrize("header", HEADERS, ids=lambda p: p.relative_to(LIBRARY).as_posix())
def test_a_library_header_carries_nothing_of_the_harness(header):
    code = code_of(header)
    found = {why: m.group(0) for why, pattern in FORBIDDEN.items() if (m := re.search(pattern, code))}
    assert not found, f"{header.relative_to(ROOT)}: {found}"


def test_the_lint_sees_what_it_forbids(tmp_path):
    # The patterns catch the real thing and skip comments and strings.
    sample = tmp_path / "sample.cuh"
    sample.write_text('// std::exit(1) in a comment\nconst char* s = "printf(";\nstatic __constant__ int x;\n'
                      "void f() { ZOO_CUDA(cudaDeviceSynchronize()); zoo::Sum{}; std::exit(4); }\n")
    code = code_of(sample)
    assert {why for why, pattern in FORBIDDEN.items() if re.search(pattern, code)} == set(FORBIDDEN) - {"prints"}


# What a user who gets an operator wrong sees: one static_assert line that names the fix, and no
# cascade of errors from deeper in the library (the checks stop the instantiation there). Each
# probe is compiled for the host and the device's front ends only up to the error (seconds).
REFUSALS = {
    "no_identity": (
        "struct Keep { __host__ __device__ int operator()(int a, int) const { return a; } };",
        "scan_zoo::inclusive_scan(in, out, n, Keep{}, workspace);",
        "has no identity<U>(): give it one with scan_zoo::with_identity(op, value), or adjoin one to a "
        "semigroup with scan_zoo::AdjoinIdentity"),
    "not_trivially_copyable": (
        "struct Counted {\n  int* count;\n  Counted(int* c) : count(c) {}\n"
        "  Counted(const Counted& o) : count(o.count) {}\n"
        "  __host__ __device__ int operator()(int a, int b) const { return a + b; }\n"
        "  template <class U> __host__ __device__ static U identity() { return U(0); }\n};",
        "scan_zoo::inclusive_scan(in, out, n, Counted{nullptr}, workspace);",
        "the operator is copied into the kernel with its state, so it must be trivially copyable"),
    "device_initial_of_another_type": (
        "",
        "const long long* initial = nullptr;\n"
        "scan_zoo::exclusive_scan(in, out, n, scan_zoo::device_value(initial), scan_zoo::Plus{}, workspace);",
        "an initial value in device memory must have the accumulator's type"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_wrong_operator_or_initial_value_is_refused_in_one_line(case, tmp_path):
    declarations, call, message = REFUSALS[case]
    source = tmp_path / f"{case}.cu"
    source.write_text(f"#include <scan_zoo/scan.cuh>\n{declarations}\n"
                      "void f(const int* in, int* out, long long n, scan_zoo::Workspace& workspace) {\n"
                      f"{call}\n}}\n")
    result = subprocess.run([os.environ.get("NVCC", "nvcc"), "-std=c++17", "-arch=sm_90", "-c", "-I",
                             str(ROOT / "include"), "-o", str(tmp_path / "probe.o"), str(source)],
                            capture_output=True, text=True, timeout=600)
    output = result.stdout + result.stderr
    assert result.returncode != 0, f"{case} compiled"
    errors = [line for line in output.splitlines()
              if re.search(r"\berror\b", line) and not re.search(r"errors? detected in the compilation", line)]
    assert len(errors) == 1 and message in errors[0], "\n".join(errors[:10]) or output[-2000:]


def test_the_version_is_one_number_everywhere():
    """SCAN_ZOO_VERSION, its three parts, the CMake project's version (what find_package checks)
    and the CHANGELOG's newest released heading name the same version."""
    header = (LIBRARY / "scan.cuh").read_text()
    version = re.search(r'#define SCAN_ZOO_VERSION "(\d+\.\d+\.\d+)"', header).group(1)
    parts = [re.search(rf"#define SCAN_ZOO_VERSION_{part} (\d+)", header).group(1)
             for part in ("MAJOR", "MINOR", "PATCH")]
    assert ".".join(parts) == version
    cmake = re.search(r"project\(scan_zoo VERSION (\S+)", (ROOT / "CMakeLists.txt").read_text()).group(1)
    assert cmake == version
    released = re.findall(r"^## (\d+\.\d+\.\d+)", (ROOT / "CHANGELOG.md").read_text(), flags=re.M)
    assert released and released[0] == version, f"CHANGELOG's newest release {released[:1]}, header {version}"
