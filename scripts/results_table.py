"""Regenerates the documents' results tables from every GPU's sweep, bench/<gpu>/timing.txt.

One column group or block per GPU, GPUs ordered by slug (scripts/gpu_slug.py). Each table sits
between its markers, `<!-- NAME:begin ... -->` and `<!-- NAME:end -->` (the begin marker's text
is kept), in whichever of the documents holds them (README.md, docs/results.md,
docs/variants.md), and opens with a line naming each GPU's device, sweep, commit, date and file.

  results-table       every scan variant at the sweep's type/op/mode; per GPU: median time at
                      N = 2^20 and 2^28, % of memcpy bandwidth at 2^28 and CUB's time divided by
                      the variant's there (above 1: faster than CUB). Rows are ordered by the
                      first GPU's time at 2^28.
  fastest-table       per GPU, the tuned scan (single_pass_scan_tuned) against CUB and memcpy at
                      every power of two 2^10..2^30 of the sweep. Optional: written only where
                      a document has its markers. Where the begin marker says "compact" (the
                      README's front door), one table for every GPU at every second power of
                      two: the tuned scan's time, its share of memcpy's bandwidth, CUB's time
                      over it.
  applications-table  per GPU, each scan application against CUB's at 2^20 and 2^28. Needed
                      only when a sweep has application rows.

results-table is required in one of the documents, the others where a document has their
markers.

A time marked `~` is noisy: its median is more than 1.5x its minimum (the harness re-measures
such a row up to twice and reports the last batch); a footnote under the table says so.

Usage:
    python3 -m scripts results-table [--bench-dir bench | --timing FILE [FILE ...]] [--readme DOC ...]
        the documents' tables, from the committed reference (make plots; --readme, repeated:
        each document to fill, default README.md)
    python3 -m scripts results-table --from PATH
        the same tables on stdout, no document touched (make plots FROM=PATH); PATH is a timing
        table, a folder holding timing.txt (results/h100) or a folder of such folders (results);
        sweeps of the scans across GPUs are left out (they have a chart of their own)
"""
import argparse
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from scripts.gpu_slug import gpu_slug
from scripts.timing_table import application_groups, load, per_gpu_files, scan_rows

SMALL, LARGE = 2**20, 2**28
TUNED = "single_pass_scan_tuned"
FASTEST_SIZES = [2**k for k in range(10, 31)]
COMPACT_SIZES = FASTEST_SIZES[::2]  # 2^10, 2^12, ..., 2^30
# The harness re-measures a row whose median is more than NOISY_RATIO times its minimum (up to
# twice, reporting the last batch): a row still above it is noisy, and its times are marked.
NOISY_RATIO = 1.5
NOISY_MARK = "~"
NOISY_NOTE = (f"{NOISY_MARK}: noisy, the median more than {NOISY_RATIO}x the minimum even after the harness "
              "re-measured it: read it as approximate.")


@dataclass
class Sweep:
    """One GPU's timing.txt: where it is, its header and rows, and the GPU's slug."""
    path: Path
    header: dict
    rows: pd.DataFrame
    slug: str

    @property
    def label(self):
        return self.slug.upper()

    def describe(self, rows):
        """'NVIDIA H100 80GB HBM3, int32 sum inclusive, cold L2, commit 928c639, <date> (`file`)'."""
        first = rows.iloc[0]
        return (f"{self.header.get('gpu', 'unknown GPU')}, {first['type']} {first['op']} {first['mode']}, "
                f"{self.header.get('l2', 'cold')} L2, commit {self.header.get('git_commit', 'unknown')}, "
                f"{self.header.get('date', 'unknown date')} (`{shown(self.path)}`)")


