"""The scans along an axis (src/axis/) on the GPU: along rows (row_scan and CUB's three ways,
cub_row_scan_by_key, cub_row_scans and cub_device_segmented_scan) at row lengths on both sides of a vector, a warp's round
and a tile; down columns (column_scan and cub_column_scans) at column counts narrower than a
vector, a group of lanes and a warp's columns, wider ones, odd and even; every type each was built
for, every operator and mode, in and out of place, each element checked against the CPU reference
of its line (verify_rows_scan, verify_columns_scan); linear_recurrence at every row length; and a
timed run of each axis. The library's
own self-test of the axis API is tests/test_api.py::test_axis_selftest; the CPU-side checks of
--row-length and --columns are in tests/test_harness_cpu.py."""
import pytest

from conftest import BIN, MODES, OPS, SOURCES, VARIANTS, built, built_types, left_out, parse_rows, run

ALL_TYPES = ["int32", "float32", "int64", "uint32", "uint64", "float64"]
# row_scan's tiles (include/scan_zoo/detail/rows_kernel.cuh, RowsTile): 256 x 32 items of 32
# bits, 256 x 12 of 64 bits.
TILE, WIDE_TILE = 8192, 3072
# Row lengths: shorter than a vector (1, 2, 3), a vector and a bit, a warp's round (128 int32),
# both tiles, and rows of many tiles.
ROW_LENGTHS = [1, 2, 3, 4, 5, 31, 127, 128, 129, WIDE_TILE - 1, WIDE_TILE, WIDE_TILE + 1, TILE - 1, TILE, TILE + 1,
               3 * TILE + 7, 131072]
# Column counts: odd (single elements), multiples of the vector, lane groups of every size, one
# tile's columns (32 int32, a group of 8 lanes), one more, and several blocks of them.
COLUMN_COUNTS = [1, 2, 3, 4, 5, 8, 31, 32, 33, 64, 100, 128, 129, 512, 1000]
AXES = {"row": ("--row-length", "length", ROW_LENGTHS), "column": ("--columns", "columns", COLUMN_COUNTS)}
# The scans of src/axis/; the linear recurrence and its backward, which scan maps of their own,
# have their test below.
RECURRENCES = {"linear_recurrence": "recurrence", "linear_recurrence_backward": "recurrence-backward"}
AXIS_VARIANTS = [v for v in VARIANTS if SOURCES[v].parent.name == "axis" and v not in RECURRENCES]


def axis_of(variant):
    """The axis a binary of src/axis/ scans: its name says columns, or it scans rows."""
    return "column" if "column_" in variant else "row"


CASES = [(v, axis_of(v), extent) for v in AXIS_VARIANTS for extent in AXES[axis_of(v)][2]]


def sizes_for(variant, extent):
    """N as whole numbers of lines' extents: one, a few, and many (about 2^18 elements). One CUB
    call per row (cub_row_scans) is two launches a row: at most a few hundred rows."""
    most = 300 if variant == "cub_row_scans" else max(1, (1 << 18) // extent)
    return [m * extent for m in sorted({1, 7, most})]


@pytest.mark.parametrize("variant, axis, extent", [
    pytest.param(*case, marks=pytest.mark.skip(reason=left_out(case[0]))) if left_out(case[0]) else case
    for case in CASES])
def test_every_type_operator_and_mode(gpu, seed, variant, axis, extent):
    option, label, _ = AXES[axis]
    sizes = sizes_for(variant, extent)
    types = [t for t in ALL_TYPES if t in built_types(variant)]
    result = run([BIN / variant, ",".join(map(str, sizes)), option, str(extent), "--type", ",".join(types),
                  "--op", ",".join(OPS), "--mode", ",".join(MODES), "--check-only", "--seed", seed], timeout=600)
    rows = parse_rows(result.stdout)
    context = f"seed {seed}, {option} {extent}, sizes {sizes}\n{result.stderr[-3000:]}"
    assert result.returncode == 0, context
    assert len(rows) == len(sizes) * len(types) * len(OPS) * len(MODES), context
    assert {r["status"] for r in rows} == {"PASS"}, context
    assert {r["mode"] for r in rows} == {f"{m}-{label}{extent}" for m in MODES}, context


@pytest.mark.parametrize("variant", built(AXIS_VARIANTS))
def test_in_place(gpu, seed, variant):
    option = AXES[axis_of(variant)][0]
    for extent in (3, 129, WIDE_TILE + 1, TILE + 1):
        sizes = sizes_for(variant, extent)
        result = run([BIN / variant, ",".join(map(str, sizes)), option, str(extent), "--in-place",
                      "--type", "int32,int64", "--mode", ",".join(MODES), "--check-only", "--seed", seed])
        context = f"seed {seed}, {option} {extent}\n{result.stderr[-3000:]}"
        assert result.returncode == 0, context
        assert {r["status"] for r in parse_rows(result.stdout)} == {"PASS"}, context


@pytest.mark.parametrize("variant, option, extent, mode", [
    ("row_scan", "--row-length", 131072, "inclusive-length131072"),
    ("column_scan", "--columns", 64, "inclusive-columns64"),
])
def test_timed_run(gpu, variant, option, extent, mode):
    result = run([BIN / variant, "2^20", option, str(extent), "--reps", "5"])
    assert result.returncode == 0, result.stderr
    row = parse_rows(result.stdout)[0]
    assert (row["status"], row["mode"], row["n"]) == ("PASS", mode, "1048576"), result.stdout
    assert float(row["median_ms"]) > 0


@pytest.mark.parametrize("variant", built(list(RECURRENCES)))
def test_linear_recurrence_along_rows(gpu, seed, variant):
    """linear_recurrence (h[t] = a[t] h[t - 1] + b[t] along rows) and its backward (da and db
    from a, h and dh): float32 at every row length above, each element against the loop in double
    (exact: the states and gradients are small integers); the operators and modes they have not
    (anything but sum inclusive, and int32) are WAIVED rows."""
    for extent in ROW_LENGTHS:
        sizes = sizes_for(variant, extent)
        result = run([BIN / variant, ",".join(map(str, sizes)), "--row-length", str(extent),
                      "--type", "float32", "--check-only", "--seed", seed], timeout=600)
        context = f"seed {seed}, --row-length {extent}, sizes {sizes}\n{result.stderr[-3000:]}"
        assert result.returncode == 0, context
        rows = parse_rows(result.stdout)
        assert len(rows) == len(sizes) and {r["status"] for r in rows} == {"PASS"}, context
        assert {r["mode"] for r in rows} == {f"{RECURRENCES[variant]}-length{extent}"}, context
    refused = run([BIN / variant, "4096", "--type", "float32,int32", "--op", "sum,max",
                   "--mode", "inclusive,exclusive", "--check-only"])
    statuses = [(r["type"], r["op"], r["status"]) for r in parse_rows(refused.stdout)]
    assert refused.returncode == 3 and statuses.count(("float32", "sum", "PASS")) == 1, refused.stdout
    assert sum(s == "WAIVED" for *_, s in statuses) == len(statuses) - 1, refused.stdout
