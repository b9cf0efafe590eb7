"""The library is a guest in its user's translation unit (CPU only): every header under
include/scan_zoo/ includes only headers under include/scan_zoo/ and the toolkit's, and none
carries a piece of the zoo's harness: no exit or abort, no printing, no device-wide or stream
synchronization, no __constant__ variable, no ZOO_ macro, no zoo:: name."""
import re

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
