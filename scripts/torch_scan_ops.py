"""torch's scan operators with scan_zoo.torch on and off, beside a copy of the same bytes (issue 57's table).

    python3 -m scripts torch-scan-ops [--out DIR] [--quick] [--ops OP,...] [--deterministic]

For every operator and dtype class (cumsum of bool, int32, float32, bfloat16, complex64 and uint32;
cumprod of float32, int64 and complex64; cummax of float32 and int32 with its int64 indices;
logcumsumexp of float32, bfloat16 and complex64), along the rows of [B, L], the columns of [L, C]
(dim 0), the middle axis of [B, L, C] and one long array: the op as a program calls it
(torch.cumsum(x, dim), ...) with the switch off (torch's kernel) and on (scan_zoo's), and a
device-to-device copy moving as many bytes (the input read, the outputs written: cummax's values
and int64 indices), in one process, each in its own batch, the three interleaved over rounds. The
timing protocol is the zoo's (scripts/framework_scans.py's time_batch: L2 flushed before every rep
outside the events, warm-up, adaptive reps, the median with min and max). Then torch.compile
(Inductor) of a cumsum with the switch off and on, and three programs, unmodified, whole steps
timed with CUDA events, warm L2, each mode's steps pooled over ten short rounds with the modes
taking turns (pooled, below): HF transformers' TopPLogitsWarper over a 128256-token vocabulary,
position ids from a bool and an int64 attention mask, (mask.cumsum(-1) - 1).clamp(min=0), and MoE
routing offsets, counts.cumsum(0). Last, the time a call of a small cumsum costs in a loop of 2,000
(host bound: the GPU's work is shorter than the call's host work). The programs and the loop run
with the switch off, on, and, where the package has its C++ kernels (scan_zoo._torch_kernels), on
with its Python kernels alone: what each way into scan_zoo costs the host.

--ops cumsum,logcumsumexp: the kernel rows of those operators alone, nothing else (a quick look
at one kernel's change). --deterministic: each kernel row also times scan_zoo under
torch.use_deterministic_algorithms(True) (its fixed-order look-back for the floating-point scans),
interleaved with the other three, and gives its cost over scan_zoo's default. Without torch's
fill of every new tensor that the mode also asks for (torch.utils.deterministic
.fill_uninitialized_memory, off while it is timed): a write of the output that any kernel pays
alike, which measured 1.4-1.6x of an int32 cumsum (whose look-back the mode leaves as it is).

Writes DIR/torch_scan_ops.txt (a table per part, headed with the GPU, torch and the commit from
SCAN_ZOO_COMMIT), DIR/torch_scan_ops.json, and DIR/torch_scan_ops.png (scan_zoo's speed over
torch's, and its share of the copy's). Needs a GPU, torch and the scan_zoo package; exits 4
without them.
"""
import contextlib
import json
import os
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

MiB = 1 << 20


def cases(torch, quick, only=None):
    """(op label, dtype label, shape label, make input, call, output bytes per element)."""
    f32, bf16, i32, i64 = torch.float32, torch.bfloat16, torch.int32, torch.int64
    rows = [(64, 131072), (8, 131072)] if not quick else [(64, 131072)]
    shapes = [(f"rows {b}x{l}", (b, l), 1) for b, l in rows] + [
        ("columns 131072x64 dim 0", (131072, 64), 0), ("middle 8x4096x256 dim 1", (8, 4096, 256), 1),
        ("1-D 2^26", (1 << 26,), 0)]
    ops = [
        ("cumsum", "bool->int64", torch.bool, lambda x, d: torch.cumsum(x, d), 8),
        ("cumsum", "int32->int64", i32, lambda x, d: torch.cumsum(x, d), 8),
        ("cumsum", "float32", f32, lambda x, d: torch.cumsum(x, d), 4),
        ("cumsum", "bfloat16", bf16, lambda x, d: torch.cumsum(x, d), 2),
        ("cumsum", "complex64", torch.complex64, lambda x, d: torch.cumsum(x, d), 8),
        ("cumsum", "uint32->int64", torch.uint32, lambda x, d: torch.cumsum(x, d), 8),
        ("cumprod", "float32", f32, lambda x, d: torch.cumprod(x, d), 4),
        ("cumprod", "int64", i64, lambda x, d: torch.cumprod(x, d), 8),
        ("cumprod", "complex64", torch.complex64, lambda x, d: torch.cumprod(x, d), 8),
        ("cummax", "float32 +indices", f32, lambda x, d: torch.cummax(x, d), 4 + 8),
        ("cummax", "int32 +indices", i32, lambda x, d: torch.cummax(x, d), 4 + 8),
        ("logcumsumexp", "float32", f32, lambda x, d: torch.logcumsumexp(x, d), 4),
        ("logcumsumexp", "bfloat16", bf16, lambda x, d: torch.logcumsumexp(x, d), 2),
        ("logcumsumexp", "complex64", torch.complex64, lambda x, d: torch.logcumsumexp(x, d), 8),
    ]
    if quick:
        ops = [row for row in ops if row[:2] in (("cumsum", "int32->int64"), ("cumsum", "float32"),
                                                 ("cummax", "float32 +indices"))]
    if only:
        ops = [row for row in ops if row[0] in only]
    for op, dtype_label, dtype, call, out_bytes in ops:
        for shape_label, shape, dim in shapes:
            yield op, dtype_label, shape_label, dtype, shape, dim, call, out_bytes


