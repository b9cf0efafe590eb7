"""Tests of the scan applications: segmented scan, stream compaction and radix sort, ours and
CUB's. test_gpu.py's edge-size sweep already runs every binary over every type, operator and
mode; these add the inputs generated data does not reach (segment lengths from 1 to one
segment, all or none of the elements kept, duplicate keys, signed zeros, keys of one or two
digit values), the sorts' own edge sizes (the one-block path, N past 2^32), the refusals, the
watchdog and repeated runs on one workspace."""
import numpy as np
import pytest

from conftest import BIN, ONE_AT_A_TIME, OPS, TYPES, built_types, parse_rows, run, tile_items

PAIRS = {"segmented_scan": "cub_segmented_scan", "segmented_scan_offsets": "cub_segmented_scan",
         "stream_compaction": "cub_select",
         "radix_sort_three_kernels": "cub_radix_sort", "radix_sort_onesweep": "cub_radix_sort"}
SEGMENTED = ["segmented_scan", "cub_segmented_scan", "segmented_scan_offsets"]
COMPACTION = ["stream_compaction", "cub_select"]
SORT = ["radix_sort_three_kernels", "radix_sort_onesweep", "cub_radix_sort"]
SORT_TYPES = ["int32", "float32", "int64", "uint32", "uint64", "float64"]  # every key radix_keys.cuh orders


# ---- no GPU needed: refusals are decided before the GPU is touched ----

def test_segmented_scan_generates_its_own_input(tmp_path):
    (tmp_path / "in.bin").write_bytes(np.arange(8, dtype=np.int32).tobytes())
    result = run([BIN / "segmented_scan", "--input", tmp_path / "in.bin"])
    assert result.returncode == 2 and "generates its own input" in result.stderr, result.stderr


def test_segment_length_is_for_segmented_scans_only():
    result = run([BIN / "stream_compaction", "1000", "--segment-length", "10"])
    assert result.returncode == 2 and "segmented scans only" in result.stderr, result.stderr


@pytest.mark.parametrize("variant", COMPACTION + SORT)
def test_operator_and_mode_refused_without_gpu(variant):
    result = run([BIN / variant, "1000", "--op", "max", "--mode", "exclusive"])
    assert result.returncode == 3, result.stderr
    assert [r["status"] for r in parse_rows(result.stdout)] == ["WAIVED"]
    assert "no operator or scan mode" in result.stderr


@pytest.mark.parametrize("variant", ["memcpy_baseline", "segmented_scan", "stream_compaction"])
def test_values_are_for_the_sorts_only(variant):
    result = run([BIN / variant, "1000", "--values"])
    assert result.returncode == 2 and "--values is for the sorts only" in result.stderr, result.stderr


def test_a_sort_without_pairs_waives_values():
    result = run([BIN / "radix_sort_three_kernels", "1000,5000", "--values"])
    assert result.returncode == 3, result.stderr
    assert [r["status"] for r in parse_rows(result.stdout)] == ["WAIVED", "WAIVED"]
    assert "does not carry values" in result.stderr


def test_every_sort_takes_every_key_type():
    for variant in SORT:
        assert built_types(variant) == set(SORT_TYPES), variant


# ---- on the GPU ----

@pytest.mark.parametrize("length", ["1", "3", "4096", "2^40"])
@pytest.mark.parametrize("variant", SEGMENTED)
def test_segmented_scan_over_segment_lengths(gpu, seed, variant, length):
    sizes = "1,4095,4096,4097,100000,2^22+5"
    result = run([BIN / variant, sizes, "--segment-length", length, "--type", ",".join(TYPES), "--op", ",".join(OPS),
                  "--mode", "inclusive,exclusive", "--check-only", "--seed", seed])
    rows = parse_rows(result.stdout)
    assert result.returncode == 0 and len(rows) == 6 * 2 * 3 * 2, result.stderr[-3000:]
    assert all(r["status"] == "PASS" for r in rows)
    assert {r["mode"] for r in rows} == {"segmented-inclusive", "segmented-exclusive"}


@pytest.mark.parametrize("variant", COMPACTION)
def test_compaction_of_given_inputs(gpu, tmp_path, variant):
    rng = np.random.default_rng(5)
    cases = {
        "mixed": rng.integers(-2**31, 2**31, size=300_001, dtype=np.int32),
        "all kept": rng.integers(1, 100, size=70_000, dtype=np.int32),
        "none kept": -rng.integers(0, 100, size=70_000, dtype=np.int32),
        "alternating": np.tile(np.array([5, -5], dtype=np.int32), 40_000),
    }
    for name, data in cases.items():
        (tmp_path / "in.bin").write_bytes(data.tobytes())
        result = run([BIN / variant, "--input", tmp_path / "in.bin", "--output", tmp_path / "out.bin", "--check-only"])
        assert result.returncode == 0, f"{name}: {result.stderr}"
        assert parse_rows(result.stdout)[0]["op"] == "select"
        got = np.frombuffer((tmp_path / "out.bin").read_bytes(), dtype=np.int32)
        assert np.array_equal(got, data[data > 0]), name


