"""A timing table (bench.sh's timing.txt) as JSON, in the shape of nvbench's JSON output.

For tools that read that rather than our text columns. bench.sh writes it beside every table it
writes (timing.txt -> timing.json).

  {"meta":       the header's other lines: title, date, git_commit, nvcc, build_flags, l2, sweep,
                 ... and the table it came from (source) and its columns,
   "devices":    [{"id": 0, "name": the '# gpu:' line, and every other line of --device-info:
                   compute_capability, sm_count, l2_bytes, memory_bytes, memory_clock_khz,
                   memory_bus_bits, peak_memory_gbps, cuda_driver, cuda_runtime}],
   "benchmarks": one per row: {"name": the variant,
                               "axes": {"type", "op", "mode", "n", "gpus"},
                               "summaries": {"median", "min", "max", "p10", "p90": seconds,
                                             "gbps", "reps"},
                               "status": "PASS", "FAIL", "SKIPPED(over-budget)", ...}}

Every time is in seconds (nvbench's unit; the table's are milliseconds). A value the table does
not have (nan: a row that was not timed, or p10/p90 in a table from before they were measured)
is null, so the file is strict JSON.

Usage: python3 -m scripts timing-json TIMING [-o JSON]     (default: to stdout)
Exit codes: 0 written; 1 the table cannot be read.
"""
import argparse
import json
import math
import re
import sys
from pathlib import Path

from scripts.timing_table import load

# The header lines that describe the GPU (what `<binary> --device-info` prints); the others
# describe the sweep.
DEVICE_KEYS = ("compute_capability", "sm_count", "l2_bytes", "memory_bytes", "memory_clock_khz", "memory_bus_bits",
               "peak_memory_gbps", "cuda_driver", "cuda_runtime")
# The summaries that are times: the table's column, in milliseconds, for each.
TIME_SUMMARIES = {"median": "median_ms", "min": "min_ms", "max": "max_ms", "p10": "p10_ms", "p90": "p90_ms"}


def device_value(text):
    """A device property as JSON: a whole number as a number (sm_count, l2_bytes, ...), anything
    else as it was written (versions such as 9.0 and 13.0 stay strings). The sweep's lines stay
    strings all (a commit can be all digits)."""
    return int(text) if re.fullmatch(r"-?\d+", text) else text


def number(value, convert=float):
    """A table cell as a JSON number, or None where the table has none (nan, or no such column)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return convert(value)


def to_json(header, rows, title="", source=""):
    """The JSON document (a dict) of a table's header and rows, as timing_table.load reads them."""
    device = {"id": 0, "name": header.get("gpu", "unknown GPU")}
    device.update({key: device_value(header[key]) for key in DEVICE_KEYS if key in header})
    meta = {"title": title, "source": source, "columns": list(rows.columns)}
    meta.update({key: value for key, value in header.items() if key != "gpu" and key not in DEVICE_KEYS})
    benchmarks = []
    for row in rows.to_dict("records"):
        summaries = {name: number(row.get(column), lambda ms: ms / 1e3) for name, column in TIME_SUMMARIES.items()}
        summaries["gbps"] = number(row["gbps"])
        summaries["reps"] = number(row["reps"], int)
        benchmarks.append({"name": row["variant"],
                           "axes": {"type": row["type"], "op": row["op"], "mode": row["mode"], "n": int(row["n"]),
                                    "gpus": int(row["gpus"])},
                           "summaries": summaries, "status": row["status"]})
    return {"meta": meta, "devices": [device], "benchmarks": benchmarks}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("timing", help="a timing table (bench.sh's timing.txt)")
    parser.add_argument("-o", "--output", help="the JSON file to write (default: stdout)")
    args = parser.parse_args(argv)
    try:
        header, rows = load(args.timing)
        first_line = Path(args.timing).read_text().splitlines()[0]
    except (OSError, ValueError, IndexError) as error:
        raise SystemExit(f"timing_json.py: cannot read {args.timing}: {error}")
    title = first_line[2:] if first_line.startswith("# ") and not re.match(r"# \w+: ", first_line) else ""
    text = json.dumps(to_json(header, rows, title, args.timing), indent=1, allow_nan=False) + "\n"
    if args.output:
        Path(args.output).write_text(text)
        print(f"timing_json.py: wrote {args.output} ({len(rows)} benchmarks)", file=sys.stderr)
    else:
        sys.stdout.write(text)



if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts timing-json")