def shown(path):
    """The path as the README should show it: relative to where the script runs, when inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def timing_files(path):
    """The timing tables a path names (make plots FROM=PATH): a table itself, a folder's
    timing.txt, or each <sweep>/timing.txt in a folder of sweeps (results/, bench/)."""
    path = Path(path)
    if path.is_file():
        return [path]
    if (path / "timing.txt").is_file():
        return [path / "timing.txt"]
    files = sorted(path.glob("*/timing.txt"))
    if not files:
        raise SystemExit(f"{path}: no timing table there (a timing.txt, a folder with one, or a folder of such "
                         "folders; ./bench.sh writes results/<gpu>/timing.txt)")
    return files


def is_multi_gpu(rows):
    """Whether a sweep is of the scans across GPUs (scripts/multi_gpu_bench.sh)."""
    return bool(rows["variant"].str.startswith("multi_gpu_").any())


def load_sweeps(paths):
    sweeps = []
    for path in paths:
        header, rows = load(path)
        sweeps.append(Sweep(Path(path), header, rows, gpu_slug(header.get("gpu", Path(path).parent.name))))
    sweeps.sort(key=lambda s: s.slug)
    slugs = [s.slug for s in sweeps]
    for slug in set(slugs):
        if slugs.count(slug) > 1:
            raise SystemExit(f"results_table.py: more than one sweep of GPU '{slug}': "
                             + ", ".join(str(s.path) for s in sweeps if s.slug == slug))
    return sweeps


def by_variant_and_n(rows):
    return {(r.variant, r.n): r for r in rows.itertuples()}


def passed(r):
    return r is not None and r.status == "PASS"


def noisy(r):
    return passed(r) and r.median_ms > NOISY_RATIO * r.min_ms


def time_cell(r, scale=1.0, digits=4):
    """A row's median time (ms, times `scale`; marked when noisy), or why there is none."""
    if r is None:
        return "not run"
    if not passed(r):
        return r.status
    return f"{r.median_ms * scale:.{digits}f}" + (NOISY_MARK if noisy(r) else "")


def with_noise_note(lines):
    """A table's lines, and the footnote on noisy times when one of its cells is marked."""
    table = "\n".join(lines)
    marked = any(cell.strip().endswith(NOISY_MARK)
                 for line in lines if line.startswith("| ") for cell in line.split("|"))
    return table + ("\n\n" + NOISY_NOTE if marked else "")


def compared(r, reference, value):
    """`value(r, reference)` for a row against a reference row of the same N: '–' where the row
    has no time, 'n/a' where the reference has none."""
    if not passed(r):
        return "–"
    return value(r, reference) if passed(reference) else "n/a"


def make_table(sweeps):
    """The scan table: one column group per GPU."""
    measured = [by_variant_and_n(rows[rows["status"] != "WAIVED"]) for rows in (scan_rows(s.rows) for s in sweeps)]

    def group(by, variant):
        r = by.get((variant, LARGE))
        return [time_cell(by.get((variant, SMALL))), time_cell(r),
                compared(r, by.get(("memcpy_baseline", LARGE)), lambda r, m: f"{100 * r.gbps / m.gbps:.0f}%"),
                compared(r, by.get(("cub_scan", LARGE)), lambda r, c: f"{c.median_ms / r.median_ms:.2f}")]

    def first_gpu_time(variant):
        r = measured[0].get((variant, LARGE))
        return r.median_ms if passed(r) else float("inf")

    variants = sorted({v for by in measured for v, _ in by}, key=lambda v: (first_gpu_time(v), v))
    columns = ["variant"]
    for s in sweeps:
        columns += [f"{s.label} 2^20: ms", f"{s.label} 2^28: ms", f"{s.label} 2^28: % of memcpy",
                    f"{s.label} 2^28: CUB time / this"]
    lines = ["; ".join(f"{s.label}: {s.describe(scan_rows(s.rows))}" for s in sweeps) + ".", "",
             "| " + " | ".join(columns) + " |", "|---|" + "---:|" * (len(columns) - 1)]
    for v in variants:
        cells = [f"`{v}`"] + [cell for by in measured for cell in group(by, v)]
        lines.append("| " + " | ".join(cells) + " |")
    return with_noise_note(lines)