def ordered_keys(keys):
    """The order of keys of any width as unsigned integers of that width, for a stable reference
    sort: floats -0.0 made +0.0, then the negatives' bits inverted and the positives' sign bit set
    (CUB's twiddle, not radix_keys.cuh's negation); signed integers the sign bit flipped."""
    width = keys.dtype.itemsize * 8
    unsigned = np.dtype(f"uint{width}").type
    sign = unsigned(1 << (width - 1))
    bits = keys.view(unsigned)
    if keys.dtype.kind == "f":
        bits = np.where(bits == sign, unsigned(0), bits)
        return np.where(bits >> unsigned(width - 1) == 1, ~bits, bits ^ sign)
    if keys.dtype.kind == "i":
        return bits ^ sign
    return bits


@pytest.mark.parametrize("variant", SORT)
def test_sort_of_given_keys(gpu, tmp_path, variant):
    rng = np.random.default_rng(9)
    cases = {
        "int32 duplicates": (rng.integers(-3, 3, size=500_001, dtype=np.int32), "int32"),
        "int32 extremes": (np.array([2**31 - 1, -2**31, 0, -1, 1] * 1000, dtype=np.int32), "int32"),
        "float32 signed zeros and tiny": (np.array([0.0, -0.0, 1e-40, -1e-40, 3.5, -3.5, 3e38, -3e38] * 5000,
                                                   dtype=np.float32), "float32"),
        "float32 normal": (rng.standard_normal(262_147).astype(np.float32), "float32"),
        "uint32 extremes": (np.array([0, 2**32 - 1, 2**31, 2**31 - 1, 1] * 1000, dtype=np.uint32), "uint32"),
        "int64 duplicates": (rng.integers(-3, 3, size=200_003, dtype=np.int64), "int64"),
        "int64 extremes": (np.array([2**63 - 1, -2**63, 0, -1, 1, 2**32, -2**32] * 1000, dtype=np.int64), "int64"),
        "uint64 extremes": (np.array([0, 2**64 - 1, 2**63, 2**63 - 1, 1, 2**32] * 1000, dtype=np.uint64), "uint64"),
        "float64 signed zeros and tiny": (np.array([0.0, -0.0, 5e-324, -5e-324, 3.5, -3.5, 1.7e308, -1.7e308] * 5000,
                                                   dtype=np.float64), "float64"),
        "float64 normal": (rng.standard_normal(262_147), "float64"),
    }
    for name, (data, dtype) in cases.items():
        (tmp_path / "in.bin").write_bytes(data.tobytes())
        result = run([BIN / variant, "--input", tmp_path / "in.bin", "--type", dtype, "--output",
                      tmp_path / "out.bin", "--check-only"])
        assert result.returncode == 0, f"{name}: {result.stderr}"
        got = np.frombuffer((tmp_path / "out.bin").read_bytes(), dtype=data.dtype)
        want = data[np.argsort(ordered_keys(data), kind="stable")]
        assert got.tobytes() == want.tobytes(), name


def test_radix_sort_three_kernels_refuses_sizes_beyond_its_offsets(gpu):
    result = run([BIN / "radix_sort_three_kernels", "2^32", "--check-only"])
    assert result.returncode == 3, result.stderr
    assert parse_rows(result.stdout)[0]["status"] == "WAIVED" and "32-bit" in result.stderr


# The sorts' own edges, checked bit for bit against the stable CPU reference by the harness:
# nothing, one key, the tile's edges, which are also radix_sort_onesweep's one-block threshold
# (one block sorts N <= one tile, radix_sort_onesweep.cu), two tiles, sizes of many tiles with a
# partial last one, below and above radix_sort_onesweep's switch to larger tiles (2^21).
@pytest.mark.parametrize("variant", SORT)
def test_sort_at_its_edge_sizes(gpu, seed, variant):
    one_block = tile_items("radix_sort_onesweep")
    sizes = sorted({0, 1, 2**12 - 1, 2**12, 2**12 + 1, one_block - 1, one_block, one_block + 1, 2 * one_block + 1,
                    2**20 + 3, 2**21 - 1, 2**21, 2**21 + 5})
    result = run([BIN / variant, ",".join(map(str, sizes)), "--type", ",".join(SORT_TYPES), "--check-only",
                  "--seed", seed])
    rows = parse_rows(result.stdout)
    context = f"seed {seed}, sizes {sizes}\n{result.stderr[-3000:]}"
    assert result.returncode == 0 and len(rows) == len(sizes) * len(SORT_TYPES), context
    assert all(r["status"] == "PASS" for r in rows), context


