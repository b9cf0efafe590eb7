"""Linear recurrences from PyTorch, forward and forward + backward: scan_zoo beside accelerated-scan and a copy (issue 58's table).

    python3 -m scripts recurrence-bench [--out DIR] [--quick]

h[t] = a[t] h[t - 1] + b[t] with h[-1] = 0, on float32 arrays, along T: the last axis of a
contiguous [B, C, T] (the layout state-space models and accelerated-scan use), and the middle axis
of a [B, T, C] (scan_zoo alone). The shapes are issue 58's: its four of accelerated-scan's reach,
its middle axis, and two outside that reach (T not a power of 2, T past 65536).

Each shape, each pass (forward; forward + backward), every contender in its own batch, the batches
interleaved over three rounds in one process (framework_scans.interleaved_batches), each batch
timed as the zoo times (framework_scans.time_batch: L2 flushed before every rep outside the
events, warm-up, adaptive reps; the median with min and max):
  - scan_zoo: scan_zoo.linear_recurrence(a, b, dim), its torch.library operator and autograd formula;
  - accelerated-scan's CUDA kernel, accelerated_scan.warp.scan (compiled at import by torch's
    load_inline), where it takes the shape: the last axis, T a power of 2 from 32 to 65536;
  - accelerated-scan's Triton kernel, accelerated_scan.scalar.scan: the last axis, any T;
  - a device-to-device copy of the bytes the pass moves at the least (ARRAYS): forward, a and b
    read and h written; forward + backward, those and the backward's a, h and dh read and da and db
    written. Its time over a contender's is that contender's share of a copy.
Forward: h = scan(a, b). Forward + backward: h = scan(a, b) with a and b requiring grad, then
torch.autograd.grad(h, (a, b), dh), the step a training loop takes; the gradients' allocation is
inside the events (torch's caching allocator serves it), for every contender alike.

Correct before timed: each contender's h (and, for the backward, da and db) is first checked
against a float64 reference of its own method (reference_recurrence, and torch's autograd through
it for the gradients), with a relative error bound of ERROR_BOUND over the reference's largest
magnitude; a contender that misses it, or that refuses or fails the shape, gets no time, and its
cell says why. The data: a uniform in [0.999, 1) (accelerated-scan's own example), b and dh
standard normal; the seed is fixed.

Writes DIR/recurrence_bench.txt (headed with the GPU, torch, accelerated-scan and Triton, and the
commit from SCAN_ZOO_COMMIT), DIR/recurrence_bench.json and DIR/recurrence_bench.png (each
contender's share of a copy). --quick: two shapes. Needs a GPU, torch and the scan_zoo package (exits 4
without them); accelerated-scan's rows say why where it does not import (pip install --no-deps
accelerated-scan: a pure-Python wheel).
"""
import importlib
import json
import math
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

MiB = 1 << 20

# (B, C, T, dim): a [B, C, T] array along T (dim 2), or a [B, T, C] array along T (dim 1).
SHAPES = ((8, 1536, 4096, 2), (8, 1536, 16384, 2), (64, 16, 65536, 2), (8, 64, 2048, 2),
          (8, 1024, 4096, 1), (8, 1536, 6000, 2), (2, 16, 1 << 20, 2))
QUICK_SHAPES = ((8, 1536, 4096, 2), (8, 64, 2048, 2))
PASSES = ("forward", "forward + backward")
# The float32 arrays a pass moves at the least, the copy's bytes.
ARRAYS = {"forward": 3, "forward + backward": 8}
CONTENDERS = ("scan_zoo", "accelerated-scan CUDA", "accelerated-scan Triton", "copy")
# A float32 recurrence against the float64 reference: its largest error over the reference's
# largest magnitude. Trees of products and sums round about log2(T) times an element, where the
# sequential loop rounds T times; 1e-4 leaves room for either at these lengths.
ERROR_BOUND = 1e-4


def array_shape(shape):
    """The tensor's shape for (B, C, T, dim): [B, C, T] along dim 2, [B, T, C] along dim 1."""
    batch, channels, length, dim = shape
    return (batch, channels, length) if dim == 2 else (batch, length, channels)


