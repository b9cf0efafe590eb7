"""GPU tests: every binary over the edge sizes for every type, operator and mode, plus the
timing path, the watchdog, out-of-memory, file input/output and N >= 2^32. Skipped (with the
reason) when no GPU is visible."""
import random
import re
import time
import zlib

import numpy as np
import pytest

from conftest import (BIN, MODES, ONE_AT_A_TIME, OPS, TEST_BIN, TYPES, VARIANTS, built, built_types, parse_rows, problem_of,
                      run, runs_in_place, tile_items)


def edge_sizes(tile, rng):
    tile = tile or 1024
    sizes = {1, 2, 31, 32, 33, 1023, 1024, 1025, tile - 1, tile, tile + 1, 2 * tile + 1,
             2**20 + 1, 2**24 - 1}
    if tile * tile <= 2**26:  # hierarchy level boundaries
        sizes |= {tile * tile - 1, tile * tile, tile * tile + 1}
    sizes |= {rng.randrange(1, 2**22) for _ in range(3)}  # three seeded random sizes
    return sorted(s for s in sizes if s > 0)


@pytest.mark.parametrize("variant", built(VARIANTS))
def test_every_combination_at_edge_sizes(gpu, seed, variant):
    rng = random.Random(seed ^ zlib.crc32(variant.encode()))
    sizes = edge_sizes(tile_items(variant), rng)
    result = run([BIN / variant, ",".join(map(str, sizes)), "--type", ",".join(TYPES), "--op", ",".join(OPS),
                  "--mode", ",".join(MODES), "--check-only", "--seed", seed], timeout=600)
    rows = parse_rows(result.stdout)
    context = f"seed {seed}, sizes {sizes}\n{result.stderr[-3000:]}"
    assert len(rows) == len(sizes) * len(TYPES) * len(OPS) * len(MODES), context
    bad = [r for r in rows if r["status"] not in ("PASS", "WAIVED")]
    assert not bad, f"{bad[:5]}\n{context}"
    waived = any(r["status"] == "WAIVED" for r in rows)
    assert result.returncode == (3 if waived else 0), context


WIDE_TYPES = ["int64", "uint32", "uint64", "float64"]
# The problems of the applications, whose rows are not scans of the harness's types and operators
# (tests/test_applications.py checks them), and of the copies; each binary names its problem in
# its --help (conftest.problem_of).
APPLICATION_PROBLEMS = {"segmented scan", "segmented scan by offsets", "stream compaction", "sort"}
COPY_PROBLEMS = {"copy", "copy across GPUs"}
SCAN_VARIANTS = [v for v in VARIANTS if problem_of(v) not in APPLICATION_PROBLEMS]


@pytest.mark.parametrize("variant", built(SCAN_VARIANTS))
def test_64_bit_and_unsigned_types_at_edge_sizes(gpu, seed, variant):
    """Every scan variant with the wide and unsigned types, at its tile's edges and a few larger
    sizes, every operator and mode (in place: the sum): each type it was built for (--help)
    passes; each other type is a WAIVED row and exit 3."""
    tile = tile_items(variant) or 1024
    sizes = sorted({1, 33, tile - 1, tile, tile + 1, 2 * tile + 1, 2**20 + 1, 2**22 + 5})
    if variant == "sequential_scan":  # one thread: the larger sizes take seconds each
        sizes = [s for s in sizes if s < 2**20]
    built = built_types(variant)
    for ops, flags in ((OPS, []), (["sum"], ["--in-place"])):
        result = run([BIN / variant, ",".join(map(str, sizes)), "--type", ",".join(WIDE_TYPES), "--op", ",".join(ops),
                      "--mode", ",".join(MODES), "--check-only", "--seed", seed, *flags], timeout=600)
        rows = parse_rows(result.stdout)
        context = f"seed {seed}, sizes {sizes}, {flags}\n{result.stderr[-3000:]}"
        assert len(rows) == len(sizes) * len(WIDE_TYPES) * len(ops) * len(MODES), context
        for row in rows:
            waived = row["type"] not in built or (problem_of(variant) in COPY_PROBLEMS and flags) or (
                variant == "single_pass_scan_cluster" and int(row["n"]) > 2**16)
            assert row["status"] == ("WAIVED" if waived else "PASS"), f"{row}\n{context}"
        any_waived = any(r["status"] == "WAIVED" for r in rows)
        assert result.returncode == (3 if any_waived else 0), context