def skewed_keys(n, rng, dtype=np.float32):
    """{name: n float keys} whose digits take one value, or two, in every pass. Built from +0.0
    and -0.0, equal keys with different bits, so that a sort that is not stable shows."""
    zeros = np.where(rng.random(n) < 0.5, dtype(0.0), dtype(-0.0)).astype(dtype)
    # +-0.0 and 1.0 as ordered words (radix_keys.cuh), float32: 0x80000000 and 0xBF800000. Digits
    # 0 and 1 are 0x00 in both, digit 2 is 0x00 or 0x80, digit 3 0x80 or 0xBF: every pass sees one
    # digit value or two (float64: 0x8000000000000000 and 0xBFF0000000000000, the same in 8 digits).
    zeros_and_ones = np.where(rng.random(n) < 0.5, zeros, dtype(1.0)).astype(dtype)
    return {"all equal (+-0.0)": zeros, "two digit values (+-0.0, 1.0)": zeros_and_ones}


# Skewed inputs: every key of a pass in one digit value (a tile's counts all in one bucket, every
# ranking round one group of 32 peers, 255 of a tile's 256 look-back walks over zero counts), or
# in two. Sizes on both sides of radix_sort_onesweep's one-block threshold and over many tiles.
@pytest.mark.parametrize("variant", SORT)
def test_sort_of_skewed_keys(gpu, tmp_path, variant):
    rng = np.random.default_rng(11)
    one_block = tile_items("radix_sort_onesweep")
    for dtype, type_name in ((np.float32, "float32"), (np.float64, "float64")):
        for n in (one_block, one_block + 1, 300_001):
            for name, data in skewed_keys(n, rng, dtype).items():
                (tmp_path / "in.bin").write_bytes(data.tobytes())
                result = run([BIN / variant, "--input", tmp_path / "in.bin", "--type", type_name, "--output",
                              tmp_path / "out.bin", "--check-only"])
                assert result.returncode == 0, f"{type_name} {name}, n={n}: {result.stderr}"
                got = np.frombuffer((tmp_path / "out.bin").read_bytes(), dtype=dtype)
                want = data[np.argsort(ordered_keys(data), kind="stable")]
                assert got.tobytes() == want.tobytes(), f"{type_name} {name}, n={n}"
    ints = np.full(300_001, 7, dtype=np.int32)
    (tmp_path / "in.bin").write_bytes(ints.tobytes())
    result = run([BIN / variant, "--input", tmp_path / "in.bin", "--type", "int32", "--check-only"])
    assert result.returncode == 0, f"int32, all 7: {result.stderr}"
    # The largest and smallest keys only: the largest has every digit 255, as the padding that
    # radix_sort_onesweep puts past a partial last tile (which must stay out of the output).
    for dtype, type_name in ((np.int32, "int32"), (np.int64, "int64")):
        for n in (one_block + 1, 2**21 + 5):
            extremes = np.where(rng.random(n) < 0.5, np.iinfo(dtype).max, np.iinfo(dtype).min).astype(dtype)
            (tmp_path / "in.bin").write_bytes(extremes.tobytes())
            result = run([BIN / variant, "--input", tmp_path / "in.bin", "--type", type_name, "--output",
                          tmp_path / "out.bin", "--check-only"])
            assert result.returncode == 0, f"{type_name} extremes, n={n}: {result.stderr}"
            got = np.frombuffer((tmp_path / "out.bin").read_bytes(), dtype=dtype)
            assert np.array_equal(got, np.sort(extremes)), f"{type_name} extremes, n={n}"


# Key-value pairs (--values): each key's 32-bit value (distinct: i xor a seed constant) must come
# out beside it, equal keys' values in input order, checked by the harness against the pairs
# reference. Sizes around the one-block threshold, a few tiles, and many with a partial last one.
PAIR_SORTS = ["radix_sort_onesweep", "cub_radix_sort"]