def random_input(torch, dtype, shape, op):
    if dtype == torch.bool:
        return torch.rand(shape, device="cuda") < 0.5
    if dtype in (torch.int32, torch.int64):
        return torch.randint(-3, 4, shape, device="cuda", dtype=dtype)
    if dtype == torch.uint32:
        return torch.randint(0, 7, shape, device="cuda").to(dtype)
    if dtype.is_complex:
        z = torch.randn(shape, device="cuda", dtype=dtype)
        return z / z.abs() if op == "cumprod" else z  # products on the unit circle stay finite
    # products of values near 1 stay finite; sums and log-sum-exps of normals are ordinary
    return (1 + torch.randn(shape, device="cuda") / 1000).to(dtype)


def median_stats(times):
    return {"median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times), "reps": len(times)}


@contextlib.contextmanager
def deterministic_algorithms(torch, on):
    """torch.use_deterministic_algorithms(on) for a block, without its fill of new tensors, as it
    was after it."""
    import torch.utils.deterministic as settings
    was, filled = torch.are_deterministic_algorithms_enabled(), settings.fill_uninitialized_memory
    torch.use_deterministic_algorithms(on)
    settings.fill_uninitialized_memory = False
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(was)
        settings.fill_uninitialized_memory = filled


def kernel_table(torch, switch, fs, options, quick, only=None, deterministic=False):
    framework = fs.Torch()
    flush_buffer, sink = framework.flush_buffer(2 * framework.l2_bytes())
    flush = lambda: framework.read(flush_buffer, sink)  # noqa: E731
    rows = []
    for op, dtype_label, shape_label, dtype, shape, dim, call, out_bytes in cases(torch, quick, only):
        x = random_input(torch, dtype, shape, op)
        moved = x.numel() * (x.element_size() + out_bytes)
        src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        def time_one(who):
            if who == "copy":
                return fs.time_batch(framework, lambda: dst.copy_(src), flush, options)
            with switch.enabled(who != "torch"), deterministic_algorithms(torch, who == "deterministic"):
                return fs.time_batch(framework, lambda: call(x, dim), flush, options)

        names = ["torch", "scan_zoo", "copy"] + (["deterministic"] if deterministic else [])
        results = fs.interleaved_batches(names, time_one, options.rounds)
        stats = {who: median_stats(times) for who, times in results.items()}
        rows.append({"op": op, "dtype": dtype_label, "shape": shape_label, "mib": moved / MiB, **{
            f"{who}_{key}": value for who, s in stats.items() for key, value in s.items()}})
        row = rows[-1]
        fixed = (f", deterministic {row['deterministic_median_ms'] * 1e3:9.1f} us "
                 f"({row['deterministic_median_ms'] / row['scan_zoo_median_ms']:5.2f}x the default)") if deterministic else ""
        print(f"{op:>12} {dtype_label:>16} {shape_label:>24}: torch {row['torch_median_ms'] * 1e3:9.1f} us, "
              f"scan_zoo {row['scan_zoo_median_ms'] * 1e3:9.1f} us ({row['torch_median_ms'] / row['scan_zoo_median_ms']:6.2f}x), "
              f"copy {row['copy_median_ms'] * 1e3:9.1f} us ({100 * row['copy_median_ms'] / row['scan_zoo_median_ms']:5.1f}% of copy)"
              f"{fixed}", flush=True)
    return rows


def event_times_us(torch, step, reps, warmup):
    """A whole step `reps` times after `warmup` calls, CUDA events around each, warm L2: the
    times in microseconds."""
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3)
    return times


def summary(times):
    return statistics.median(times), min(times), max(times)


