"""The scans people call from libraries: scripts/framework_scans.py (torch.cumsum, cupy.cumsum) and
bin/thrust_scan.

CPU (always): the script's size syntax against the binaries' parser, its input generator against
the harness's C++ one, its reference, rows and statistics, its whole check-and-time path on a
host stand-in for a framework with an exact clock (a pass, hot and cold reps, a noisy batch
measured again, a wrong element, a size beyond memory, N = 0), the SKIPPED rows of a framework that cannot be imported or sees no GPU, and its usage errors.
GPU: each framework's verified, timed rows where it is importable and sees a GPU (skipped with
the script's reason otherwise); the script's data against a binary's; bin/thrust_scan at every
type, operator and mode.

Run: make test TESTS=tests/test_frameworks.py
"""
import functools
import importlib.util
import os
import re

import numpy as np
import pytest

from conftest import BIN, MODES, OPS, ROOT, ROW_FIELDS, SCRIPTS, parse_rows, run

from scripts import framework_scans as fs
from scripts import sizes as size_syntax  # the Python side of the binaries' N syntax

ALL_TYPES = ["int32", "float32", "int64", "uint32", "uint64", "float64"]


def script(*args, env=None):
    return run([*SCRIPTS, "framework-scans", *args], env=env)


# ---------------------------------------------------------------------------------------------
# Sizes: the binaries' syntax.
# ---------------------------------------------------------------------------------------------
SIZE_LISTS = ["0", "1048576", "64K,16M,1G", "2^20", "2^24-1", "1M+3,2^10-0", "4096,1,1k,2m,1g", "2^62", "2^32+1"]


@pytest.mark.parametrize("sizes", SIZE_LISTS)
def test_sizes_parse_as_the_binaries_parse(sizes):
    """The memcpy row waives --in-place before touching a GPU, so its WAIVED rows show the N the
    C++ parser read (src/harness/cli.hpp), on any machine."""
    if not (BIN / "memcpy_baseline").exists():
        pytest.skip("bin/memcpy_baseline not built (make)")
    result = run([BIN / "memcpy_baseline", sizes, "--in-place"])
    assert result.returncode == 3, result.stderr
    assert size_syntax.parse_sizes(sizes) == [int(row["n"]) for row in parse_rows(result.stdout)]


@pytest.mark.parametrize("sizes, message", [
    ("", "empty item"), ("abc", "bad N"), ("-5", "must not be negative"), ("1.5", "bad N"), ("2^70", "2^k"),
    ("3^4", "2^k"), ("2^63", "2^k"), ("1,,2", "empty item"), ("K", "bad N"), ("5-6", "must not be negative"),
    ("2^62+1", "too large"), ("1e6", "bad N"), ("+5", "bad N"), ("\u00b2", "bad N"),
])
def test_bad_sizes_are_refused_like_the_binaries_refuse_them(sizes, message):
    """The same refusal, word for word, as the binaries' (exit 2)."""
    with pytest.raises(ValueError, match=re.escape(message)) as refusal:
        size_syntax.parse_sizes(sizes)
    if (BIN / "memcpy_baseline").exists():
        result = run([BIN / "memcpy_baseline", sizes, "--in-place"])
        assert result.returncode == 2 and f"error: {refusal.value}" in result.stderr, result.stderr


# ---------------------------------------------------------------------------------------------
# Input and reference: the harness's, in numpy.
# ---------------------------------------------------------------------------------------------
GENERATOR_PROBE = r"""
#include <cstdlib>
#include "harness/harness.cuh"
// argv: seed type n, repeated. Prints per case the first verified round's stream and the values
// at the indices given after the case's n (0 1 2 ... count-1, then n-1).
int main(int argc, char** argv) {
  for (int a = 1; a + 2 < argc; a += 3) {
    zoo::RowLabel row{"probe", argv[a + 1], "sum", "inclusive", std::atoll(argv[a + 2])};
    const std::uint64_t stream = zoo::combination_seed(std::strtoull(argv[a], nullptr, 10), row) ^ zoo::mix64(0);
    std::printf("%llu", static_cast<unsigned long long>(stream));
    const std::int64_t count = row.n < 64 ? row.n : 64;
    for (std::int64_t i = 0; i < count; ++i) std::printf(" %d", zoo::input_value<int>(stream, i));
    std::printf(" %d\n", zoo::input_value<int>(stream, row.n - 1));
  }
}
"""
GENERATOR_CASES = [(1, "int32", 1000), (12345678901234567890, "float32", 2**20 + 1), (0, "int32", 7),
                   (2**64 - 1, "float32", 2**33 + 5)]


