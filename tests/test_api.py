"""The library API (include/scan_zoo/scan.cuh): its self-test against a CPU reference and CUB
(tests/cuda/api_selftest.cu: every type, a non-commutative operator, in place, exclusive with an
initial value, two streams, reuse, failures, epoch wrap-around, an unzeroed workspace, 2^32 + 3
elements); the forms' self-test (tests/cuda/api_forms_*_selftest.cu: mixed types, stateful
operators and lambdas, reverse scans, initial values, totals, forced configurations,
deterministic scans); the scans along an axis (include/scan_zoo/axis.cuh,
tests/cuda/axis_selftest.cu), the linear recurrence (include/scan_zoo/linear_recurrence.cuh,
tests/cuda/recurrence_selftest.cu) and the segments given by offsets (include/scan_zoo/segmented.cuh,
tests/cuda/segmented_selftest.cu); the example program; and the CMake consumer built from the source
tree (on any machine; the installed library: tests/test_install.py)."""
import re
import shutil
import subprocess

import pytest

from conftest import ONE_AT_A_TIME, ROOT, TEST_BIN, run

EXAMPLES = ROOT / "build" / "examples"


def test_api_selftest(gpu, seed):
    result = run([TEST_BIN / "api_selftest", "--seed", seed], timeout=900)
    context = f"seed {seed}\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    assert result.returncode == 0, context
    passed = re.findall(r"^PASS ", result.stdout, re.M)
    assert len(passed) >= 9 * 10 * 4 + 8 and "api_selftest: 0 failed" in result.stdout, context
    # The 3x3 matrices, the one type whose descriptors are a status word and value slots.
    assert len(re.findall(r"^PASS sizes mat3x3 ", result.stdout, re.M)) == 10 * 4, context
    # Every shipped configuration x (6 types x 3 operators + 2 structs), each line 20 of 20.
    configs = re.findall(r"^PASS config (\d+) (\S+) (\S+): 20/20$", result.stdout, re.M)
    assert len(configs) == 16 * 20, f"{len(configs)} configuration lines passed\n{context}"


# The forms' self-test, in five programs that compile side by side (tests/cuda/api_forms.cuh):
# each program's checks, and how many must pass.
FORMS_SIZES = 8
FORMS_CONFIGS = 16
FORMS_SELFTESTS = {
    # six calls per size (uint8 -> int64 CSR offsets, bf16 -> float, bf16 -> bf16, half -> float
    # max, float in a double accumulator, int32 -> int64), then the two refusals
    "api_forms_types_selftest": FORMS_SIZES * 6 + 2,
    # per size: the modular sum in two forms, the lambda, the band in two
    "api_forms_operators_selftest": FORMS_SIZES * 5,
    # per size: the value with holes in two forms
    "api_forms_holes_selftest": FORMS_SIZES * 2,
    # per size: 4 forms x in place or not x (mat2x2, int32), 3 forms with the initial value in
    # device memory; then every configuration at 4 sizes
    "api_forms_reverse_selftest": FORMS_SIZES * 8 * 2 + FORMS_SIZES * 3 + FORMS_CONFIGS * 4,
    # 3 sizes x 4 types in every configuration; the repeats
    "api_forms_deterministic_selftest": FORMS_CONFIGS * 3 * 4 + 1,
}


@pytest.mark.parametrize("program", sorted(FORMS_SELFTESTS))
def test_api_forms_selftest(gpu, seed, program):
    """Mixed types and the refusals; operators with state and lambdas; a value with holes; reverse
    scans, initial values (inclusive, in device memory), totals and forced configurations in
    workspace_bytes of caller memory; the deterministic scans in every configuration and repeated
    bit for bit (tests/cuda/api_forms_*_selftest.cu)."""
    result = run([TEST_BIN / program, "--seed", seed], timeout=900)
    context = f"seed {seed}\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    assert result.returncode == 0 and f"{program}: 0 failed" in result.stdout, context
    passed = re.findall(r"^PASS ", result.stdout, re.M)
    expected = FORMS_SELFTESTS[program]
    assert len(passed) == expected, f"{len(passed)} checks passed, {expected} expected\n{context}"


