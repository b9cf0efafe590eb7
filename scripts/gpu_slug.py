"""The short name of a GPU, its "slug" (h100, h200): its folder under bench/.

The slug is the folder under bench/ that holds what was measured on the GPU
(bench/h100/timing.txt, bench/h100/tuning.txt, ...), and the suffix of its row table in the
generated include/scan_zoo/detail/tuned_table.cuh.

The rule, on the device name of the '# gpu:' header line (what `bin/<any variant> --device-info`
prints, and so what heads timing.txt and tuning.txt):
  - the first word after "NVIDIA" that contains a digit, lowercased and cut at its first
    character that is not a letter or a digit:
        NVIDIA H100 80GB HBM3    -> h100
        NVIDIA H200              -> h200
        NVIDIA A100-SXM4-80GB    -> a100
        NVIDIA GeForce RTX 4090  -> 4090
  - otherwise (no "NVIDIA", or no such word), the whole name lowercased, each run of other
    characters a single '-':  Stub GPU -> stub-gpu
The model number alone, because it is what tells two GPUs' results apart; the memory size and
form factor rarely are (and when they are, the fallback keeps the whole name).

One rule for shell and Python: bench.sh and tune/tune.sh name their default output folder
with the command line, the Python scripts import gpu_slug().

Usage: bin/memcpy_baseline --device-info | python3 -m scripts gpu-slug
       python3 -m scripts gpu-slug bench/h100/timing.txt
Prints the slug; exit 2 when the input has no '# gpu:' line.
"""
import re
import sys
from pathlib import Path


def gpu_slug(name):
    words = name.split()
    if "NVIDIA" in words:
        for word in words[words.index("NVIDIA") + 1:]:
            model = re.match(r"[a-z0-9]*", word.lower()).group(0)
            if any(c.isdigit() for c in word) and model:
                return model
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def gpu_name(header_text):
    """The device name on the '# gpu:' line of a timing/tuning header or of --device-info output."""
    match = re.search(r"^# gpu: *(.*?) *$", header_text, re.M)
    return match.group(1) if match else None


def main(argv):
    source = argv[0] if argv else None
    text = Path(source).read_text() if source else sys.stdin.read()
    name = gpu_name(text)
    if not name:
        print(f"gpu_slug.py: no '# gpu:' line in {source or 'the input'}", file=sys.stderr)
        return 2
    print(gpu_slug(name))
    return 0



if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts gpu-slug")