def event_time_us(torch, step, reps=50, warmup=10):
    """A whole step, CUDA events around it, warm L2: (median, min, max) in microseconds."""
    return summary(event_times_us(torch, step, reps, warmup))


# The ways a program's scans run: torch's kernels (the switch off), scan_zoo's (on), and, where
# the package has its C++ kernels (scan_zoo._torch_kernels), on with the Python kernels alone,
# so that their host cost shows beside the C++ kernels'.
MODES = ("torch", "scan_zoo", "python kernels")


def modes(switch):
    return MODES if switch._fast_kernels() is not None else MODES[:2]


@contextlib.contextmanager
def running_on(switch, mode):
    """The switch as `mode` (MODES) for a block, off after it."""
    switch.enable() if mode != "torch" else switch.disable()
    if mode == "python kernels":
        switch._fast_kernels().disable()  # the Python kernels stay registered
    try:
        yield
    finally:
        switch.disable()


def rounds_of(switch, measure_once, rounds):
    """{mode: [measure_once()'s result, a round each]} for every mode (MODES), the modes in a
    rotated order each round."""
    results, order = {}, list(modes(switch))
    for round_ in range(rounds):
        for mode in order[round_ % len(order):] + order[:round_ % len(order)]:
            with running_on(switch, mode):
                results.setdefault(mode, []).append(measure_once())
    return results


def interleaved(switch, measure_once, rounds=2):
    """{mode: measure_once()'s least result over `rounds` rounds} for every mode, the modes in a
    rotated order each round."""
    return {mode: min(results) for mode, results in rounds_of(switch, measure_once, rounds).items()}


def pooled(switch, measure_times, rounds=10):
    """{mode: (median, min, max)} of the times measure_times() gives in each of `rounds` short
    rounds, the modes in a rotated order each round, pooled per mode. A host-bound step's latency
    sits at one of two levels for rounds at a time, in either mode (bench/NOTES.md, "torch's scan
    ops: the full table at 95e909e"): with the best of a few long rounds a mode that met only the
    upper level lost by the gap between the levels. Over many short rounds each mode meets both
    levels about as often as the other."""
    return {mode: summary([t for times in results for t in times])
            for mode, results in rounds_of(switch, measure_times, rounds).items()}


def programs(torch, switch, quick):
    rows = []

    def measure(program, label, step):
        times = pooled(switch, lambda: event_times_us(torch, step, reps=10, warmup=3), rounds=10)
        off, on = times["torch"], times["scan_zoo"]
        rows.append({"program": program, "case": label, "torch_us": off, "scan_zoo_us": on,
                     "python_kernels_us": times.get("python kernels")})
        python = f", Python kernels alone {times['python kernels'][0]:9.1f} us" if "python kernels" in times else ""
        print(f"{program:>28} {label:>22}: torch {off[0]:9.1f} us, with scan_zoo {on[0]:9.1f} us "
              f"({off[0] / on[0]:5.2f}x){python}", flush=True)

    try:
        from transformers.generation.logits_process import TopPLogitsWarper
    except Exception as error:  # noqa: BLE001 - any import failure means: no such row
        print(f"transformers' TopPLogitsWarper does not import ({error}): no top-p rows", file=sys.stderr)
    else:
        warper = TopPLogitsWarper(top_p=0.9)
        for batch in ((1, 8, 64, 256) if not quick else (8,)):
            logits = torch.randn(batch, 128256, device="cuda")
            ids = torch.zeros(batch, 1, dtype=torch.int64, device="cuda")
            measure("top-p (TopPLogitsWarper)", f"batch {batch}", lambda: warper(ids, logits))
    for batch, length in ((8, 8192), (64, 4096)):
        mask = torch.rand(batch, length, device="cuda") < 0.9
        for dtype in (torch.bool, torch.int64):
            m = mask.to(dtype)
            measure("position ids", f"{str(dtype)[6:]} [{batch}, {length}]", lambda: (m.cumsum(-1) - 1).clamp(min=0))
    for experts in (8, 64, 256):
        counts = torch.randint(0, 1000, (experts,), device="cuda")
        measure("MoE offsets counts.cumsum(0)", f"{experts} experts", lambda: counts.cumsum(0))
    return rows