def test_axis_selftest(gpu, seed):
    """Scans along an axis (include/scan_zoo/axis.cuh): 61 shapes (55 listed, 6 random), rows from
    shorter than a vector to many tiles long and columns from 2 to 1000 wide, 22 checks a shape
    (the int32 sum in six forms, in and out of place; float, int64, uint32, bf16 -> float,
    uint8 -> int64 with line totals, the 2x2 matrix product in two forms, 16-bit affine maps
    composed (4 bytes, not commutative), an operator with state, an initial value in device
    memory), two and four columns off a row's alignment, caller memory of
    workspace_bytes(shape) (two shapes, two rounds each, and an int64 input into int32 sums in
    workspace_bytes<int32, int64>), the deterministic scans (RunToRun and ChosenAtRunTime through
    every kernel: 10 shapes x 12 exact checks, 5 shapes of real values repeated bit for bit, and
    line totals refused under ChosenAtRunTime), and the refusals (tests/cuda/axis_selftest.cu)."""
    result = run([TEST_BIN / "axis_selftest", "--seed", seed], timeout=900)
    context = f"seed {seed}\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    assert result.returncode == 0 and "axis_selftest: 0 failed" in result.stdout, context
    passed = re.findall(r"^PASS ", result.stdout, re.M)
    shapes, checks_per_shape, unaligned_rows, caller_workspace, refusals = 61, 22, 2, 6, 4
    deterministic = 10 * (6 + 4 + 2) + 5 + 1
    expected = shapes * checks_per_shape + unaligned_rows + caller_workspace + deterministic + refusals
    assert len(passed) == expected, f"{len(passed)} checks passed, {expected} expected\n{context}"


SCAN_OPS_SHAPES = 14  # rows, 1-D, columns and a middle axis (tests/cuda/scan_ops.cuh)
SCAN_OPS_SELFTESTS = {
    # per shape: cummax and cummin with and without indices, of float forward and reverse, then of
    # bf16, int32, int8 and bool forward; then the two refusals
    "scan_ops_extremes_selftest": SCAN_OPS_SHAPES * (2 * 2 * 2 + 4 * 2 * 2) + 2,
    # per shape: cummax and cummin with and without indices, forward, of float with 64-bit
    # positions and of int64 and double with 32-bit ones
    "scan_ops_wide_extremes_selftest": SCAN_OPS_SHAPES * 3 * 2 * 2,
    # per shape: the int64 and the float product
    "scan_ops_products_selftest": SCAN_OPS_SHAPES * 2,
    # per shape: float on plain values and on LogSumExp<float>, each without and with +inf and
    # NaN; complex on LogSumExp<Complex<float>>
    "scan_ops_logsumexp_selftest": SCAN_OPS_SHAPES * (2 * 2 + 1),
}


@pytest.mark.parametrize("program", sorted(SCAN_OPS_SELFTESTS))
def test_scan_ops_selftest(gpu, seed, program):
    """The scans torch has beside the sum (tests/cuda/scan_ops_*_selftest.cu), over 14 shapes
    (rows, 1-D, columns, a middle axis): cummax and cummin with indices and without
    (include/scan_zoo/extremes.cuh) under torch's tie and NaN rules, of float (forward and
    reverse), bf16, int32, int8 and bool with 32-bit positions, and of the 16-byte pairs (float
    with 64-bit positions, int64 and double with 32-bit ones), with the refusals; products (int64
    wrapping, float exact); and logcumsumexp (float on plain values and on LogSumExp<float>
    accumulators, each without and with +inf and NaN, against a double loop; complex on
    LogSumExp<Complex<float>> against a complex<double> one, modulo 2 pi)."""
    result = run([TEST_BIN / program, "--seed", seed], timeout=900)
    context = f"seed {seed}\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    assert result.returncode == 0 and f"{program}: 0 failed" in result.stdout, context
    passed = re.findall(r"^PASS ", result.stdout, re.M)
    expected = SCAN_OPS_SELFTESTS[program]
    assert len(passed) == expected, f"{len(passed)} checks passed, {expected} expected\n{context}"


def test_recurrence_selftest(gpu, seed):
    """The linear recurrence h[t] = a[t] h[t - 1] + b[t] (include/scan_zoo/linear_recurrence.cuh):
    13 shapes (rows, columns, a middle axis), forward and reverse, in place, float and bf16 inputs,
    exact against the loop where the data keep every state an integer, within rounding of a
    double loop on real-valued maps; its backward (linear_recurrence_backward) exact against the
    adjoint loop on the rows, float and bf16 a, in place and not, and refused off the rows; and
    the refusals (tests/cuda/recurrence_selftest.cu)."""
    result = run([TEST_BIN / "recurrence_selftest", "--seed", seed], timeout=900)
    context = f"seed {seed}\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    assert result.returncode == 0 and "recurrence_selftest: 0 failed" in result.stdout, context
    passed = re.findall(r"^PASS ", result.stdout, re.M)
    shapes, exact_float, exact_bf16, rounding, backward, refusals = 13, 4, 2, 2, 8, 3
    expected = shapes * (exact_float + exact_bf16 + rounding + backward) + refusals
    assert len(passed) == expected, f"{len(passed)} checks passed, {expected} expected\n{context}"


