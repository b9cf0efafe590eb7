"""Reading bench/timing.txt: the '# key: value' header and the rows, as a pandas DataFrame."""
import re
from pathlib import Path

import pandas as pd

COLUMNS = ["variant", "type", "op", "mode", "n", "reps", "median_ms", "min_ms", "max_ms", "gbps", "status"]


def load(path):
    """Returns (header, rows): header maps each '# key: value' line's key to its value."""
    text = Path(path).read_text()
    header = dict(re.findall(r"^# (\w+): (.*)$", text, re.M))
    rows = pd.read_csv(path, sep=r"\s+", comment="#")
    missing = set(COLUMNS) - set(rows.columns)
    if missing:
        raise ValueError(f"{path}: missing columns {sorted(missing)}")
    return header, rows