def make_compact_fastest_table(sweeps):
    """One table for every GPU: the tuned scan at every second power of two, its % of memcpy and
    CUB's time over its own (the front door's)."""
    measured = [s for s in sweeps if any(passed(r) for r in scan_rows(s.rows).itertuples() if r.variant == TUNED)]
    if not measured:
        return f"No `{TUNED}` rows in the sweeps."
    by = {s.slug: by_variant_and_n(scan_rows(s.rows)) for s in measured}
    lines = [f"`{TUNED}`: its time, its bandwidth as a share of memcpy's, and CUB's time over its own "
             "(above 1: faster than CUB). " + "; ".join(f"{s.label}: {s.describe(scan_rows(s.rows))}" for s in measured)
             + ".", "",
             "| N | " + " | ".join(f"{s.label} µs | {s.label} % of memcpy | {s.label} CUB / tuned" for s in measured) + " |",
             "|---|" + "---:|---:|---:|" * len(measured)]
    for n in COMPACT_SIZES:
        if not any((TUNED, n) in by[s.slug] for s in measured):
            continue
        cells = [f"2^{n.bit_length() - 1}"]
        for s in measured:
            tuned, memcpy, cub = (by[s.slug].get((v, n)) for v in (TUNED, "memcpy_baseline", "cub_scan"))
            cells += [time_cell(tuned, scale=1e3, digits=1),
                      compared(tuned, memcpy, lambda t, m: f"{100 * m.median_ms / t.median_ms:.0f}%"),
                      compared(tuned, cub, lambda t, c: f"{c.median_ms / t.median_ms:.2f}x")]
        lines.append("| " + " | ".join(cells) + " |")
    return with_noise_note(lines)


def make_fastest_table(sweeps):
    """Per GPU, the tuned scan against CUB and memcpy at every power of two of the sweep."""
    blocks = [f"`{TUNED}` against CUB and memcpy at every power of two, per GPU; times in µs; % of memcpy: "
              "the tuned scan's bandwidth as a share of memcpy's; ratio: tuned time / CUB's (below 1: faster)."]
    for s in sweeps:
        rows = scan_rows(s.rows)
        by = by_variant_and_n(rows)
        intro = f"{s.label}: {s.describe(rows)}"
        sizes = [n for n in FASTEST_SIZES if any((v, n) in by for v in (TUNED, "cub_scan", "memcpy_baseline"))]
        if not any((TUNED, n) in by for n in sizes):
            blocks.append(f"{intro}: no `{TUNED}` rows.")
            continue
        lines = [f"{intro}.", "",
                 "| N | memcpy µs | CUB µs | tuned µs | tuned: % of memcpy | tuned / CUB time |",
                 "|---|---:|---:|---:|---:|---:|"]
        for n in sizes:
            tuned, memcpy, cub = by.get((TUNED, n)), by.get(("memcpy_baseline", n)), by.get(("cub_scan", n))
            cells = [f"2^{n.bit_length() - 1}"] + [time_cell(r, scale=1e3, digits=1) for r in (memcpy, cub, tuned)]
            cells += [compared(tuned, memcpy, lambda t, m: f"{100 * m.median_ms / t.median_ms:.0f}%"),
                      compared(tuned, cub, lambda t, c: f"{t.median_ms / c.median_ms:.2f}")]
            lines.append("| " + " | ".join(cells) + " |")
        blocks.append(with_noise_note(lines))
    return "\n\n".join(blocks)