# Problems that cannot run in place (a copy onto itself, the applications, the recurrence) waive
# --in-place; the binary's --help says which it is ("runs in place").


@pytest.mark.parametrize("variant", built(VARIANTS))
def test_in_place_at_edge_sizes(gpu, seed, variant):
    """--in-place: the output buffer is the input's. Every scan variant, every type, operator and
    mode at its tile's edge sizes, checked against the reference."""
    tile = tile_items(variant) or 1024
    sizes = sorted({1, 33, tile - 1, tile, tile + 1, 2 * tile + 1, 33 * tile + 5})
    result = run([BIN / variant, ",".join(map(str, sizes)), "--in-place", "--type", ",".join(TYPES), "--op",
                  ",".join(OPS), "--mode", ",".join(MODES), "--check-only", "--seed", seed], timeout=600)
    rows = parse_rows(result.stdout)
    context = f"seed {seed}, sizes {sizes}\n{result.stderr[-3000:]}"
    assert len(rows) == len(sizes) * len(TYPES) * len(OPS) * len(MODES), context
    in_place = runs_in_place(variant)
    expected = {"PASS", "WAIVED"} if in_place else {"WAIVED"}
    assert {r["status"] for r in rows} <= expected, context
    if in_place:
        assert any(r["status"] == "PASS" for r in rows), context


def test_in_place_timed_run(gpu):
    for variant in ("cub_scan", "single_pass_scan_tuned"):
        result = run([BIN / variant, "2^20", "--in-place", "--reps", "5"])
        assert result.returncode == 0, result.stderr
        row = parse_rows(result.stdout)[0]
        assert row["status"] == "PASS" and float(row["median_ms"]) > 0, result.stdout


def test_wrong_output_exits_1_with_first_bad_index(gpu, tmp_path):
    data = np.array([5, 1, 1, 1, 1], dtype=np.int32)  # inclusive sum: 5 6 7 8 9; a copy: 5 1 1 1 1
    (tmp_path / "in.bin").write_bytes(data.tobytes())
    result = run([TEST_BIN / "copy_posing_as_scan", "--input", tmp_path / "in.bin"])
    assert result.returncode == 1, result.stderr
    assert "4 of 5 elements wrong; first at index 1: expected 6, got 1" in result.stderr
    assert parse_rows(result.stdout)[0]["status"] == "FAIL"
    generated = run([TEST_BIN / "copy_posing_as_scan", "100000,7", "--op", "max", "--exclusive"])
    assert generated.returncode == 1 and [r["status"] for r in parse_rows(generated.stdout)] == ["FAIL", "FAIL"]


def test_repeat_verifies_fresh_data_every_round(gpu):
    variant = "single_pass_scan_decoupled_lookbacks_warp_window"
    result = run([BIN / variant, "4097,65539", "--repeat", "25", "--check-only", "--op", "sum,max"])
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("PASS (25 rounds, fresh data each)") == 4
    broken = run([TEST_BIN / "copy_posing_as_scan", "1000", "--repeat", "3"])
    assert broken.returncode == 1 and "round 1 of 3" in broken.stderr


def test_packed30_refuses_values_it_cannot_hold(gpu, tmp_path):
    big = np.full(50_000, 2**20, dtype=np.int32)  # the running sum passes 2^29 at element 512
    (tmp_path / "big.bin").write_bytes(big.tobytes())
    result = run([BIN / "single_pass_scan_decoupled_lookbacks_packed30", "--input", tmp_path / "big.bin"])
    assert result.returncode == 3, result.stderr
    assert "30-bit" in result.stderr and parse_rows(result.stdout)[0]["status"] == "WAIVED"
    small = run([BIN / "single_pass_scan_decoupled_lookbacks_packed30", "50000,2^24+1", "--check-only"])
    assert small.returncode == 0, small.stderr


def test_timed_run_reports_consistent_times(gpu):
    for flags in ([], ["--hot"]):
        result = run([BIN / "hierarchical_kogge_stone", "2^16,100000", "--reps", "7", *flags])
        assert result.returncode == 0, result.stderr
        for row in parse_rows(result.stdout):
            assert row["status"] == "PASS" and row["reps"] == "7"
            median, low, high = float(row["median_ms"]), float(row["min_ms"]), float(row["max_ms"])
            assert 0 < low <= median <= high
            expected_gbps = 2 * int(row["n"]) * 4 / (median * 1e-3) / 1e9
            assert float(row["gbps"]) == pytest.approx(expected_gbps, rel=1e-3, abs=0.01)
        assert "Time taken:" in result.stderr and "GPU vs CPU check: PASS" in result.stderr