@pytest.mark.parametrize("variant", PAIR_SORTS)
def test_sort_of_key_value_pairs(gpu, seed, variant):
    one_block = tile_items("radix_sort_onesweep")
    sizes = sorted({1, 33, one_block - 1, one_block, one_block + 1, 3 * one_block + 7, 2**20 + 3, 2**21 + 5})
    result = run([BIN / variant, ",".join(map(str, sizes)), "--type", ",".join(SORT_TYPES), "--values",
                  "--check-only", "--seed", seed])
    rows = parse_rows(result.stdout)
    context = f"seed {seed}, sizes {sizes}\n{result.stderr[-3000:]}"
    assert result.returncode == 0 and len(rows) == len(sizes) * len(SORT_TYPES), context
    assert all(r["status"] == "PASS" and r["mode"] == "ascending-pairs" for r in rows), context


@pytest.mark.parametrize("variant", PAIR_SORTS)
def test_pairs_of_equal_keys_keep_their_order(gpu, tmp_path, variant):
    # All keys +-0.0: every value's place is its input index, and any instability shows.
    rng = np.random.default_rng(5)
    one_block = tile_items("radix_sort_onesweep")
    for n in (one_block, 300_001):
        zeros = skewed_keys(n, rng)["all equal (+-0.0)"]
        (tmp_path / "in.bin").write_bytes(zeros.tobytes())
        result = run([BIN / variant, "--input", tmp_path / "in.bin", "--type", "float32", "--values", "--check-only"])
        assert result.returncode == 0, f"n={n}: {result.stderr}"


def available_host_bytes():
    with open("/proc/meminfo") as meminfo:
        fields = dict(line.split(":", 1) for line in meminfo)
    return int(fields["MemAvailable"].split()[0]) * 1024


# 64-bit counts: past 2^32 keys a digit's count in a prefix of tiles leaves 32 bits, and the
# descriptors become 128-bit pairs. Needs about 56 GB of GPU memory (input, output, the
# workspace's copy of the keys, 4.3 GB of descriptors) and about 70 GB of host memory (input,
# output, the reference sort and its buffer); minutes of CPU for the reference.
@ONE_AT_A_TIME
def test_radix_sort_onesweep_beyond_2_to_the_32(gpu):
    n = 2**32 + 1
    tiles = -(-n // tile_items("radix_sort_onesweep"))
    device_bytes = 3 * 4 * n + tiles * 256 * 16 + (2 << 30)
    host_bytes = 4 * 4 * n + (4 << 30)
    if int(gpu["memory_bytes"]) < device_bytes:
        pytest.skip(f"needs about {device_bytes} bytes of device memory, the GPU has {gpu['memory_bytes']}")
    if available_host_bytes() < host_bytes:
        pytest.skip(f"needs about {host_bytes} bytes of host memory, {available_host_bytes()} available")
    result = run([BIN / "radix_sort_onesweep", str(n), "--check-only", "--timeout", "300"], timeout=1800)
    assert result.returncode == 0, result.stderr
    assert parse_rows(result.stdout)[0]["status"] == "PASS"


# The single-pass applications wait on their predecessors' descriptors: the hang hook makes
# tile 0 silent, so the watchdog must end the run (exit 5), and the GPU must be usable after.
@pytest.mark.parametrize("variant", ["segmented_scan", "stream_compaction", "radix_sort_onesweep"])
def test_watchdog_ends_a_hung_application(gpu, variant):
    result = run([BIN / variant, "2^20", "--inject-hang", "--timeout", "2"], timeout=60)
    assert result.returncode == 5 and "tile 0 never publishes" in result.stderr, result.stderr
    assert parse_rows(result.stdout)[-1]["status"] == "HANG"
    assert run([BIN / variant, "2^20", "--check-only"], timeout=60).returncode == 0


# Repeated runs in one process reuse the workspace: the one-launch applications rely on each run
# taking a new descriptor epoch (the onesweep sort on a new epoch per pass, and on each pass's
# tile 0 leaving its row of the histogram zero), radix_sort_three_kernels on its ping-pong buffer
# and the tuned scan inside it.
@pytest.mark.parametrize("variant", ["segmented_scan", "stream_compaction", "radix_sort_three_kernels",
                                     "radix_sort_onesweep"])
def test_repeated_runs_on_one_workspace(gpu, variant):
    result = run([BIN / variant, "4097,2^20+3", "--repeat", "30", "--check-only"])
    assert result.returncode == 0 and result.stderr.count("PASS (30 rounds, fresh data each)") == 2, result.stderr


@pytest.mark.parametrize("ours", list(PAIRS))
def test_timed_rows_of_each_application_and_its_cub_reference(gpu, ours):
    for variant in (ours, PAIRS[ours]):
        result = run([BIN / variant, "2^16,2^20", "--reps", "5"])
        rows = parse_rows(result.stdout)
        assert result.returncode == 0 and [r["status"] for r in rows] == ["PASS", "PASS"], result.stderr
        assert all(float(r["median_ms"]) > 0 and float(r["gbps"]) > 0 for r in rows)