def make_applications_table(sweeps):
    """Per GPU that ran them, each application against its CUB reference; None when none did."""
    blocks = []
    for s in sweeps:
        groups = application_groups(s.rows)
        if not groups:
            continue
        by = by_variant_and_n(s.rows)

        def time(variant, n):
            return time_cell(by.get((variant, n)), scale=1e3, digits=1)

        def ratio(variant, reference, n):
            a, b = by.get((variant, n)), by.get((reference, n))
            return f"{a.median_ms / b.median_ms:.2f}" if passed(a) and passed(b) else "–"

        lines = [
            f"{s.label}: {s.header.get('gpu', 'unknown GPU')}, {s.header.get('l2', 'cold')} L2, commit "
            f"{s.header.get('git_commit', 'unknown')}, {s.header.get('date', 'unknown date')} (`{shown(s.path)}`); "
            "times in µs; ratio: our time / CUB's (below 1: faster).",
            "",
            "| application | ours | CUB | 2^20: ours | 2^20: CUB | 2^20: ratio | 2^28: ours | 2^28: CUB | 2^28: ratio |",
            "|---|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        for label, ours, reference in groups:
            for variant in ours:
                lines.append(f"| {label} | `{variant}` | `{reference}` | {time(variant, SMALL)} | "
                             f"{time(reference, SMALL)} | {ratio(variant, reference, SMALL)} | {time(variant, LARGE)} | "
                             f"{time(reference, LARGE)} | {ratio(variant, reference, LARGE)} |")
        blocks.append(with_noise_note(lines))
    return "\n\n".join(blocks) if blocks else None


def markers(text, name):
    """The NAME begin marker's match and whether its end marker follows; (None, False) without."""
    begin = re.search(rf"<!-- {name}:begin\b.*?-->", text)
    return begin, begin is not None and f"<!-- {name}:end -->" in text[begin.end():]


def replace_between(text, name, table):
    """The text with `table` between the NAME markers (the caller made sure they are there)."""
    begin, _ = markers(text, name)
    after = text[begin.end():].split(f"<!-- {name}:end -->", 1)[1]
    return f"{text[:begin.end()]}\n{table}\n<!-- {name}:end -->{after}"


def update_documents(documents, sweeps):
    """Every table into each document that has its markers; results-table must be in one of them,
    and applications-table too when a sweep has application rows."""
    tables = {"results-table": make_table(sweeps), "applications-table": make_applications_table(sweeps)}
    found = set()
    for document in documents:
        text = Path(document).read_text()
        for name in ("results-table", "fastest-table", "applications-table"):
            begin, whole = markers(text, name)
            if not whole or (name == "applications-table" and tables[name] is None):
                continue
            found.add(name)
            if name == "fastest-table":
                table = make_compact_fastest_table(sweeps) if "compact" in begin.group(0) else make_fastest_table(sweeps)
            else:
                table = tables[name]
            text = replace_between(text, name, table)
        Path(document).write_text(text)
    for name in ("results-table", "applications-table"):
        if name not in found and tables[name] is not None:
            raise SystemExit(f"{', '.join(map(str, documents))}: markers <!-- {name}:begin ... --> ... "
                             f"<!-- {name}:end --> not found")


def print_tables(path):
    """Every table of the sweeps at `path`, to stdout (make plots FROM=PATH)."""
    sweeps = load_sweeps([p for p in timing_files(path) if not is_multi_gpu(load(p)[1])])
    if not sweeps:
        print(f"results_table.py: {path} holds only sweeps of the scans across GPUs: no tables (see their charts)")
        return
    print(f"Tables of {', '.join(f'`{shown(s.path)}`' for s in sweeps)} (the documents', not written to them)")
    tables = [("results-table", make_table(sweeps)), ("fastest-table", make_fastest_table(sweeps)),
              ("applications-table", make_applications_table(sweeps))]
    for name, table in tables:
        if table is not None:
            print(f"\n### {name}\n\n{table}")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench-dir", default="bench", help="every <bench-dir>/<gpu>/timing.txt (the default)")
    parser.add_argument("--timing", nargs="+", help="these sweeps instead, one per GPU")
    parser.add_argument("--readme", action="append", metavar="DOC",
                        help="a document to fill, repeated for several (default: README.md)")
    parser.add_argument("--from", dest="source", metavar="PATH",
                        help="print the tables of this table or folder instead; no document is touched")
    args = parser.parse_args(argv)
    if args.source:
        print_tables(args.source)
        return
    paths = args.timing or per_gpu_files(args.bench_dir, "timing.txt")
    if not paths:
        raise SystemExit(f"results_table.py: no {args.bench_dir}/*/timing.txt (run ./bench.sh)")
    documents = args.readme or ["README.md"]
    update_documents(documents, load_sweeps(paths))
    print(f"{', '.join(documents)}: results tables regenerated from {', '.join(shown(p) for p in paths)}")



if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts results-table")