def test_generator_matches_the_harness(tmp_path):
    """A probe built on the harness's own headers prints the stream and values the binaries
    would scan; the script's numpy generator must give the same."""
    probe = tmp_path / "generator_probe.cu"
    probe.write_text(GENERATOR_PROBE)
    built = run([os.environ.get("NVCC", "nvcc"), "-std=c++17", "-I", ROOT / "src", "-I", ROOT / "include", "-o",
                 tmp_path / "probe", probe],
                timeout=300)
    assert built.returncode == 0, built.stderr
    result = run([tmp_path / "probe", *[str(word) for case in GENERATOR_CASES for word in case]])
    assert result.returncode == 0, result.stderr
    for (seed, type_name, n), line in zip(GENERATOR_CASES, result.stdout.splitlines(), strict=True):
        stream, *values = (int(word) for word in line.split())
        assert fs.first_round_seed(seed, type_name, n) == stream, (seed, type_name, n)
        count = min(n, 64)
        assert fs.generate_input(stream, count, fs.TYPES[type_name]).tolist() == values[:count]
        last = fs.mix64(stream ^ fs.mix64(n - 1)) % 17 - 8
        assert last == values[count]


def test_generator_chunks_agree_and_stay_in_range():
    stream = fs.first_round_seed(7, "int32", 3 * fs.GENERATE_CHUNK + 5)
    values = fs.generate_input(stream, 3 * fs.GENERATE_CHUNK + 5, np.int32)
    index = np.array([0, fs.GENERATE_CHUNK - 1, fs.GENERATE_CHUNK, len(values) - 1], dtype=np.uint64)
    one_by_one = (fs.mix64(np.uint64(stream) ^ fs.mix64(index)) % np.uint64(17)).astype(np.int64) - 8
    assert values[index.astype(np.int64)].tolist() == one_by_one.tolist()
    assert values.min() == -8 and values.max() == 8
    floats = fs.generate_input(stream, 1000, np.float32)
    assert floats.dtype == np.float32 and np.array_equal(floats, values[:1000].astype(np.float32))


def test_reference_wraps_int32_and_rounds_float32():
    ints = np.array([2**31 - 1, 1, 5, -2**31], dtype=np.int32)
    assert fs.reference_scan(ints).tolist() == [2**31 - 1, -2**31, -2**31 + 5, 5]
    assert fs.reference_scan(ints).dtype == np.int32
    floats = np.array([2**24, 1, 1], dtype=np.float32)  # 2^24 + 1 is not a float32: rounds to even
    assert fs.reference_scan(floats).tolist() == [2**24, 2**24, 2**24 + 2]


# ---------------------------------------------------------------------------------------------
# Rows and statistics.
# ---------------------------------------------------------------------------------------------
def test_rows_have_exactly_the_schema_columns():
    stats = fs.summarize([3.0, 1.0, 2.0, 4.0])
    row = parse_rows(fs.format_row("torch_cumsum", "int32", 1000, "PASS", stats, 12.5))[0]
    assert list(row) == ROW_FIELDS
    assert (row["variant"], row["type"], row["op"], row["mode"], row["n"], row["status"], row["gpus"]) == \
        ("torch_cumsum", "int32", "sum", "inclusive", "1000", "PASS", "1")
    assert (row["reps"], row["median_ms"], row["min_ms"], row["max_ms"], row["gbps"]) == \
        ("4", "2.500000", "1.000000", "4.000000", "12.50")
    untimed = parse_rows(fs.format_row("cupy_cumsum", "float32", 0, "SKIPPED(no-cupy)"))[0]
    assert untimed["reps"] == "0" and untimed["median_ms"] == untimed["gbps"] == "nan"