def label(shape):
    batch, channels, length, dim = shape
    return f"[{batch}, {channels}, {length}] dim 2" if dim == 2 else f"[{batch}, {length}, {channels}] dim 1"


def refusal(contender, shape):
    """Why a peer does not take the shape (its own checks, ahead of the call), or None."""
    _, _, length, dim = shape
    if contender.startswith("accelerated-scan") and dim != 2:
        return "the last axis of a contiguous [B, C, T] only"
    if contender == "accelerated-scan CUDA" and (length & (length - 1) or not 32 <= length <= 65536):
        return "T a power of 2 from 32 to 65536 only"
    return None


def reference_recurrence(xp, a, b):
    """h[..., t] = a[..., t] h[..., t - 1] + b[..., t] with h[..., -1] = 0, along the last axis, in
    a's precision, by a method unlike each contender's: sequential within chunks of about sqrt(T)
    steps (one step for all chunks at once), then the chunks' carries one after another, each
    chunk's carry-in entering through the running product of its a. xp: numpy or torch (the calls
    are spelled alike in both); on torch tensors that require grad the result is differentiable,
    which gives the backward's reference."""
    length = a.shape[-1]
    if length == 0:
        return b
    steps = math.isqrt(length - 1) + 1  # ceil(sqrt(T)): a chunk's length
    chunks = -(-length // steps)
    pad = chunks * steps - length  # fewer than `steps`, so fewer than T
    if pad:  # maps that change nothing: a = 1, b = 0
        a = xp.concatenate((a, xp.ones_like(a[..., :pad])), -1)
        b = xp.concatenate((b, xp.zeros_like(b[..., :pad])), -1)
    a = a.reshape(*a.shape[:-1], chunks, steps)
    b = b.reshape(*b.shape[:-1], chunks, steps)
    state = b[..., 0]
    local = [state]
    for k in range(1, steps):
        state = a[..., k] * state + b[..., k]
        local.append(state)
    local = xp.stack(local, -1)  # each chunk's states from a zero carry-in
    running = xp.cumprod(a, -1)  # a's products from each chunk's start
    carry, carries = local[..., 0, 0] * 0, []
    for m in range(chunks):
        carries.append(carry)
        carry = running[..., m, -1] * carry + local[..., m, -1]
    h = local + running * xp.stack(carries, -1)[..., None]
    return h.reshape(*h.shape[:-2], chunks * steps)[..., :length]


def relative_error(torch, got, reference):
    """The largest |got - reference| over the reference's largest magnitude, in float64."""
    scale = reference.abs().max().item() or 1.0
    return (got.double() - reference).abs().max().item() / scale


class Contenders:
    """The recurrences on [B, C, T] (or [B, T, C]) tensors: scan(a, b) -> h for each contender that
    imports, and why not for each that does not."""

    def __init__(self, scan_zoo):
        self.scans, self.missing, self.versions = {}, {}, {}
        self.scans["scan_zoo"] = lambda a, b, dim: scan_zoo.linear_recurrence(a, b, dim)
        try:
            import accelerated_scan
            self.versions["accelerated-scan"] = accelerated_scan.__version__
        except ImportError as error:
            for name in CONTENDERS[1:3]:
                self.missing[name] = f"accelerated-scan does not import: {error}"
            return
        for name, module in (("accelerated-scan CUDA", "warp"), ("accelerated-scan Triton", "scalar")):
            try:  # the CUDA kernel compiles here, the Triton kernel at its first call
                scan = importlib.import_module(f"accelerated_scan.{module}").scan
            except Exception as error:  # noqa: BLE001 - a failed compile or a missing triton: the row says which
                self.missing[name] = f"accelerated_scan.{module} does not import: {type(error).__name__}: {error}"
                continue
            self.scans[name] = lambda a, b, dim, scan=scan: scan(a, b)
        try:
            import triton
            self.versions["triton"] = triton.__version__
        except ImportError:
            pass


def shape_rows(torch, fs, framework, flush, contenders, shape, options):
    """The rows of one shape, a row a pass: {contender: stats or the reason it has none}."""
    generator = torch.Generator(device="cuda").manual_seed(58)
    dims = array_shape(shape)
    dim = shape[3]
    a = 0.999 + 0.001 * torch.rand(dims, device="cuda", generator=generator)
    b = torch.randn(dims, device="cuda", generator=generator)
    dh = torch.randn(dims, device="cuda", generator=generator)

    # The reference, along the last axis of [B, C, T] views (a transpose of the middle axis's).
    def lines(x):
        return x.transpose(1, 2) if dim == 1 else x
    a64, b64 = (lines(x).double().requires_grad_() for x in (a, b))
    h64 = reference_recurrence(torch, a64, b64)
    da64, db64 = (lines(g).detach() for g in torch.autograd.grad(h64, (a64, b64), lines(dh).double()))
    h64 = lines(h64.detach())
    del a64, b64

    moved = {p: ARRAYS[p] * a.numel() * a.element_size() for p in PASSES}
    rows = []
    for pass_ in PASSES:
        src = torch.empty(moved[pass_] // 2, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        steps, cells = {"copy": lambda: dst.copy_(src)}, {}
        for name in CONTENDERS[:3]:
            why = refusal(name, shape) or contenders.missing.get(name)
            if why:
                cells[name] = why
                continue
            scan = contenders.scans[name]
            step, why = checked_step(torch, scan, a, b, dh, dim, pass_, (h64, da64, db64))
            if why:
                cells[name] = why
            else:
                steps[name] = step
        names = [name for name in CONTENDERS if name in steps]
        times = fs.interleaved_batches(names, lambda name: fs.time_batch(framework, steps[name], flush, options),
                                       options.rounds)
        cells.update({name: fs.summarize(times[name]) for name in names})
        rows.append({"shape": label(shape), "pass": pass_, "mib": moved[pass_] / MiB, "cells": cells})
        print(line(rows[-1]), flush=True)
        del src, dst
    return rows


def checked_step(torch, scan, a, b, dh, dim, pass_, reference):
    """(the pass's step, None) once the contender's results agree with the reference, or (None, why)."""
    h64, da64, db64 = reference
    try:
        if pass_ == "forward":
            got = {"h": (scan(a, b, dim), h64)}
        else:
            a_, b_ = a.clone().requires_grad_(), b.clone().requires_grad_()
            da, db = torch.autograd.grad(scan(a_, b_, dim), (a_, b_), dh)
            got = {"da": (da, da64), "db": (db, db64)}
        torch.cuda.synchronize()
    except Exception as error:  # noqa: BLE001 - the peer's own refusal or failure: the cell says which
        return None, f"failed: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    for what, (value, expected) in got.items():
        if value.shape != expected.shape:
            return None, f"wrong: {what} has shape {tuple(value.shape)}, not {tuple(expected.shape)}"
        error = relative_error(torch, value, expected)
        if not error <= ERROR_BOUND:  # NaN fails too
            return None, f"wrong: {what}'s relative error {error:.2e} is over {ERROR_BOUND:.0e}"
    if pass_ == "forward":
        return (lambda: scan(a, b, dim)), None
    a_, b_ = a.clone().requires_grad_(), b.clone().requires_grad_()
    return (lambda: torch.autograd.grad(scan(a_, b_, dim), (a_, b_), dh)), None


def cell_text(row, name):
    cell = row["cells"].get(name)
    if cell is None:
        return "-"
    if isinstance(cell, str):
        return cell
    return f"{cell['median_ms'] * 1e3:.1f} ({cell['min_ms'] * 1e3:.1f}-{cell['max_ms'] * 1e3:.1f})"


def share_of_copy(row, name):
    """The copy's median over the contender's, in %, or None where either has no time."""
    cell, copy = row["cells"].get(name), row["cells"].get("copy")
    if not isinstance(cell, dict) or not isinstance(copy, dict):
        return None
    return 100 * copy["median_ms"] / cell["median_ms"]


def line(row):
    parts = [f"{row['shape']:<24} {row['pass']:<18} {row['mib']:8.1f} MiB"]
    for name in CONTENDERS:
        share = share_of_copy(row, name) if name != "copy" else None
        parts.append(f"{name} {cell_text(row, name)}" + (f" [{share:.1f}% of copy]" if share else ""))
    return " | ".join(parts)


def peer_over_scan_zoo(row):
    """The fastest timed peer's median over scan_zoo's (above 1: scan_zoo is faster), or None."""
    ours = row["cells"].get("scan_zoo")
    peers = [row["cells"].get(name) for name in CONTENDERS[1:3]]
    peers = [cell["median_ms"] for cell in peers if isinstance(cell, dict)]
    if not isinstance(ours, dict) or not peers:
        return None
    return min(peers) / ours["median_ms"]


def write(out, header, rows):
    out.mkdir(parents=True, exist_ok=True)
    lines = [f"# {text}" for text in header] + [
        "# h[t] = a[t] h[t-1] + b[t], float32, along T; median us (min-max) of each contender, cold L2, "
        "interleaved over rounds in one process; the copy moves the pass's least bytes (forward 3 arrays, "
        "forward + backward 8); a cell without a time says why",
        "# shape | pass | MiB | " + " | ".join(f"{name} us" for name in CONTENDERS) +
        " | scan_zoo % of copy | fastest peer / scan_zoo"]
    for row in rows:
        share, ratio = share_of_copy(row, "scan_zoo"), peer_over_scan_zoo(row)
        lines.append(" | ".join([row["shape"], row["pass"], f"{row['mib']:.1f}"] +
                                [cell_text(row, name) for name in CONTENDERS] +
                                [f"{share:.1f}" if share else "-", f"{ratio:.2f}" if ratio else "-"]))
    (out / "recurrence_bench.txt").write_text("\n".join(lines) + "\n")
    (out / "recurrence_bench.json").write_text(json.dumps({"header": header, "rows": rows}, indent=1))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(len(PASSES), 1, figsize=(11, 7), sharex=True)
    for axis, pass_ in zip(axes, PASSES):
        of_pass = [row for row in rows if row["pass"] == pass_]
        width = 0.8 / 3
        for k, name in enumerate(CONTENDERS[:3]):
            shares = [share_of_copy(row, name) or 0 for row in of_pass]
            axis.bar([i + (k - 1) * width for i in range(len(of_pass))], shares, width, label=name)
        axis.axhline(100, color="black", linewidth=0.8)
        axis.set_ylabel(f"{pass_}\n% of a copy's speed")
        axis.set_xticks(range(len(of_pass)), [row["shape"] for row in of_pass], rotation=20, fontsize=7)
    axes[0].legend(fontsize=7)
    fig.suptitle(header[0], fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "recurrence_bench.png", dpi=110)


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    shapes, out, rest = SHAPES, Path("results") / "recurrence_bench", list(argv)
    while rest:
        flag = rest.pop(0)
        if flag == "--quick":
            shapes = QUICK_SHAPES
        elif flag == "--out" and rest:
            out = Path(rest.pop(0))
        else:
            print(f"recurrence-bench: unknown or incomplete argument {flag!r} (usage: python3 -m scripts "
                  f"recurrence-bench [--out DIR] [--quick])", file=sys.stderr)
            return 2
    from scripts import framework_scans as fs
    found = fs.torch_on_a_gpu("recurrence-bench", "scan_zoo")
    if found is None:
        return 4
    torch, scan_zoo = found
    framework = fs.Torch()
    flush_buffer, sink = framework.flush_buffer(2 * framework.l2_bytes())
    flush = lambda: framework.read(flush_buffer, sink)  # noqa: E731
    contenders = Contenders(scan_zoo)
    for name, why in contenders.missing.items():
        print(f"recurrence-bench: {name}: {why}", file=sys.stderr)
    versions = ", ".join(f"{name} {version}" for name, version in contenders.versions.items()) or "no accelerated-scan"
    header = [f"{torch.cuda.get_device_name()}, torch {torch.__version__}, {versions}, scan_zoo commit "
              f"{os.environ.get('SCAN_ZOO_COMMIT', 'unknown')}, {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}"]
    options = SimpleNamespace(warmup=3, hot=False, reps=0, rounds=3)
    rows = []
    for shape in shapes:
        rows += shape_rows(torch, fs, framework, flush, contenders, shape, options)
        torch.cuda.empty_cache()
    write(out, header, rows)
    print(f"recurrence-bench: wrote {out}/recurrence_bench.txt, .json and .png")
    return 0


if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts recurrence-bench")