def test_budget_skips_sizes_that_would_run_too_long(gpu):
    result = run([BIN / "sequential_scan", "2^12,2^26", "--budget-ms", "1", "--reps", "3"])
    assert result.returncode == 0, result.stderr
    rows = parse_rows(result.stdout)
    assert [r["status"] for r in rows] == ["PASS", "SKIPPED(over-budget)"]
    assert "over --budget-ms" in result.stderr


# --inject-hang: in the zoo's single-pass variants (a chain, a look-back, the ticketed chain),
# tile 0 never publishes, so every later tile waits forever: the real deadlock, not a stand-in.
# Other variants have no inter-block protocol to break, and the library's tuned scan carries no
# test hook: a stand-in kernel that never finishes.
# Either way: exit 5 within the watchdog limit (2 s here), a HANG row, and the next run on the
# same GPU passes.
@pytest.mark.parametrize("variant", ["hierarchical_kogge_stone", "single_pass_scan_naive",
                                     "single_pass_scan_dynamic_block_index",
                                     "single_pass_scan_decoupled_lookbacks_warp_window", "single_pass_scan_tuned"])
def test_watchdog_ends_a_hung_scan_with_exit_5(gpu, variant):
    n = "2^20"
    began = time.monotonic()
    result = run([BIN / variant, n, "--inject-hang", "--timeout", "2"], timeout=60)
    elapsed = time.monotonic() - began
    assert result.returncode == 5, result.stderr
    assert "watchdog" in result.stderr
    hooked = variant.startswith("single_pass") and variant != "single_pass_scan_tuned"
    expected = "tile 0 never publishes" if hooked else "a kernel that never finishes"
    assert expected in result.stderr, result.stderr
    assert parse_rows(result.stdout)[-1]["status"] == "HANG"
    assert elapsed < 2 + 15, f"the watchdog (2 s) took {elapsed:.1f} s to end the run"
    after = run([BIN / variant, n, "--check-only"], timeout=60)
    assert after.returncode == 0, "the GPU did not recover after the watchdog: " + after.stderr


def test_size_beyond_device_memory_exits_4(gpu):
    result = run([BIN / "hierarchical_kogge_stone", "2^40"])
    assert result.returncode == 4, result.stderr
    assert "not enough device memory" in result.stderr
    assert re.search(r"needs \d+ bytes", result.stderr) and re.search(r"\d+ bytes \(.*\) free of \d+", result.stderr)
    assert parse_rows(result.stdout)[0]["status"].startswith("SKIPPED")


def test_input_output_files(gpu, tmp_path, seed):
    rng = np.random.default_rng(seed)
    ints = rng.integers(-2**31, 2**31, size=300_001, dtype=np.int32)
    (tmp_path / "ints.bin").write_bytes(ints.tobytes())
    result = run([BIN / "hierarchical_kogge_stone", "--input", tmp_path / "ints.bin", "--output",
                  tmp_path / "max.bin", "--op", "max", "--check-only"])
    assert result.returncode == 0, result.stderr
    got = np.frombuffer((tmp_path / "max.bin").read_bytes(), dtype=np.int32)
    assert np.array_equal(got, np.maximum.accumulate(ints))

    reals = rng.standard_normal(200_000).astype(np.float32)  # real-valued: checked with tolerance
    (tmp_path / "reals.bin").write_bytes(reals.tobytes())
    result = run([BIN / "cub_scan", "--input", tmp_path / "reals.bin", "--type", "float32", "--output",
                  tmp_path / "sum.bin", "--check-only"])
    assert result.returncode == 0, result.stderr
    got = np.frombuffer((tmp_path / "sum.bin").read_bytes(), dtype=np.float32)
    exact = np.cumsum(reals.astype(np.float64))
    assert np.all(np.abs(got - exact) <= 1e-4 * np.cumsum(np.abs(reals.astype(np.float64))))


# One variant per distinct code path for 64-bit offsets: the tree tile and the coarsened tile
# under the shared hierarchy driver, reduce-then-scan's own driver, CUB, and stream compaction's
# 64-bit tile counts (two-field descriptors above 2^32 - 1 elements).
@pytest.mark.parametrize("variant", ["hierarchical_kogge_stone", "hierarchical_warp_tiled_coarsening_optimized",
                                     "reduce_then_scan", "cub_scan", "stream_compaction"])
