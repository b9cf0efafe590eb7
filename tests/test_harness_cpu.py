"""CPU tests: the harness's host logic and the command line. No GPU is needed; the exit codes
for usage errors (2), unsupported combinations (3) and sizes no memory can hold (4) are decided
before the GPU is touched."""
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import BIN, ROOT, ROW_FIELDS, SOURCES, TEST_BIN, VARIANTS, left_out, parse_rows, problem_of, run

SELFTEST = TEST_BIN / "harness_selftest"


def selftest_names():
    if not SELFTEST.exists():
        return ["<harness_selftest not built: run make test>"]
    return run([SELFTEST, "--list"]).stdout.split()


@pytest.mark.parametrize("name", selftest_names())
def test_harness_selftest(name):
    result = run([SELFTEST, name])
    assert result.returncode == 0 and result.stdout.strip() == f"PASS {name}", result.stdout + result.stderr


def test_every_variant_is_built():
    """Every src/*/*.cu is in bin/, but those the build left out on purpose (multi_gpu_* without NCCL)."""
    missing = [v for v in VARIANTS if not (BIN / v).exists() and not left_out(v)]
    assert not missing, f"not built: {missing}"
    assert {"memcpy_baseline", "sequential_scan", "cub_scan", "hierarchical_kogge_stone"} <= set(VARIANTS)


@pytest.mark.parametrize("variant", VARIANTS)
def test_variant_opens_with_teaching_header(variant):
    text = SOURCES[variant].read_text()
    header = text.split("#include")[0]
    assert text.startswith(f"// {variant} -- "), "first line must name the variant"
    for topic in ("Run: make bin/" + variant, "Constraints", "charts"):
        assert topic in header, f"teaching header lacks '{topic}'"
    assert re.search(r"\d+ accesses per element", header), "teaching header lacks the global traffic"


@pytest.mark.parametrize("args, message", [
    ([], "missing N"),
    (["abc"], "bad N"),
    (["-5"], "must not be negative"),
    (["1.5"], "bad N"),
    (["2^70"], "2^k"),
    (["1024", "--type", "int8"], "unknown --type 'int8'"),
    (["1024", "--op", "prod"], "unknown --op 'prod'"),
    (["1024", "--mode", "both"], "unknown --mode"),
    (["1024", "--frobnicate"], "unknown option '--frobnicate'"),
    (["1024", "--reps"], "needs a value"),
    (["1024", "--reps", "0"], "--reps expects"),
    (["1024", "--timeout", "-1"], "--timeout expects"),
    (["1024", "--budget-ms", "0"], "--budget-ms expects"),
    (["1024", "--repeat", "0"], "--repeat expects"),
    (["1024", "2048"], "N given twice"),
    (["1024,,2048"], "empty item"),
])
def test_usage_errors_exit_2(args, message):
    result = run([BIN / "hierarchical_kogge_stone", *args])
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "usage:" in result.stderr
    assert result.stdout == "", "a usage error must not print a result row"


def test_the_row_columns_are_one_list():
    """The columns a binary states in --help (rows.hpp) are the ones the scripts read
    (timing_table.COLUMNS, which the tests use too)."""
    result = run([BIN / "cub_scan", "--help"])
    stated = re.search(r"^stdout: one row per combination: (.*)$", result.stdout, re.M).group(1).split()
    assert stated == ROW_FIELDS


def test_help_exits_0_and_documents_exit_codes():
    result = run([BIN / "cub_scan", "--help"])
    assert result.returncode == 0
    for word in ("--type", "--op", "--mode", "--check-only", "--timeout", "--input", "exit codes"):
        assert word in result.stdout


def test_unsupported_type_exits_3_without_gpu():
    result = run([TEST_BIN / "int32_only_copy", "100,200", "--type", "float32"])
    assert result.returncode == 3, result.stderr
    rows = parse_rows(result.stdout)
    assert [r["status"] for r in rows] == ["WAIVED", "WAIVED"]
    assert "not built for this element type" in result.stderr


def test_a_variant_not_built_for_64_bit_types_waives_them_without_gpu():
    # The 30-bit descriptor's variant is built for the default types only (int32, float32).
    result = run([BIN / "single_pass_scan_decoupled_lookbacks_packed30", "100", "--type", "int64,uint32,uint64,float64"])
    assert result.returncode == 3, result.stderr
    assert [r["status"] for r in parse_rows(result.stdout)] == ["WAIVED"] * 4
    assert [r["type"] for r in parse_rows(result.stdout)] == ["int64", "uint32", "uint64", "float64"]
    assert "not built for this element type" in result.stderr


def test_packed30_descriptor_refuses_floats_without_gpu():
    result = run([BIN / "single_pass_scan_decoupled_lookbacks_packed30", "4096", "--type", "float32"])
    assert result.returncode == 3 and "30-bit descriptor holds integers only" in result.stderr


def test_unsupported_mode_exits_3_without_gpu():
    result = run([TEST_BIN / "int32_only_copy", "100", "--exclusive"])
    assert result.returncode == 3
    assert "refuses exclusive" in result.stderr