def host_time(torch, switch, calls=2000):
    """Microseconds a call of torch.cumsum on small tensors in a loop of `calls`, in each mode
    (MODES; the loop's wall time over calls, after a warm-up, synchronized at both ends; the
    modes interleaved over three rounds, the least of each kept)."""
    rows = []
    for label, x, dim in (("int64 [64], dim 0", torch.randint(0, 1000, (64,), device="cuda"), 0),
                          ("int64 [8, 8192], dim -1", torch.randint(0, 2, (8, 8192), device="cuda"), -1),
                          ("bool [8, 8192], dim -1", torch.rand(8, 8192, device="cuda") < 0.9, -1)):
        def loop():
            for _ in range(200):
                torch.cumsum(x, dim)
            torch.cuda.synchronize()
            begin = time.perf_counter()
            for _ in range(calls):
                torch.cumsum(x, dim)
            torch.cuda.synchronize()
            return (time.perf_counter() - begin) / calls * 1e6
        per_call = interleaved(switch, loop, rounds=3)
        rows.append({"case": label, "torch_us": per_call["torch"], "scan_zoo_us": per_call["scan_zoo"],
                     "python_kernels_us": per_call.get("python kernels")})
        python = f", Python kernels alone {per_call['python kernels']:.1f} us" if "python kernels" in per_call else ""
        print(f"host time a call, torch.cumsum {label}: {per_call['torch']:.1f} us, with scan_zoo "
              f"{per_call['scan_zoo']:.1f} us{python}", flush=True)
    return rows


def compiled(torch, switch):
    """torch.compile (Inductor) of y = x.cumsum(1) * 2 with the switch off (Inductor's Triton scan)
    and on (its fallback to aten, scan_zoo's), whole calls timed with events, warm L2."""
    rows = []
    for shape in ((64, 131072), (8, 128256)):
        x = torch.randn(shape, device="cuda")
        times = {}
        for on in (False, True):
            with switch.enabled(on):
                torch.compiler.reset()
                f = torch.compile(lambda t: t.cumsum(1) * 2, fullgraph=True)
                times[on] = event_time_us(torch, lambda: f(x))
        torch.compiler.reset()
        rows.append({"shape": list(shape), "inductor_us": times[False], "inductor_on_scan_zoo_us": times[True]})
        print(f"torch.compile cumsum(1)*2 {shape}: Inductor {times[False][0]:.1f} us, with scan_zoo "
              f"{times[True][0]:.1f} us ({times[False][0] / times[True][0]:.2f}x)", flush=True)
    return rows


