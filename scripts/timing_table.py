"""Reading bench/<gpu>/timing.txt (and tuning.txt, same format) as a pandas DataFrame.

The '# key: value' header and the rows; finding every GPU's file under bench/.
"""
import re
from pathlib import Path

import pandas as pd

COLUMNS = ["variant", "type", "op", "mode", "n", "reps", "median_ms", "min_ms", "max_ms", "p10_ms", "p90_ms", "gbps",
           "status", "gpus"]


def load(path):
    """Returns (header, rows): header maps each '# key: value' line's key to its value. Tables
    written before the gpus column existed were all of one GPU; before the p10_ms and p90_ms
    columns existed, their percentiles were not recorded (NaN, like an untimed row's)."""
    text = Path(path).read_text()
    header = dict(re.findall(r"^# (\w+): (.*)$", text, re.M))
    rows = pd.read_csv(path, sep=r"\s+", comment="#")
    if "gpus" not in rows.columns:
        rows["gpus"] = 1
    for percentile in ("p10_ms", "p90_ms"):
        if percentile not in rows.columns:
            rows[percentile] = float("nan")
    missing = set(COLUMNS) - set(rows.columns)
    if missing:
        raise ValueError(f"{path}: missing columns {sorted(missing)}")
    return header, rows


def per_gpu_files(bench_dir, filename):
    """bench_dir/<gpu>/filename of every GPU folder that has one (bench.sh and tune/tune.sh
    write each GPU's results into bench/<its slug>/: scripts/gpu_slug.py). The scans across GPUs
    live apart, in bench/multi_gpu/ (multi_gpu_files)."""
    return sorted(p for p in Path(bench_dir).glob(f"*/{filename}") if p.parent.name != MULTI_GPU_DIR)


# scripts/multi_gpu_bench.sh writes bench/multi_gpu/<gpu>_x<G>/timing.txt: one folder per kind
# and count of GPUs.
MULTI_GPU_DIR = "multi_gpu"


def multi_gpu_files(bench_dir):
    return sorted(Path(bench_dir).glob(f"{MULTI_GPU_DIR}/*/timing.txt"))


# Scan rows say "inclusive" or "exclusive" in their mode column; the applications' rows name
# what they do instead (segmented-inclusive, x>0, ascending: src/applications/applications.cuh), so
# the scan charts and tables never mix them in.
SCAN_MODES = ("inclusive", "exclusive")


def scan_rows(rows):
    return rows[rows["mode"].isin(SCAN_MODES)]


def application_rows(rows):
    return rows[~rows["mode"].isin(SCAN_MODES)]


def application_groups(rows):
    """[(label, ours, reference)] per application in the rows: the rows of one (op, mode) pair
    are one application; its variant named cub_* is the reference, the others are ours."""
    groups = []
    for (op, mode), group in application_rows(rows).groupby(["op", "mode"], sort=True):
        variants = sorted(group["variant"].unique())
        reference = next((v for v in variants if v.startswith("cub_")), None)
        groups.append((f"{op} {mode}", [v for v in variants if v != reference], reference))
    return groups