@pytest.mark.parametrize("variant", ["memcpy_baseline", "stream_compaction", "segmented_scan", "radix_sort_three_kernels",
                                     "radix_sort_onesweep"])
def test_in_place_is_waived_where_the_problem_cannot_run_in_place(variant):
    result = run([BIN / variant, "100,200", "--in-place"])
    assert result.returncode == 3, result.stderr
    assert [r["status"] for r in parse_rows(result.stdout)] == ["WAIVED", "WAIVED"]
    assert "does not run in place" in result.stderr


@pytest.mark.parametrize("variant, args, message", [
    ("row_scan", ["1000", "--row-length", "300"], "N = 1000 is not a whole number of rows of --row-length 300"),
    ("row_scan", ["1024", "--row-length", "0"], "--row-length expects a length >= 1"),
    ("row_scan", ["1024", "--row-length", "abc"], "--row-length: "),
    ("column_scan", ["1000", "--columns", "300"], "N = 1000 is not a whole number of rows of --columns 300"),
    ("column_scan", ["1024", "--columns", "0"], "--columns expects a length >= 1"),
])
def test_a_bad_row_length_or_column_count_exits_2(variant, args, message):
    result = run([BIN / variant, *args])
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("variant, option, message", [
    ("cub_scan", "--row-length", "--row-length is for the scans along rows only"),
    ("column_scan", "--row-length", "--row-length is for the scans along rows only"),
    ("row_scan", "--columns", "--columns is for the scans down columns only"),
])
def test_an_axis_option_is_for_its_axis_only(variant, option, message):
    result = run([BIN / variant, "1024", option, "8"])
    assert result.returncode == 2 and message in result.stderr, result.stderr


@pytest.mark.parametrize("option, axis", [("--row-length", "row"), ("--columns", "column")])
def test_the_help_says_which_binaries_take_an_axis_option(option, axis):
    """bench.sh's sweeps along an axis ask the binaries (scripts/binaries.sh: takes_option)."""
    takers = {v for v in VARIANTS if (BIN / v).exists() and
              f"takes {option})" in run([BIN / v, "--help"]).stdout.splitlines()[0]}
    expected = {v for v in VARIANTS if SOURCES[v].parent.name == "axis" and ("column_" in v) == (axis == "column")
                and not left_out(v)}
    assert takers == expected and expected, takers


def test_the_help_says_which_binaries_take_segment_lengths():
    """bench.sh's segments sweep asks the binaries too: the segmented scans of src/applications/."""
    takers = {v for v in VARIANTS if (BIN / v).exists() and
              "takes --segment-length)" in run([BIN / v, "--help"]).stdout.splitlines()[0]}
    expected = {v for v in VARIANTS if SOURCES[v].parent.name == "applications" and "segmented" in v
                and (BIN / v).exists()}
    assert takers == expected and expected, takers


@pytest.mark.parametrize("variant, problem, in_place, hands_over", [
    ("memcpy_baseline", "copy", False, False),
    ("cub_scan", "scan", True, False),                    # CUB's look-back is CUB's, not the zoo's
    ("hierarchical_kogge_stone", "scan", True, False),    # tiles meet only across launches
    ("single_pass_scan_naive", "scan", True, True),       # a chain
    ("single_pass_scan_tuned", "scan", True, True),       # the library's look-back
    ("row_scan", "scan along rows", True, True),
    ("linear_recurrence", "linear recurrence", False, True),
    ("linear_recurrence_backward", "linear recurrence backward", False, True),
    ("segmented_scan", "segmented scan", False, True),
    ("cub_select", "stream compaction", False, False),
    ("radix_sort_onesweep", "sort", False, True),
])
def test_the_help_says_what_a_binary_solves_and_how(variant, problem, in_place, hands_over):
    """The facts the tests and scripts class binaries by (conftest.problem_of, stress.sh's rounds),
    from the binary itself: its problem, whether it scans in place, whether its tiles hand over to
    each other; and a binary that says it runs in place does (tests/test_gpu.py checks that)."""
    first = run([BIN / variant, "--help"]).stdout.splitlines()[0]
    assert f"(problem: {problem};" in first, first
    assert ("; runs in place" in first) == in_place, first
    assert ("; hands over across tiles" in first) == hands_over, first
    assert problem_of(variant) == problem


def test_in_place_takes_no_value():
    result = run([BIN / "cub_scan", "100", "--in-place=1"])
    assert result.returncode == 2 and "--in-place" in result.stderr, result.stderr


@pytest.mark.parametrize("content, args, message", [
    (None, [], "cannot open --input"),
    (b"12345", ["--type", "int32"], "not a whole number of 4-byte elements"),
    (b"\0" * 16, ["8", "--type", "int32"], "holds 4 elements but N = 8"),
    (np.array([1.0, 2.0, np.nan, 4.0], dtype=np.float32).tobytes(), ["--type", "float32"],
     "element 2 is nan"),
    (np.array([1.0, -np.inf], dtype=np.float32).tobytes(), ["--type", "float32"], "element 1 is -inf"),
])
def test_bad_input_file_exits_2(tmp_path, content, args, message):
    path = tmp_path / "input.bin"
    if content is not None:
        path.write_bytes(content)
    result = run([BIN / "hierarchical_kogge_stone", "--input", path, *args])
    assert result.returncode == 2 and message in result.stderr, result.stderr