def test_segmented_selftest(gpu, seed):
    """Scans of segments given by begin and end offsets (include/scan_zoo/segmented.cuh): 9
    layouts (CSR of short, tile-sized and long segments, empty segments, gaps before, between and
    after, end < begin), 32- and 64-bit offsets, six types and forms, in place, elements outside
    the segments left alone; and the refusals (tests/cuda/segmented_selftest.cu)."""
    result = run([TEST_BIN / "segmented_selftest", "--seed", seed], timeout=900)
    context = f"seed {seed}\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    assert result.returncode == 0 and "segmented_selftest: 0 failed" in result.stdout, context
    passed = re.findall(r"^PASS ", result.stdout, re.M)
    layouts, offset_widths, checks_per_layout, refusals = 9, 2, 10, 4
    expected = layouts * offset_widths * checks_per_layout + refusals
    assert len(passed) == expected, f"{len(passed)} checks passed, {expected} expected\n{context}"


def skip_unless_free_device_memory(mib, why):
    free = subprocess.run(["nvidia-smi", "--query-gpu=memory.free", "--format=csv,noheader,nounits"],
                          capture_output=True, text=True)
    if free.returncode == 0 and int(free.stdout.split()[0]) < mib:
        pytest.skip(why)


@ONE_AT_A_TIME
def test_api_at_2_to_the_32_plus_3(gpu, seed):
    skip_unless_free_device_memory(20_000, "needs 17 GB of free device memory")
    result = run([TEST_BIN / "api_selftest", "--large", "--seed", seed], timeout=1200)
    assert result.returncode == 0 and "PASS large: 2^32 + 3 uint32 in place" in result.stdout, \
        result.stdout[-3000:] + result.stderr[-2000:]


# axis_selftest --large's cases, one a test (--large-case TEXT runs those whose name holds TEXT), so
# that the group's workers share them: all six in one process outlasted a device call.
LARGE_AXIS_CASES = ["rows 3 x 715827883 (2^31 + 1)", "rows 641 x 6700417 (2^32 + 1)", "one row of 2^32 + 1",
                    "3 columns of 715827883 (2^31 + 1)", "2 columns of 2^31 + 1", "641 columns of 6700417 (2^32 + 1)"]


@ONE_AT_A_TIME
@pytest.mark.parametrize("case", LARGE_AXIS_CASES)
def test_axis_past_32_bit_indices(gpu, seed, case):
    """Issue 33's sizes: rows and columns of 2^31 + 1 and 2^32 + 1 elements in all, and one row of
    2^32 + 1, uint32 sums in place, every element checked (axis_selftest --large-case)."""
    skip_unless_free_device_memory(20_000, "needs 17 GB of free device memory")
    result = run([TEST_BIN / "axis_selftest", "--large-case", case, "--seed", seed], timeout=1800)
    context = result.stdout[-3000:] + result.stderr[-2000:]
    assert result.returncode == 0 and "axis_selftest: 0 failed" in result.stdout, context
    passed = re.findall(r"^PASS large: (.*) uint32 in place$", result.stdout, re.M)
    assert len(passed) == 1 and case in passed[0], context


def test_example_program(gpu):
    result = run([EXAMPLES / "prefix_offsets", "1000003"])
    assert result.returncode == 0, result.stdout + result.stderr
    offset = re.search(r"last offset\s+(-?\d+) \(CPU: (-?\d+)\)", result.stdout)
    total = re.search(r"last sum\s+(\S+) \(CPU: (\S+)\)", result.stdout)
    assert offset and offset[1] == offset[2] and total and total[1] == total[2], result.stdout


def test_linear_recurrence_example(gpu):
    """examples/linear_recurrence.cu: bf16 decays and inputs into a float state along the last
    axis of [4, 16, L], forward and reverse, within float rounding of a loop in double."""
    result = run([EXAMPLES / "linear_recurrence", "10007"])
    assert result.returncode == 0, result.stdout + result.stderr
    for direction in ("forward", "reverse"):
        line = re.search(rf"^{direction}: 64 lines of 10007, .* difference from the loop (\S+) \(allowed (\S+)\)$",
                         result.stdout, re.M)
        assert line and float(line[1]) <= float(line[2]), result.stdout


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake not installed")
def test_cmake_consumer_builds(tmp_path):
    """add_subdirectory: configure and build examples/cmake_consumer (no GPU needed). The installed
    library and find_package: tests/test_install.py."""
    build = tmp_path / "consumer"
    configure = run(["cmake", "-S", ROOT / "examples" / "cmake_consumer", "-B", build], timeout=300)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    built = run(["cmake", "--build", build, "-j", "2"], timeout=900)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert (build / "prefix_offsets").exists()
