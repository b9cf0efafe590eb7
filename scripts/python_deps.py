"""Checks that the Python packages of requirements.txt can be imported.

The Makefile's python-deps runs it before the scripts and tests: exit 0 when every one can be imported, 1 when one is missing (make then
installs the pinned set into the project's .venv). A package present at a version other than
the pinned one is used as it is, with a line saying so: an offline machine (the GPU box) keeps
working with what it has, and the line tells a puzzled reader where a difference may come from.

Usage: python3 -m scripts python-deps requirements.txt
"""
import importlib.metadata
import importlib.util
import re
import sys
from pathlib import Path


def pins(path):
    """[(name, version)] of the `name==version` lines (comments and blank lines skipped)."""
    found = []
    for line in Path(path).read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            match = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^\s;]+)", line)
            if not match:
                raise SystemExit(f"python_deps: {path}: '{line}' is not a pinned requirement (name==version)")
            found.append((match[1], match[2]))
    return found


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    missing = []
    for name, pinned in pins(argv[0]):
        if importlib.util.find_spec(name) is None:
            missing.append(name)
            continue
        installed = importlib.metadata.version(name)
        if installed != pinned:
            print(f"python_deps: using {name} {installed} as installed ({argv[0]} pins {pinned})", file=sys.stderr)
    if missing:
        print(f"python_deps: missing in {sys.executable}: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0



if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts python-deps")