def test_statistics_follow_numpy():
    times = [5.0, 1.0, 3.0, 2.0, 4.0, 10.0, 0.5]
    stats = fs.summarize(times)
    assert stats["reps"] == 7 and stats["median_ms"] == 3.0 and stats["min_ms"] == 0.5 and stats["max_ms"] == 10.0
    assert [stats["p10_ms"], stats["p90_ms"]] == pytest.approx(np.percentile(times, [10, 90]).tolist())
    assert fs.summarize([1.0, 2.0])["median_ms"] == 1.5  # an even count: the mean of the middle two


# ---------------------------------------------------------------------------------------------
# The check-and-time path, on a host stand-in for a framework.
# ---------------------------------------------------------------------------------------------
class HostEvent:
    def __init__(self, framework):
        self.framework = framework

    def record(self):
        self.at_ms = self.framework.clock_ms


class HostFramework:
    """numpy in a framework's shape: arrays on the host, and a clock that only scans advance, by
    duration_ms(k) for the k-th scan (1: the verified one), so that every timing is exact."""
    variant = "host_cumsum"
    out_of_memory = MemoryError

    def __init__(self, wrong_at=None, free_bytes=1 << 40, duration_ms=lambda k: 1.0):
        self.wrong_at, self.free, self.duration_ms = wrong_at, free_bytes, duration_ms
        self.scans, self.clock_ms = 0, 0.0

    def free_bytes(self):
        return self.free, self.free

    def upload(self, host):
        return host.copy()

    def empty(self, n, type_name):
        return np.empty(n, dtype=fs.TYPES[type_name])

    def poison(self, array):
        array.view(np.uint8).fill(fs.POISON_BYTE)

    def scan(self, x, y, axis=fs.ONE_ARRAY):
        self.scans += 1
        self.clock_ms += self.duration_ms(self.scans)
        (x_matrix, dim), (y_matrix, _) = axis.matrix(x), axis.matrix(y)
        np.cumsum(x_matrix, axis=dim, out=y_matrix)
        if self.wrong_at is not None:
            y[self.wrong_at] += 1

    def download(self, array):
        return array.copy()

    def event(self):
        return HostEvent(self)

    def elapsed_ms(self, start, stop):
        return stop.at_ms - start.at_ms

    def synchronize(self):
        pass


@pytest.mark.parametrize("flags", [[], ["--hot"]])
def test_a_verified_timed_combination_passes(flags):
    options = fs.parse_arguments(["1", "--reps", "13", "--warmup", "2", *flags])
    framework = HostFramework()
    flushes = []
    row, code = fs.run_combination(framework, "int32", 4097, options, lambda: flushes.append(1))
    fields = parse_rows(row)[0]
    assert code == fs.EXIT_PASS and fields["status"] == "PASS" and fields["reps"] == "13"
    assert float(fields["min_ms"]) == float(fields["median_ms"]) == float(fields["max_ms"]) == 1.0
    assert float(fields["gbps"]) == pytest.approx(2 * 4097 * 4 / 1e-3 / 1e9, abs=0.01)
    # The verified call, the warm-up, the timed reps, and in hot groups one untimed lead each.
    leads = 2 if flags else 0  # 13 reps in groups of 10
    assert framework.scans == 1 + 2 + 13 + leads
    assert len(flushes) == (0 if flags else 13)


NOISY_BATCH = [1.0] * 4 + [5.0] * 6  # median 5 ms, 5x the min