def write(out, header, kernels, compiled_rows, program_rows, host_rows):
    out.mkdir(parents=True, exist_ok=True)
    deterministic = any("deterministic_median_ms" in r for r in kernels)
    lines = [f"# {line}" for line in header] + [
        "# kernels: median us (min-max) of torch's kernel, scan_zoo's and a copy of the same bytes; cold L2" +
        ("; deterministic: scan_zoo under torch.use_deterministic_algorithms(True), its cost over scan_zoo's default"
         if deterministic else ""),
        f"# {'op':<12} {'dtype':<16} {'shape':<24} {'MiB':>7} {'torch_us':>22} {'scan_zoo_us':>22} "
        f"{'copy_us':>22} {'speedup':>8} {'%copy':>6}" +
        (f" {'deterministic_us':>22} {'cost':>6}" if deterministic else "")]
    for r in kernels:
        span = lambda who: f"{r[who + '_median_ms'] * 1e3:.1f} ({r[who + '_min_ms'] * 1e3:.1f}-{r[who + '_max_ms'] * 1e3:.1f})"  # noqa: E731
        fixed = (f" {span('deterministic'):>22} {r['deterministic_median_ms'] / r['scan_zoo_median_ms']:6.2f}"
                 if deterministic else "")
        lines.append(f"{r['op']:<14} {r['dtype']:<16} {r['shape']:<24} {r['mib']:7.1f} {span('torch'):>22} "
                     f"{span('scan_zoo'):>22} {span('copy'):>22} {r['torch_median_ms'] / r['scan_zoo_median_ms']:8.2f} "
                     f"{100 * r['copy_median_ms'] / r['scan_zoo_median_ms']:6.1f}{fixed}")
    lines.append("# torch.compile (Inductor), whole call, warm L2: median us (min-max)")
    for r in compiled_rows:
        lines.append(f"compile cumsum(1)*2 {r['shape']}: inductor {r['inductor_us'][0]:.1f} "
                     f"({r['inductor_us'][1]:.1f}-{r['inductor_us'][2]:.1f}), on scan_zoo "
                     f"{r['inductor_on_scan_zoo_us'][0]:.1f} ({r['inductor_on_scan_zoo_us'][1]:.1f}-"
                     f"{r['inductor_on_scan_zoo_us'][2]:.1f})")
    lines.append("# programs, unmodified, whole step, warm L2: median us (min-max), switch off, on, and on with "
                 "its Python kernels alone (where the package has its C++ kernels)")
    for r in program_rows:
        python = r.get("python_kernels_us")
        python = f" python_kernels {python[0]:.1f} ({python[1]:.1f}-{python[2]:.1f})" if python else ""
        lines.append(f"{r['program']:<30} {r['case']:<22} torch {r['torch_us'][0]:.1f} ({r['torch_us'][1]:.1f}-"
                     f"{r['torch_us'][2]:.1f}) scan_zoo {r['scan_zoo_us'][0]:.1f} ({r['scan_zoo_us'][1]:.1f}-"
                     f"{r['scan_zoo_us'][2]:.1f}) speedup {r['torch_us'][0] / r['scan_zoo_us'][0]:.2f}{python}")
    lines.append("# host time a call: torch.cumsum in a loop of 2,000 small calls, us a call, switch off, on, and on "
                 "with its Python kernels alone")
    for r in host_rows:
        python = f" python_kernels {r['python_kernels_us']:.1f}" if r.get("python_kernels_us") else ""
        lines.append(f"host {r['case']:<24} torch {r['torch_us']:.1f} scan_zoo {r['scan_zoo_us']:.1f}{python}")
    (out / "torch_scan_ops.txt").write_text("\n".join(lines) + "\n")
    (out / "torch_scan_ops.json").write_text(json.dumps({"header": header, "kernels": kernels,
                                                         "compiled": compiled_rows, "programs": program_rows,
                                                         "host": host_rows}, indent=1))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    labels = [f"{r['op']} {r['dtype']}\n{r['shape']}" for r in kernels]
    fig, (speed, share) = plt.subplots(2, 1, figsize=(max(10, 0.32 * len(kernels)), 9), sharex=True)
    positions = range(len(kernels))
    speed.bar(positions, [r["torch_median_ms"] / r["scan_zoo_median_ms"] for r in kernels], color="tab:blue")
    speed.axhline(1, color="black", linewidth=0.8)
    speed.set_yscale("log")
    speed.set_ylabel("torch's time / scan_zoo's")
    share.bar(positions, [100 * r["copy_median_ms"] / r["scan_zoo_median_ms"] for r in kernels], color="tab:green")
    share.axhline(90, color="gray", linestyle="--", linewidth=0.8)
    share.set_ylabel("scan_zoo, % of a copy's speed")
    share.set_xticks(list(positions), labels, rotation=90, fontsize=6)
    fig.suptitle(header[0], fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "torch_scan_ops.png", dpi=110)


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__)
        return 0
    quick, only, deterministic, out, rest = False, None, False, Path("results") / "torch_scan_ops", list(argv)
    known = ("cumsum", "cumprod", "cummax", "logcumsumexp")
    while rest:
        flag = rest.pop(0)
        if flag == "--quick":
            quick = True
        elif flag == "--deterministic":
            deterministic = True
        elif flag == "--out" and rest:
            out = Path(rest.pop(0))
        elif flag == "--ops" and rest:
            only = rest.pop(0).split(",")
            if not set(only) <= set(known):
                print(f"torch-scan-ops: --ops takes {', '.join(known)}, not {','.join(only)}", file=sys.stderr)
                return 2
        else:
            print(f"torch-scan-ops: unknown or incomplete argument {flag!r} (usage: python3 -m scripts "
                  f"torch-scan-ops [--out DIR] [--quick] [--ops OP,...] [--deterministic])", file=sys.stderr)
            return 2
    from scripts import framework_scans as fs
    found = fs.torch_on_a_gpu("torch-scan-ops", "scan_zoo.torch")
    if found is None:
        return 4
    torch, switch = found
    options = SimpleNamespace(warmup=3, hot=False, reps=0, rounds=2 if quick else 3)
    header = [f"{torch.cuda.get_device_name()}, torch {torch.__version__}, scan_zoo commit "
              f"{os.environ.get('SCAN_ZOO_COMMIT', 'unknown')}, {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}"]
    kernels = kernel_table(torch, switch, fs, options, quick, only, deterministic)
    if only:
        write(out, header, kernels, [], [], [])
    else:
        compiled_rows = compiled(torch, switch)
        program_rows = programs(torch, switch, quick)
        write(out, header, kernels, compiled_rows, program_rows, host_time(torch, switch))
    print(f"torch-scan-ops: wrote {out}/torch_scan_ops.txt, .json and .png")
    return 0


if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts torch-scan-ops")