def test_without_gpu_a_run_exits_4_with_reason():
    probe = run([BIN / "memcpy_baseline", "--device-info"])
    if probe.returncode == 0:
        pytest.skip("a GPU is visible: the no-GPU path cannot be provoked here")
    result = run([BIN / "hierarchical_kogge_stone", "1024"])
    assert result.returncode == 4
    assert "no usable CUDA device" in result.stderr


def test_make_test_is_the_ci_entry_point():
    assert "make test" in (ROOT / ".ci" / "run").read_text()


# --input must be a regular file: a directory reads as an empty file on tmpfs and /proc (an empty
# scan that passes), and opening a FIFO would wait for a writer. Refused before any GPU is needed.
@pytest.mark.parametrize("kind", ["directory", "tmpfs directory", "procfs directory", "fifo", "device"])
def test_input_that_is_not_a_regular_file_exits_2(tmp_path, kind):
    if kind == "directory":
        path, message = tmp_path, "is a directory"
    elif kind == "tmpfs directory":
        path, message = Path("/dev/shm"), "is a directory"
        if not path.is_dir():
            pytest.skip("no /dev/shm on this machine")
    elif kind == "procfs directory":
        path, message = Path("/proc/self"), "is a directory"
    elif kind == "fifo":
        path, message = tmp_path / "fifo", "is a FIFO"
        os.mkfifo(path)
    else:
        path, message = Path("/dev/null"), "is a device"
    result = run([BIN / "hierarchical_kogge_stone", "--input", path], timeout=60)
    assert result.returncode == 2, result.stderr
    assert message + ", not a regular file" in result.stderr
    assert result.stdout == "", "a usage error must not print a result row"


# From N = 2^61 on, the bytes of a scan's arrays overflow 64 bits (2^62 int32s are 2^64 bytes):
# no memory holds them, which is known without a GPU, so the answer is the same on any machine.
@pytest.mark.parametrize("variant, args", [
    ("hierarchical_kogge_stone", ["2^62"]),
    ("hierarchical_kogge_stone", ["2^61"]),
    ("hierarchical_kogge_stone", ["2^62", "--in-place"]),
    ("hierarchical_kogge_stone", ["2^61", "--type", "int64"]),
    ("cub_scan", ["2^62-1", "--exclusive"]),
    ("memcpy_baseline", ["2^62"]),
])
def test_size_whose_bytes_overflow_64_bits_is_skipped_without_gpu(variant, args):
    result = run([BIN / variant, *args])
    assert result.returncode == 4, result.stderr
    assert [r["status"] for r in parse_rows(result.stdout)] == ["SKIPPED(device-memory)"], result.stdout
    assert "not enough device memory: needs 2^64 bytes or more" in result.stderr


def test_the_empty_scan_needs_no_gpu():
    result = run([BIN / "hierarchical_kogge_stone", "0"])
    assert result.returncode == 0, result.stderr
    assert [r["status"] for r in parse_rows(result.stdout)] == ["PASS"]


def test_untimed_rows_print_nan_for_every_time():
    result = run([TEST_BIN / "int32_only_copy", "100", "--type", "float32"])
    row = parse_rows(result.stdout)[0]
    assert row["status"] == "WAIVED" and row["reps"] == "0"
    assert [row[c] for c in ("median_ms", "min_ms", "max_ms", "p10_ms", "p90_ms", "gbps")] == ["nan"] * 6


def test_tables_from_before_the_percentiles_load_with_nan(tmp_path):
    """Tables written before the p10_ms and p90_ms columns (and the gpus column) existed still
    load, with NaN percentiles and one GPU; every committed table among them."""
    from scripts import timing_table
    old = tmp_path / "timing.txt"
    old.write_text("# gpu: X\nvariant type op mode n reps median_ms min_ms max_ms gbps status\n"
                   "cub_scan int32 sum inclusive 1024 10 0.1 0.1 0.2 1.0 PASS\n")
    _, rows = timing_table.load(old)
    assert rows["p10_ms"].isna().all() and rows["p90_ms"].isna().all() and list(rows["gpus"]) == [1]
    new = tmp_path / "timing_new.txt"
    new.write_text("# gpu: X\n" + " ".join(ROW_FIELDS) + "\n"
                   "cub_scan int32 sum inclusive 1024 10 0.1 0.1 0.2 0.1 0.15 1.0 PASS 1\n")
    _, rows = timing_table.load(new)
    assert list(rows["p10_ms"]) == [0.1] and list(rows["p90_ms"]) == [0.15]
    committed = sorted((ROOT / "bench").glob("**/timing*.txt"))
    assert committed, "no committed timing table found under bench/"
    for path in committed:
        _, rows = timing_table.load(path)
        assert set(ROW_FIELDS) <= set(rows.columns), path