def batches_of_ten(*batches):
    """Scan durations for --reps 10 --warmup 0: the verified scan, then each batch's ten reps."""
    return lambda k: 1.0 if k == 1 else batches[min((k - 2) // 10, len(batches) - 1)][(k - 2) % 10]


def test_a_noisy_batch_is_measured_again_until_it_settles(capsys):
    framework = HostFramework(duration_ms=batches_of_ten(NOISY_BATCH, [2.0] * 10))
    row, code = fs.run_combination(framework, "int32", 1000, fs.parse_arguments(["1", "--reps", "10", "--warmup", "0"]),
                                   lambda: None)
    assert code == fs.EXIT_PASS and float(parse_rows(row)[0]["median_ms"]) == 2.0  # the second batch's
    assert framework.scans == 1 + 2 * 10
    err = capsys.readouterr().err
    assert "noisy: median 5.0000 ms is 5.00x the min 1.0000 ms (over 1.5x): measuring again (1 of 2)" in err
    assert "settled: median 2.0000 ms, 1.00x the min" in err


def test_a_batch_that_stays_noisy_reports_the_last_one(capsys):
    last = [3.0] * 4 + [10.0] * 6
    framework = HostFramework(duration_ms=batches_of_ten(NOISY_BATCH, NOISY_BATCH, last))
    row, _ = fs.run_combination(framework, "int32", 1000, fs.parse_arguments(["1", "--reps", "10", "--warmup", "0"]),
                                lambda: None)
    fields = parse_rows(row)[0]
    assert (float(fields["min_ms"]), float(fields["median_ms"])) == (3.0, 10.0)  # the last batch, not the best
    assert framework.scans == 1 + 3 * 10
    assert "still noisy after 2 more batches: the row reports the last (median 10.0000 ms, 3.33x the min)" in \
        capsys.readouterr().err


def test_adaptive_reps_stay_within_the_protocol():
    options = fs.parse_arguments(["1"])
    row, _ = fs.run_combination(HostFramework(), "float32", 100, options, lambda: None)
    assert fs.MIN_REPS <= int(parse_rows(row)[0]["reps"]) <= fs.MAX_REPS


def test_a_wrong_element_is_a_fail_row_with_its_index(capsys):
    options = fs.parse_arguments(["1", "--reps", "2"])
    row, code = fs.run_combination(HostFramework(wrong_at=1000), "int32", 4097, options, lambda: None)
    assert code == fs.EXIT_FAIL and parse_rows(row)[0]["status"] == "FAIL"
    assert "1 of 4097 elements wrong; first at index 1000" in capsys.readouterr().err


def test_a_size_beyond_free_memory_is_skipped_with_exit_4(capsys):
    options = fs.parse_arguments(["1"])
    framework = HostFramework(free_bytes=1000)
    row, code = fs.run_combination(framework, "int32", 1000, options, lambda: None)
    assert code == fs.EXIT_CUDA_OR_MEMORY and parse_rows(row)[0]["status"] == "SKIPPED(device-memory)"
    assert framework.scans == 0 and "needs 8000 bytes" in capsys.readouterr().err


@pytest.mark.parametrize("axis_args, mode", [(["--row-length", "8"], "inclusive-length8"),
                                             (["--columns", "8"], "inclusive-columns8")])
def test_a_scan_along_an_axis_is_checked_per_line_and_labelled(axis_args, mode):
    """--row-length and --columns: the reference scans each line, the row says which axis."""
    options = fs.parse_arguments(["64", "--reps", "3", *axis_args])
    row, code = fs.run_combination(HostFramework(), "int32", 64, options, lambda: None)
    parsed = parse_rows(row)[0]
    assert code == fs.EXIT_PASS and (parsed["status"], parsed["mode"]) == ("PASS", mode)
    values = np.arange(1, 65, dtype=np.int32)
    rows, columns = values.reshape(8, 8), values.reshape(8, 8)
    assert (fs.reference_scan(values, fs.Axis(row_length=8)).reshape(8, 8) == np.cumsum(rows, axis=1)).all()
    assert (fs.reference_scan(values, fs.Axis(columns=8)).reshape(8, 8) == np.cumsum(columns, axis=0)).all()
    # A framework that scans the whole array instead of each line fails the check.
    class WholeArray(HostFramework):
        def scan(self, x, y, axis=fs.ONE_ARRAY):
            super().scan(x, y)

    row, code = fs.run_combination(WholeArray(), "int32", 64, options, lambda: None)
    assert code == fs.EXIT_FAIL and parse_rows(row)[0]["status"] == "FAIL"


def test_a_framework_without_bfloat16_gives_a_skipped_row(capsys):
    """bf16>float32 (a bfloat16 array scanned into float32) where the framework cannot narrow its
    input (CuPy has no bfloat16): a SKIPPED(no-bfloat16) row, exit 0, no scan."""
    framework = HostFramework()
    row, code = fs.run_combination(framework, "bf16>float32", 4097, fs.parse_arguments(["1"]), lambda: None)
    fields = parse_rows(row)[0]
    assert code == fs.EXIT_PASS and (fields["type"], fields["status"]) == ("bf16>float32", "SKIPPED(no-bfloat16)")
    assert framework.scans == 0 and "has no bfloat16" in capsys.readouterr().err
    assert fs.bytes_an_element("bf16>float32") == 6 and fs.bytes_an_element("int32") == 8


def test_the_empty_scan_passes_without_a_call():
    framework = HostFramework()
    row, code = fs.run_combination(framework, "int32", 0, fs.parse_arguments(["0"]), lambda: None)
    assert code == fs.EXIT_PASS and parse_rows(row)[0]["status"] == "PASS" and framework.scans == 0


def test_worst_exit_code_wins():
    assert fs.worse(fs.EXIT_PASS, fs.EXIT_FAIL) == fs.EXIT_FAIL
    assert fs.worse(fs.EXIT_CUDA_OR_MEMORY, fs.EXIT_FAIL) == fs.EXIT_CUDA_OR_MEMORY
    assert fs.worse(fs.EXIT_FAIL, fs.EXIT_PASS) == fs.EXIT_FAIL


# ---------------------------------------------------------------------------------------------
# Frameworks that cannot run: rows that say why, exit 0.
# ---------------------------------------------------------------------------------------------
# The module whose absence skips each variant (the zoo's scan from Python, and cuda.compute, need
# their framework's arrays first).
MODULES = {"torch_cumsum": "torch", "cupy_cumsum": "cupy", "jax_cumsum": "jax", "scan_zoo_torch": "torch",
           "scan_zoo_cupy": "cupy", "scan_zoo_jax": "jax", "cuda_compute_scan": "cupy"}


def test_a_scan_zoo_without_jax_handlers_gives_skipped_rows(monkeypatch):
    """A package built where its build's Python had no jax has no JAX handlers: importing its JAX
    part raises ImportError (python/scan_zoo/_jax.py), and scan_zoo_jax is a SKIPPED row that
    says so, not a traceback without a row (seen on an H200 with such a wheel). The jax and
    scan_zoo here are stand-ins with only what the row classes read."""
    import sys
    import types
    jax = types.ModuleType("jax")
    jax.__version__ = "0.0-test"
    jax.devices = lambda kind: [types.SimpleNamespace(device_kind="a test GPU")]
    jax.errors = types.SimpleNamespace()
    scan_zoo = types.ModuleType("scan_zoo")
    scan_zoo.__version__, scan_zoo.__path__ = "0.0-test", []  # a package, as the real one is
    for name, module in {"jax": jax, "jax.numpy": types.ModuleType("jax.numpy"), "scan_zoo": scan_zoo,
                         "scan_zoo._jax": None}.items():  # None: importing it raises ImportError
        monkeypatch.setitem(sys.modules, name, module)
    with pytest.raises(fs.Unavailable) as why:
        fs.ScanZooJax()
    assert why.value.status == "SKIPPED(no-scan_zoo-jax)"
    assert "scan_zoo 0.0-test on jax 0.0-test" in str(why.value) and "scan_zoo._jax" in str(why.value)
    # With the handlers there, the row class stands.
    monkeypatch.setitem(sys.modules, "scan_zoo._jax", types.ModuleType("scan_zoo._jax"))
    assert fs.ScanZooJax().variant == "scan_zoo_jax"


def test_unimportable_frameworks_give_skipped_rows(tmp_path):
    """Modules of the same names that fail to import shadow the real ones, if any."""
    for module in MODULES.values():
        (tmp_path / f"{module}.py").write_text("raise ImportError('hidden by the test')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    result = script("1000,2^20", "--type", "int32,float32", env=env)
    assert result.returncode == 0, result.stderr
    rows = parse_rows(result.stdout)
    assert [(r["variant"], r["type"], r["n"]) for r in rows] == [
        (v, t, n) for v in fs.VARIANTS for t in ("int32", "float32") for n in ("1000", "1048576")]
    for row in rows:
        assert row["status"] == f"SKIPPED(no-{MODULES[row['variant']]})" and row["reps"] == "0"
    assert "torch_cumsum: torch is not importable: hidden by the test" in result.stderr
    assert "cupy_cumsum: cupy is not importable: hidden by the test" in result.stderr
    assert "jax_cumsum: jax is not importable: hidden by the test" in result.stderr


def test_no_visible_gpu_gives_skipped_rows():
    result = script("1000", env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert result.returncode == 0, result.stderr
    for row in parse_rows(result.stdout):
        module = MODULES[row["variant"]]
        installed = importlib.util.find_spec(module) is not None
        assert row["status"] == ("SKIPPED(no-gpu)" if installed else f"SKIPPED(no-{module})"), result.stderr


@pytest.mark.parametrize("args, message", [
    ([], "SIZES"), (["abc"], "bad N"), (["1,,2"], "empty item"), (["1K", "--variants", "numpy_cumsum"], "numpy_cumsum"),
    (["1K", "--type", "int64"], "unknown --type 'int64'"), (["1K", "--reps", "0"], "--reps expects"),
    (["1K", "--warmup", "-1"], "--warmup"), (["1K", "--seed", "-3"], "--seed expects"),
    (["1K", "--frobnicate"], "unrecognized arguments"),
])
def test_usage_errors_exit_2_without_rows(args, message):
    result = script(*args)
    assert result.returncode == 2 and message in result.stderr and result.stdout == "", result.stderr


# ---------------------------------------------------------------------------------------------
# GPU: the frameworks where they run, the script's data against a binary's, bin/thrust_scan.
# ---------------------------------------------------------------------------------------------
@functools.cache
def probe(variant):
    """The script's row and stderr for one element: whether the framework runs here, and why not."""
    result = script("1", "--variants", variant, "--reps", "1", "--warmup", "0")
    return parse_rows(result.stdout)[0]["status"], result.returncode, result.stderr


def runnable(variant):
    """Skips (with the script's own reason) where the framework cannot run here."""
    status, code, stderr = probe(variant)
    if status.startswith("SKIPPED"):
        pytest.skip(f"{variant}: {status}: {stderr.strip().splitlines()[-1]}")
    assert code == 0 and status == "PASS", stderr


@pytest.mark.parametrize("variant", fs.VARIANTS)
def test_framework_rows_pass_at_odd_sizes(variant, seed):
    runnable(variant)
    sizes = [0, 1, 33, 1000, 4097, 2**20 + 1, 2**24 - 1]
    result = script(",".join(map(str, sizes)), "--variants", variant, "--type", "int32,float32", "--reps", "5",
                    "--seed", str(seed))
    context = f"seed {seed}\n{result.stderr[-3000:]}"
    assert result.returncode == 0, context
    rows = parse_rows(result.stdout)
    assert [(r["type"], int(r["n"])) for r in rows] == [(t, n) for t in ("int32", "float32") for n in sizes], context
    for row in rows:
        assert row["status"] == "PASS", f"{row}\n{context}"
        if row["n"] == "0":
            assert row["reps"] == "0"
            continue
        assert row["reps"] == "5" and 0 < float(row["min_ms"]) <= float(row["median_ms"]) <= float(row["max_ms"])
        expected_gbps = 2 * int(row["n"]) * 4 / (float(row["median_ms"]) * 1e-3) / 1e9
        assert float(row["gbps"]) == pytest.approx(expected_gbps, rel=1e-3, abs=0.01)  # 0.00 at the tiny N


@pytest.mark.parametrize("variant", ["torch_cumsum", "jax_cumsum"])
@pytest.mark.parametrize("axis_args, mode", [([], "inclusive"), (["--row-length", "4097"], "inclusive-length4097"),
                                             (["--columns", "33"], "inclusive-columns33")])
def test_framework_bf16_to_float32_rows_pass(variant, seed, axis_args, mode):
    """bf16>float32: bfloat16 in, float32 out and accumulated, every element checked, GB/s over
    the 2 + 4 bytes an element moves."""
    runnable(variant)
    sizes = [0, 4097 * 33, 4097 * 33 * 16]
    result = script(",".join(map(str, sizes)), "--variants", variant, "--type", "bf16>float32", "--reps", "3",
                    "--seed", str(seed), *axis_args)
    context = f"seed {seed}\n{result.stderr[-3000:]}"
    assert result.returncode == 0, context
    rows = parse_rows(result.stdout)
    assert [(r["type"], r["mode"], int(r["n"]), r["status"]) for r in rows] == \
        [("bf16>float32", mode, n, "PASS") for n in sizes], context
    for row in rows[1:]:
        expected_gbps = int(row["n"]) * 6 / (float(row["median_ms"]) * 1e-3) / 1e9
        assert float(row["gbps"]) == pytest.approx(expected_gbps, rel=1e-3, abs=0.01), context


def test_one_array_scan_asked_for_an_axis_gives_skipped_rows():
    runnable("cuda_compute_scan")
    for axis_args, mode in (["--row-length", "1024"], "inclusive-length1024"), (["--columns", "8"], "inclusive-columns8"):
        result = script("2^20", "--variants", "cuda_compute_scan", *axis_args)
        assert result.returncode == 0, result.stderr
        assert [(r["mode"], r["status"], r["reps"]) for r in parse_rows(result.stdout)] == \
            [(mode, "SKIPPED(one-array-only)", "0")], result.stderr
        assert "scans one array, not along an axis" in result.stderr


@pytest.mark.parametrize("variant", fs.VARIANTS)
def test_framework_hot_and_adaptive_timing(variant):
    runnable(variant)
    result = script("2^22", "--variants", variant, "--hot")
    assert result.returncode == 0, result.stderr
    row = parse_rows(result.stdout)[0]
    assert row["status"] == "PASS" and fs.MIN_REPS <= int(row["reps"]) <= fs.MAX_REPS
    assert "hot L2" in result.stderr


@pytest.mark.parametrize("variant", fs.VARIANTS)
def test_framework_size_beyond_device_memory_exits_4(variant):
    runnable(variant)
    result = script("2^40", "--variants", variant)
    assert result.returncode == 4, result.stderr
    assert parse_rows(result.stdout)[0]["status"] == "SKIPPED(device-memory)"
    assert "not enough device memory" in result.stderr


@pytest.mark.parametrize("type_name", ["int32", "float32"])
def test_script_scans_the_data_the_binaries_scan(gpu, seed, tmp_path, type_name):
    """The scan bin/cub_scan writes (--output) is the script's reference of its own input."""
    n = 100_003
    result = run([BIN / "cub_scan", str(n), "--type", type_name, "--seed", seed, "--check-only",
                  "--output", tmp_path / "scan.bin"])
    assert result.returncode == 0, result.stderr
    got = np.frombuffer((tmp_path / "scan.bin").read_bytes(), dtype=fs.TYPES[type_name])
    values = fs.generate_input(fs.first_round_seed(seed, type_name, n), n, fs.TYPES[type_name])
    assert np.array_equal(got, fs.reference_scan(values)), f"seed {seed}"


def test_thrust_scan_every_type_op_and_mode(gpu, seed):
    sizes = [1, 33, 1000, 4097, 2**20 + 1, 2**24 - 1]
    for flags in ([], ["--in-place"]):
        result = run([BIN / "thrust_scan", ",".join(map(str, sizes)), "--type", ",".join(ALL_TYPES),
                      "--op", ",".join(OPS), "--mode", ",".join(MODES), "--check-only", "--seed", seed, *flags])
        context = f"seed {seed}, {flags}\n{result.stderr[-3000:]}"
        assert result.returncode == 0, context
        rows = parse_rows(result.stdout)
        assert len(rows) == len(sizes) * len(ALL_TYPES) * len(OPS) * len(MODES), context
        assert {r["status"] for r in rows} == {"PASS"}, context


def test_thrust_scan_keeps_its_block_across_sizes(gpu):
    """Sizes up and down in one process: the kept temporary block grows in a verified run and
    serves every smaller size after it; every timed row passes."""
    result = run([BIN / "thrust_scan", "1000,2^24+3,5000,2^22", "--reps", "3", "--mode", "inclusive,exclusive"])
    assert result.returncode == 0, result.stderr
    rows = parse_rows(result.stdout)
    assert len(rows) == 8 and all(r["status"] == "PASS" and float(r["gbps"]) > 0 for r in rows), result.stdout