@ONE_AT_A_TIME
def test_n_beyond_2_to_the_32(gpu, variant):
    n = 2**32 + 3
    if int(gpu["memory_bytes"]) < 2 * 4 * n + (4 << 30):
        pytest.skip(f"needs {2 * 4 * n} bytes of device memory, the GPU has {gpu['memory_bytes']}")
    result = run([BIN / variant, str(n), "--check-only"], timeout=600)
    assert result.returncode == 0, result.stderr
    assert parse_rows(result.stdout)[0]["status"] == "PASS"


# The tuned scan switches configuration (tile shape, look-back) with N: check it across every row
# boundary of its table (powers of two) and every tile size of its space, and repeat runs in one
# process, which reuse the workspace: each run must leave it ready for the next (every run has a
# new epoch, tuned_scan.cuh), with no reset launch in between.
def test_tuned_scan_across_table_rows_and_tiles(gpu, seed):
    sizes = {n for k in range(10, 25) for n in (2**k - 1, 2**k, 2**k + 1)}
    for tile in (512, 1024, 2048, 4096, 8192, 16384):  # every Threads x Items of include/scan_zoo/detail/tuned_space.cuh
        sizes |= {tile - 1, tile, tile + 1, 2 * tile + 1, 133 * tile + 5}
    sizes = ",".join(map(str, sorted(sizes)))
    for types, ops, modes in (("int32", "sum", "inclusive"), ("float32,int32", "max,min,sum", "exclusive")):
        result = run([BIN / "single_pass_scan_tuned", sizes, "--type", types, "--op", ops, "--mode", modes,
                      "--check-only", "--repeat", "3", "--seed", seed], timeout=600)
        assert result.returncode == 0, result.stderr[-3000:]
        rows = parse_rows(result.stdout)
        assert rows and all(r["status"] == "PASS" for r in rows), result.stderr[-3000:]
    many = run([BIN / "single_pass_scan_tuned", "1000,2^16+3,2^22+7", "--repeat", "40", "--check-only"])
    assert many.returncode == 0 and many.stderr.count("PASS (40 rounds, fresh data each)") == 3, many.stderr


def test_timed_rows_report_their_percentiles(gpu):
    for flags in ([], ["--hot"]):
        result = run([BIN / "hierarchical_kogge_stone", "2^16,100000", "--reps", "21", *flags])
        assert result.returncode == 0, result.stderr
        for row in parse_rows(result.stdout):
            columns = ("min_ms", "p10_ms", "median_ms", "p90_ms", "max_ms")
            low, p10, median, p90, high = (float(row[c]) for c in columns)
            assert 0 < low <= p10 <= median <= p90 <= high, row
        assert re.search(r"min [\d.]+, p10 [\d.]+, p90 [\d.]+, max", result.stderr), result.stderr


# noisy_copy (tests/cuda/): every other run holds the GPU for about a millisecond, so a batch's
# median is far above its min (noisy when median_ms > 1.5 * min_ms). With --warmup 0 --reps 10 a
# batch is 10 runs; the verified run comes first (run 0).
def test_a_noisy_batch_is_measured_again_and_the_last_batch_reported(gpu):
    result = run([TEST_BIN / "noisy_copy", "4096", "--warmup", "0", "--reps", "10"])
    assert result.returncode == 0, result.stderr
    row = parse_rows(result.stdout)[0]
    assert row["status"] == "PASS" and float(row["median_ms"]) > 1.5 * float(row["min_ms"]), row
    assert result.stderr.count(": noisy: median") == 2, result.stderr
    assert "measuring again (2 of 2)" in result.stderr and "still noisy after 2 more batches" in result.stderr


def test_a_noisy_batch_that_settles_reports_the_settled_one(gpu, monkeypatch):
    monkeypatch.setenv("SCAN_ZOO_NOISY_RUNS", "11")  # slow runs in the first batch only (runs 1 to 10)
    result = run([TEST_BIN / "noisy_copy", "4096", "--warmup", "0", "--reps", "10"])
    assert result.returncode == 0, result.stderr
    row = parse_rows(result.stdout)[0]
    assert row["status"] == "PASS" and float(row["median_ms"]) <= 1.5 * float(row["min_ms"]), row
    assert result.stderr.count(": noisy: median") == 1 and ": settled: median" in result.stderr, result.stderr
