"""Compares two timing tables row by row: B faster, slower or the same as A, within the noise.

Like nvbench's compare script: has B, a sweep of yours, moved against A, the reference (or the
sweep before your change)?

  python3 -m scripts compare bench/h100/timing.txt results/h100/timing.txt
  python3 -m scripts compare A B --variants cub_scan,single_pass_scan_tuned --sizes 2^20,2^28

For every (variant, type, op, mode, N) measured in both tables: each median time, B's over A's
(below 1: B is faster), B's GB/s over A's (above 1: B is faster), and a verdict:
  faster / slower  the two rows' spreads do not overlap, B's below / above A's
  same             they overlap: the difference is within the noise
A row's spread is [p10, p90] of its reps, or [min, max] where either table lacks p10/p90 (tables
from before they were measured), so that both rows of a pair are judged alike. A pair where
either row was not timed (FAIL, SKIPPED, ...) shows the status and gets no ratio.
Then one line per variant: the geometric mean of its B/A time ratios and its count of verdicts.
The top names both tables' GPU, commit and date, with a warning when the GPUs (or L2 regimes)
differ: such ratios compare the machines as much as the code.

Options: --variants a,b and --sizes LIST (2^20, 1M, 2^24+1, 100000: bench.sh's syntax) keep
those rows only; --format csv gives the row table as CSV instead of Markdown.
Exit codes: 0 compared (whatever the verdicts); 1 a table cannot be read; 2 a usage error.
"""
import argparse
import math
import sys

import numpy as np
import pandas as pd

from scripts.sizes import parse_sizes
from scripts.timing_table import load

KEY = ["variant", "type", "op", "mode", "n"]


