"""One timing table from the parts of a sweep run in pieces.

A sweep of the whole zoo takes about 11 minutes on an H100; where one call to a GPU machine may
run less than that, the sweep runs as several bench.sh calls, one after the other on the same
machine: `./bench.sh --part K/N` for K = 1..N (or calls with --variants), each with
memcpy_baseline and cub_scan so that every part carries the references it is read against. This
script joins the parts:

    python3 -m scripts merge-tables part1.txt part2.txt part3.txt -o bench/h100/timing.txt

The parts must come from one GPU, one commit, one build and one sweep line (type, op, mode,
sizes, budget, L2 regime): anything else is refused (exit 2), since rows of different machines
or builds do not compare. Tables of `bench.sh --part K/N` (header "# part: K/N") must be all N
parts, each once. The merged table keeps the first part's header, adds a "# parts:" line
with each part's date, and keeps each (variant, type, op, mode, n) row from the first part that
has it (the later parts' memcpy_baseline and cub_scan rows are their anchors, not new data).
The JSON beside the output is rewritten (timing_json.py).
"""
import argparse
import pathlib
import sys

from scripts import timing_json

# Header keys that must agree: the rows compare only when these do.
SAME = ("git_commit", "gpu", "compute_capability", "sm_count", "build_flags", "l2", "sweep")


def fail(message):
    print(f"merge_tables.py: {message}", file=sys.stderr)
    sys.exit(2)


def read(path):
    header, columns, rows = [], None, []
    for line in pathlib.Path(path).read_text().splitlines():
        if line.startswith("#"):
            header.append(line)
        elif columns is None:
            columns = line
        elif line.strip():
            rows.append(line)
    fields = {}
    for line in header:
        key, _, value = line[1:].strip().partition(":")
        fields[key.strip()] = value.strip()
    return header, fields, columns, rows


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="+", help="timing tables, the first one's header is kept")
    parser.add_argument("-o", "--out", required=True, help="the merged table (.txt; its .json beside it)")
    args = parser.parse_args(argv)
    parts = [read(path) for path in args.parts]
    header, first, columns, _ = parts[0]
    for path, (_, fields, part_columns, _) in zip(args.parts[1:], parts[1:]):
        for key in SAME:
            if fields.get(key) != first.get(key):
                fail(f"{path}: '{key}' is '{fields.get(key)}', "
                         f"not '{first.get(key)}' as in {args.parts[0]}: not parts of one sweep")
        if part_columns != columns:
            fail(f"{path}: other columns than {args.parts[0]}'s")
    # Parts of bench.sh --part K/N say which they are: then all N must be there, once each.
    labels = [fields.get("part") for _, fields, _, _ in parts]
    if any(labels):
        if not all(labels):
            fail("some tables say which part they are (# part: K/N) and some do not")
        counts = {label.split("/")[1] for label in labels}
        given = sorted(int(label.split("/")[0]) for label in labels)
        if len(counts) != 1 or given != list(range(1, int(counts.pop()) + 1)):
            fail(f"parts {', '.join(labels)}: each part K/N of one N, every K from 1 to N once")
    seen, merged = set(), []
    for _, _, _, rows in parts:
        for row in rows:
            key = tuple(row.split()[:5])
            if key not in seen:
                seen.add(key)
                merged.append(row)
    dates = ", ".join(fields.get("date", "?") for _, fields, _, _ in parts)
    header = [line for line in header if not line.startswith("# part:")]
    header = header + [f"# parts: {len(parts)} bench.sh runs, one after the other on this GPU, started {dates}"]
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(header + [columns] + merged) + "\n")
    json_path = out.with_suffix(".json")
    timing_json.main([str(out), "-o", str(json_path)])
    print(f"merge_tables.py: {len(merged)} rows from {len(parts)} parts -> {out}, {json_path}")



if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts merge-tables")
