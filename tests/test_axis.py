"""The scans along rows (src/axis/: row_scan and CUB's two ways, cub_row_scan_by_key and
cub_row_scans) on the GPU: every type each was built for, every operator and mode at row lengths on both sides of a
vector, a warp's round and a tile, in and out of place, each element checked against the CPU
reference of its row (verify_rows_scan); and a timed rows run. The library's own self-test of
the axis API is tests/test_api.py::test_axis_selftest; the CPU-side checks of --row-length are
in tests/test_harness_cpu.py."""
import pytest

from conftest import BIN, MODES, OPS, SOURCES, VARIANTS, built, built_types, parse_rows, run

ROWS_VARIANTS = [v for v in VARIANTS if SOURCES[v].parent.name == "axis"]
ALL_TYPES = ["int32", "float32", "int64", "uint32", "uint64", "float64"]
TILE = 4096  # row_scan's tile (include/scan_zoo/detail/rows_kernel.cuh, RowsConfig)
# Row lengths: shorter than a vector (1, 2, 3), a vector and a bit, a warp's round (128 int32),
# a tile, and rows of many tiles.
LENGTHS = [1, 2, 3, 4, 5, 31, 127, 128, 129, TILE - 1, TILE, TILE + 1, 3 * TILE + 7, 131072]


def sizes_for(variant, length):
    """N as whole numbers of rows: one row, a few, and many (about 2^18 elements). One CUB call
    per row (cub_row_scans) is two launches a row: at most a few hundred rows."""
    most_rows = 300 if variant == "cub_row_scans" else 1 << 18
    rows = sorted({1, 7, min(most_rows, max(1, (1 << 18) // length))})
    return [r * length for r in rows]


@pytest.mark.parametrize("variant", built(ROWS_VARIANTS))
@pytest.mark.parametrize("length", LENGTHS)
def test_rows_every_type_operator_and_mode(gpu, seed, variant, length):
    sizes = sizes_for(variant, length)
    types = [t for t in ALL_TYPES if t in built_types(variant)]
    result = run([BIN / variant, ",".join(map(str, sizes)), "--row-length", str(length), "--type", ",".join(types),
                  "--op", ",".join(OPS), "--mode", ",".join(MODES), "--check-only", "--seed", seed], timeout=600)
    rows = parse_rows(result.stdout)
    context = f"seed {seed}, length {length}, sizes {sizes}\n{result.stderr[-3000:]}"
    assert result.returncode == 0, context
    assert len(rows) == len(sizes) * len(types) * len(OPS) * len(MODES), context
    assert {r["status"] for r in rows} == {"PASS"}, context
    assert {r["mode"] for r in rows} == {f"{m}-length{length}" for m in MODES}, context


@pytest.mark.parametrize("variant", built(ROWS_VARIANTS))
def test_rows_in_place(gpu, seed, variant):
    for length in (3, 129, TILE + 1):
        sizes = sizes_for(variant, length)
        result = run([BIN / variant, ",".join(map(str, sizes)), "--row-length", str(length), "--in-place",
                      "--type", "int32,int64", "--mode", ",".join(MODES), "--check-only", "--seed", seed])
        context = f"seed {seed}, length {length}\n{result.stderr[-3000:]}"
        assert result.returncode == 0, context
        assert {r["status"] for r in parse_rows(result.stdout)} == {"PASS"}, context


def test_rows_timed_run(gpu):
    result = run([BIN / "row_scan", "2^20", "--row-length", "131072", "--reps", "5"])
    assert result.returncode == 0, result.stderr
    row = parse_rows(result.stdout)[0]
    assert (row["status"], row["mode"], row["n"]) == ("PASS", "inclusive-length131072", "1048576"), result.stdout
    assert float(row["median_ms"]) > 0