def size_list(text):
    """--sizes: the binaries' syntax (scripts/sizes.py), its errors as argparse's."""
    try:
        return parse_sizes(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def size_label(n):
    """2^20 for a power of two, 2^24+1 and 2^22-1 beside one (the sweep's awkward sizes), else N."""
    for offset, suffix in ((0, ""), (-1, "+1"), (1, "-1")):
        m = n + offset
        if m > 1 and m & (m - 1) == 0:
            return f"2^{m.bit_length() - 1}{suffix}"
    return str(n)


def describe(name, path, header):
    return (f"{name}: `{path}`: {header.get('gpu', 'unknown GPU')}, {header.get('l2', 'cold')} L2, "
            f"commit {header.get('git_commit', 'unknown')}, {header.get('date', 'unknown date')}")


def has_percentiles(rows):
    """Per row: whether it has both p10 and p90 (tables from before them have neither column)."""
    if "p10_ms" not in rows or "p90_ms" not in rows:
        return pd.Series(False, index=rows.index)
    return rows["p10_ms"].notna() & rows["p90_ms"].notna()


def pair(a_rows, b_rows):
    """The rows of both tables with the same key, side by side (columns suffixed _a and _b), in
    A's order."""
    a_rows = a_rows.assign(percentiles=has_percentiles(a_rows), order=range(len(a_rows)))
    b_rows = b_rows.assign(percentiles=has_percentiles(b_rows))
    for rows in (a_rows, b_rows):
        for column in ("p10_ms", "p90_ms"):
            if column not in rows:
                rows[column] = np.nan
    columns = KEY + ["median_ms", "min_ms", "max_ms", "p10_ms", "p90_ms", "gbps", "status", "percentiles"]
    both = a_rows[columns + ["order"]].merge(b_rows[columns], on=KEY, suffixes=("_a", "_b"))
    return both.sort_values("order").drop(columns="order").reset_index(drop=True)


def verdict(r):
    """faster, slower or same (spreads overlap) for B against A; '–' when either was not timed."""
    if r.status_a != "PASS" or r.status_b != "PASS":
        return "–"
    if r.percentiles_a and r.percentiles_b:
        low_a, high_a, low_b, high_b = r.p10_ms_a, r.p90_ms_a, r.p10_ms_b, r.p90_ms_b
    else:
        low_a, high_a, low_b, high_b = r.min_ms_a, r.max_ms_a, r.min_ms_b, r.max_ms_b
    if high_b < low_a:
        return "faster"
    if low_b > high_a:
        return "slower"
    return "same"


def compare(a_rows, b_rows):
    """One row per pair: the key, both medians and statuses, the ratios and the verdict."""
    both = pair(a_rows, b_rows)
    timed = (both["status_a"] == "PASS") & (both["status_b"] == "PASS")
    both["time_ratio"] = (both["median_ms_b"] / both["median_ms_a"]).where(timed)
    both["gbps_ratio"] = (both["gbps_b"] / both["gbps_a"]).where(timed)
    both["verdict"] = [verdict(r) for r in both.itertuples()]
    return both


def summary(compared):
    """Per variant (in order of appearance): rows compared, the geometric mean of B/A time, and
    how many rows were faster, the same and slower."""
    lines = []
    for variant, rows in compared.groupby("variant", sort=False):
        ratios = rows["time_ratio"].dropna()
        geomean = math.exp(np.log(ratios).mean()) if len(ratios) else math.nan
        counts = rows["verdict"].value_counts()
        lines.append(dict(variant=variant, rows=len(ratios), geomean=geomean,
                          faster=int(counts.get("faster", 0)), same=int(counts.get("same", 0)),
                          slower=int(counts.get("slower", 0))))
    return lines


def median_cell(r, side):
    status = getattr(r, f"status_{side}")
    return f"{getattr(r, f'median_ms_{side}'):.4f}" if status == "PASS" else status


def ratio_cell(value):
    return "–" if math.isnan(value) else f"{value:.3f}"


def markdown(a_path, a_header, b_path, b_header, compared):
    lines = ["# B against A", "", describe("A", a_path, a_header) + "  ", describe("B", b_path, b_header), ""]
    for what, key in (("GPUs", "gpu"), ("L2 regimes", "l2")):
        if a_header.get(key, "") != b_header.get(key, ""):
            lines += [f"**Warning**: A and B were measured with different {what} ({a_header.get(key, '?')} and "
                      f"{b_header.get(key, '?')}): the ratios compare those as much as the code.", ""]
    if compared.empty:
        return "\n".join(lines + ["No (variant, type, op, mode, N) is in both tables (with the filters given)."])
    lines += ["B/A time: B's median over A's (below 1: B is faster). B/A GB/s: above 1, B is faster. Verdict: "
              "faster or slower when the two rows' spreads ([p10, p90], or [min, max] where a table lacks them) "
              "do not overlap, same when they do.", "",
              "| variant | type | op | mode | N | A median ms | B median ms | B/A time | B/A GB/s | verdict |",
              "|---|---|---|---|---:|---:|---:|---:|---:|---|"]
    for r in compared.itertuples():
        lines.append(f"| `{r.variant}` | {r.type} | {r.op} | {r.mode} | {size_label(r.n)} | {median_cell(r, 'a')} | "
                     f"{median_cell(r, 'b')} | {ratio_cell(r.time_ratio)} | {ratio_cell(r.gbps_ratio)} | {r.verdict} |")
    lines += ["", "Per variant: the geometric mean of B/A time over its rows timed in both.", "",
              "| variant | rows | B/A time, geometric mean | faster | same | slower |",
              "|---|---:|---:|---:|---:|---:|"]
    for s in summary(compared):
        lines.append(f"| `{s['variant']}` | {s['rows']} | {ratio_cell(s['geomean'])} | {s['faster']} | {s['same']} | "
                     f"{s['slower']} |")
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the reference timing table (e.g. bench/h100/timing.txt)")
    parser.add_argument("b", help="the table compared with it (e.g. results/h100/timing.txt)")
    parser.add_argument("--variants", help="comma list: only these variants")
    parser.add_argument("--sizes", type=size_list, help="comma list of N: only these sizes")
    parser.add_argument("--format", choices=("markdown", "csv"), default="markdown")
    args = parser.parse_args(argv)
    tables = []
    for path in (args.a, args.b):
        try:
            tables.append(load(path))
        except (OSError, ValueError) as error:
            raise SystemExit(f"compare.py: cannot read {path}: {error}")
    (a_header, a_rows), (b_header, b_rows) = tables
    compared = compare(a_rows, b_rows)
    if args.variants:
        compared = compared[compared["variant"].isin(args.variants.split(","))]
    if args.sizes:
        compared = compared[compared["n"].isin(args.sizes)]
    if args.format == "csv":
        columns = KEY + ["median_ms_a", "median_ms_b", "status_a", "status_b", "time_ratio", "gbps_ratio", "verdict"]
        sys.stdout.write(compared[columns].to_csv(index=False))
    else:
        print(markdown(args.a, a_header, args.b, b_header, compared))



if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts compare")
