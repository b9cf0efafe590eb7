"""Charts of bench.sh sweeps (pandas + matplotlib), one set per GPU, beside its timing table.

Beside bench/<gpu>/timing.txt, or results/<gpu>/timing.txt for a sweep of your own:

  latency_pow2_top3.png  latency vs N: the three fastest variants (by mean latency over the
                         powers of two every one of them completed) plus CUB
  bandwidth.png          GB/s vs N: the best variant of each family, memcpy as the ceiling,
                         CUB dashed, the GPU's peak memory bandwidth (its header's
                         peak_memory_gbps) as a line
  small_n.png            N <= 2^16, where launches dominate: every variant's time, and its time
                         over memcpy's (the launch floor: one kernel that only copies)
  speedup_vs_cub.png     heatmap of time(CUB) / time(variant), variant x N (above 1: faster)
  cache_regimes.png      cold vs hot L2 for memcpy, CUB and the fastest variant (needs a --hot
                         sweep in timing_hot.txt beside timing.txt; skipped with a message otherwise)
  applications.png       the scan applications (segmented scan, stream compaction, radix sort):
                         time vs N, ours against CUB's, and the ratio (only when the sweep has them);
                         the sort panel from onesweep/timing.txt beside the sweep where that
                         table exists (the sorts' own later sweep, CUB in it), its commit in the
                         panel's title
The scan charts use the scan rows only (mode inclusive / exclusive). In every chart against N,
a variant's line runs through the powers of two only; the other sizes (100000, 4194303,
2^24+1, ...) are hollow markers of its colour, off the line, so that the line does not zig-zag
where such a size costs more than its neighbours (a partial last tile). The shaded band around a
line is the spread of its reps: p10 to p90 where the table has them, else min to max.
And, for each sweep along an axis (scripts/axis_bench.sh: bench/<gpu>/axis/<type>_length<L>.txt and
<type>_columns<C>.txt), in that folder:
  axis_<type>.png        % of a copy of the same bytes (memcpy_baseline's median over the row's,
                         at the same N in the same table) against the shape, rows x length, for
                         every variant of the sweep: along rows in one panel, down columns in the
                         other
And, for each sweep of the framework rows (bench.sh with scripts/framework_scans.py's variants:
bench/<gpu>/python/sweep_*/), in that folder:
  frameworks.png         % of a copy of the same bytes (memcpy_baseline's median over the row's,
                         in the same table) for every shape of the sweep's tables: the zoo's
                         binary, CUB, and each framework's own scan beside scan_zoo's from it
And, for each sweep of the scans across GPUs (scripts/multi_gpu_bench.sh), beside its table:
  aggregate_gbps.png     aggregate GB/s vs global N: every GPU copying its shard (the ceiling),
                         2/3 of it (the 3-access bound), multi_gpu_scan, the scan-then-add
                         baseline and the one-GPU tuned scan of the same N

Usage: python3 -m scripts plots [--bench-dir bench]   the committed reference: every
                                bench/<gpu>/timing.txt and bench/multi_gpu/*/timing.txt (make plots)
       python3 -m scripts plots --from PATH           a timing table, a folder holding timing.txt
                                (results/h100) or a folder of such folders (results): charts
                                beside each table (make plots FROM=PATH)
       python3 -m scripts plots --timing FILE [--hot HOT_FILE] [--out DIR]
                                one sweep (default: timing_hot.txt beside it, charts into its folder)
       python3 -m scripts plots --axis DIR   one sweep along an axis (results/h100/axis)
       python3 -m scripts plots --frameworks DIR   one sweep of the framework rows
"""
import argparse
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from scripts.results_table import is_multi_gpu, timing_files  # noqa: E402
from scripts.timing_table import application_groups, load, multi_gpu_files, per_gpu_files, scan_rows  # noqa: E402

REFERENCES = ("memcpy_baseline", "cub_scan")
TUNED = "single_pass_scan_tuned"
# Family of each variant, by name: the first pattern that matches wins.
FAMILIES = [
    (r"^sequential_scan$", "sequential"),
    (r"^single_pass_scan_(naive|dynamic)", "single-pass chain"),
    (r"^single_pass_scan_tuned", "single-pass tuned"),
    (r"^single_pass_scan_decoupled", "single-pass look-back"),
    (r"^single_pass", "single-pass (other)"),
    (r"^reduce_then_scan", "reduce-then-scan"),
    (r"^hierarchical_.*(warp|coarsening)", "hierarchical, warp / coarsened"),
    (r"^hierarchical_", "hierarchical, shared-memory tree"),
    # The scans users call from libraries and frameworks (CUB's own row is drawn apart, dashed).
    (r"^thrust_", "library (Thrust)"),
    # The scans along rows (src/axis/), which a 1-D sweep runs as one row of N.
    (r"^(row_scan|cub_row_)", "along rows (one row of N)"),
    (r"_cumsum$", "framework (PyTorch, CuPy, JAX)"),
]


def family_of(variant):
    for pattern, family in FAMILIES:
        if re.search(pattern, variant):
            return family
    return "other"


def passed(rows):
    return rows[rows["status"] == "PASS"]


def title(header, what, l2=None):
    gpu = header.get("gpu", "unknown GPU")
    date = header.get("date", "")[:10]
    return f"{what}\n{gpu}, {l2 or header.get('l2', 'cold')} L2, {date}, commit {header.get('git_commit', '?')}"


def size_axis(ax):
    ax.set_xscale("log", base=2)
    ax.set_xlabel("N (elements)")
    ax.grid(True, which="major", alpha=0.3)


def is_power_of_two(n):
    return n > 0 and n & (n - 1) == 0


def spread(data):
    """Each row's spread of rep times (ms): p10 to p90 where measured, else min to max."""
    low, high = data["min_ms"], data["max_ms"]
    if "p10_ms" in data and "p90_ms" in data:
        measured = data["p10_ms"].notna() & data["p90_ms"].notna()
        low, high = data["p10_ms"].where(measured, low), data["p90_ms"].where(measured, high)
    return low, high


# What a chart shows of a row, from its time (ms): measure(rows, times) -> values.
def microseconds(rows, times):
    return times * 1e3


def gbps(rows, times):
    """The row's bandwidth had it taken `times` (GB/s is bytes / median time)."""
    return rows["gbps"] * rows["median_ms"] / times


def draw(ax, rows, measure, label, on_line=is_power_of_two, band=True, **style):
    """One variant's PASS rows against N: measure(rows, median) as a line through the sizes
    `on_line` accepts (the powers of two), hollow markers of its colour at the others, and a
    shaded band over its spread. Returns whether it drew any such marker."""
    rows = rows.sort_values("n")
    on = rows["n"].map(on_line).astype(bool)  # (an empty map is not boolean, and would pick columns)
    lined, off = rows[on], rows[~on]
    (line,) = ax.plot(lined["n"], measure(lined, lined["median_ms"]), label=label, **style)
    colour = line.get_color()
    if band and len(lined):
        low, high = spread(lined)
        ax.fill_between(lined["n"], measure(lined, low), measure(lined, high), color=colour, alpha=0.15, linewidth=0)
    if len(off):
        ax.plot(off["n"], measure(off, off["median_ms"]), linestyle="none", marker="D", markersize=5,
                markerfacecolor="none", color=colour)
    return len(off) > 0


def note_off_line_markers(ax):
    """The legend entry that explains draw()'s hollow markers."""
    ax.plot([], [], linestyle="none", marker="D", markersize=5, markerfacecolor="none", color="grey",
            label="sizes that are not powers of two (off the lines)")


def draw_peak(ax, header, gpus=1):
    """The GPU's peak memory bandwidth (the header's, from the memory clock and bus width), times
    the GPUs, as a line; nothing when the header has none."""
    peak = header.get("peak_memory_gbps")
    if peak:
        total = float(peak) * gpus
        what = f"{gpus} x {float(peak):.0f}" if gpus > 1 else f"{total:.0f}"
        ax.axhline(total, color="tab:red", linestyle="-.", linewidth=1,
                   label=f"peak memory bandwidth, {what} GB/s (memory clock x bus width)")


def sweep_label(rows):
    first = rows.iloc[0]
    return f"{first['type']} {first['op']} {first['mode']}"


def fastest(rows, variants, sizes):
    """Variants ordered by mean latency over `sizes` (those missing any size are left out)."""
    table = passed(rows).pivot_table(index="variant", columns="n", values="median_ms")
    table = table.reindex(index=[v for v in variants if v in table.index], columns=sizes).dropna()
    return list(table.mean(axis=1).sort_values().index)


def plot_latency_top3(header, rows, out):
    ok = passed(rows)
    sizes = sorted(n for n in ok["n"].unique() if is_power_of_two(n))
    candidates = [v for v in ok["variant"].unique() if v not in REFERENCES]
    top3 = fastest(rows, candidates, sizes)[:3]
    fig, ax = plt.subplots(figsize=(9, 6))
    off_line = False
    for variant in top3 + [v for v in ("cub_scan",) if v in set(ok["variant"])]:
        style = dict(linestyle="--", color="black") if variant == "cub_scan" else {}
        off_line |= draw(ax, ok[ok["variant"] == variant], microseconds, variant, marker="o", markersize=4, **style)
    if off_line:
        note_off_line_markers(ax)
    size_axis(ax)
    ax.set_yscale("log")
    ax.set_ylabel("median time per scan (µs); band: spread of the reps")
    ax.set_title(title(header, f"Latency, top 3 variants + CUB ({sweep_label(rows)})"))
    ax.legend(loc="upper left", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "latency_pow2_top3.png", dpi=120)
    plt.close(fig)
    return top3


def plot_bandwidth(header, rows, out):
    ok = passed(rows)
    fig, ax = plt.subplots(figsize=(10, 6))
    by_family = {}
    for variant in ok["variant"].unique():
        if variant in REFERENCES:
            continue
        at_largest = ok[(ok["variant"] == variant) & (ok["n"] == ok[ok["variant"] == variant]["n"].max())]
        score = (ok[ok["variant"] == variant]["n"].max(), at_largest["gbps"].max())
        family = family_of(variant)
        if family not in by_family or score > by_family[family][1]:
            by_family[family] = (variant, score)
    off_line = False
    for family, (variant, _) in sorted(by_family.items()):
        off_line |= draw(ax, ok[ok["variant"] == variant], gbps, f"{family}: {variant}", marker="o", markersize=4)
    for variant, style in (("memcpy_baseline", dict(color="black", linewidth=2.5)),
                           ("cub_scan", dict(color="black", linestyle="--"))):
        if variant not in set(ok["variant"]):
            continue  # a sweep of some variants only (--variants)
        label = variant + (" (ceiling)" if variant == "memcpy_baseline" else "")
        off_line |= draw(ax, ok[ok["variant"] == variant], gbps, label, **style)
    draw_peak(ax, header)
    if off_line:
        note_off_line_markers(ax)
    size_axis(ax)
    ax.set_ylabel("GB/s (2 · N · element size / median time); band: spread of the reps")
    ax.set_ylim(bottom=0)
    ax.set_title(title(header, f"Bandwidth: the best variant of each family ({sweep_label(rows)})"))
    ax.legend(loc="upper left", fontsize=8, title=f"family: best variant (highest GB/s at its largest N)",
              title_fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "bandwidth.png", dpi=120)
    plt.close(fig)


# Up to here, launches and their latency, not bandwidth, set a scan's time.
SMALL_N = 2**16
# A variant more than this many times slower than memcpy at some small N (the serial baseline:
# hundreds) is named under the chart rather than drawn: its line would squash the others.
SMALL_N_OFF_CHART = 30


def plot_small_n(header, rows, out):
    """Every variant's time at N <= SMALL_N against memcpy's, the launch floor: one kernel that
    only copies. Left the times, right each over memcpy's at the same N."""
    ok = passed(rows)
    small = ok[ok["n"] <= SMALL_N]
    memcpy = small[small["variant"] == "memcpy_baseline"].set_index("n")["median_ms"]
    over_memcpy = {v: group.set_index("n")["median_ms"] / memcpy
                   for v, group in small.groupby("variant") if v != "memcpy_baseline"}
    off_chart = sorted(v for v, ratio in over_memcpy.items() if ratio.max() > SMALL_N_OFF_CHART)
    # Legend from the slowest down, as the lines stand at the right-hand end.
    at_largest = small[small["n"] == small["n"].max()].set_index("variant")["median_ms"]
    variants = sorted((v for v in over_memcpy if v not in off_chart), key=lambda v: -at_largest.get(v, np.inf))
    fig, (times, ratios) = plt.subplots(1, 2, figsize=(16, 7.5), sharex=True)
    colours = plt.get_cmap("tab20").colors
    for i, variant in enumerate(variants):
        style = dict(color=colours[i % len(colours)], linestyle=("-", "--", ":")[i // len(colours) % 3],
                     marker="o", markersize=3)
        if variant == "cub_scan":
            style.update(color="black", linestyle="--", marker=None)
        if variant == TUNED:
            style.update(linewidth=2.5)
        # No bands: two dozen of them would hide the lines; the other charts have them.
        draw(times, small[small["variant"] == variant], microseconds, variant, band=False, **style)
        ratios.plot(over_memcpy[variant].index, over_memcpy[variant], **style)
    draw(times, small[small["variant"] == "memcpy_baseline"], microseconds, "memcpy_baseline (the launch floor)",
         color="black", linewidth=3)
    ratios.axhline(1.0, color="black", linewidth=3)
    for ax in (times, ratios):
        size_axis(ax)
        ax.set_yscale("log")
        for axis in (ax.yaxis.set_major_formatter, ax.yaxis.set_minor_formatter):
            axis(FuncFormatter(lambda value, _: f"{value:g}"))  # 20, not 2 x 10^1
    times.set_ylabel("median time per scan (µs); band: memcpy's spread of the reps")
    times.set_title("time", fontsize=10)
    ratios.set_ylabel("time / memcpy's time at the same N")
    ratios.set_title("over memcpy's (the thick line: 1)", fontsize=10)
    fig.suptitle(title(header, f"Small N (up to 2^{SMALL_N.bit_length() - 1}), every variant against memcpy "
                               f"({sweep_label(rows)})"), fontsize=11)
    # Beside the panels (tight_layout leaves them the left 78%), however few its entries.
    fig.legend(*times.get_legend_handles_labels(), loc="center left", bbox_to_anchor=(0.785, 0.5), fontsize=7,
               title="slowest first, at the largest N", title_fontsize=8)
    if off_chart:
        fig.text(0.01, 0.01, f"Not drawn, more than {SMALL_N_OFF_CHART}x memcpy's time: {', '.join(off_chart)}",
                 fontsize=8)
    fig.tight_layout(rect=(0, 0.03, 0.78, 1))
    fig.savefig(out / "small_n.png", dpi=120)
    plt.close(fig)


def plot_speedup_heatmap(header, rows, out):
    ok = passed(rows)
    times = ok.pivot_table(index="variant", columns="n", values="median_ms")
    speedup = times.loc["cub_scan"] / times
    order = speedup.median(axis=1, skipna=True).sort_values(ascending=False).index
    speedup = speedup.loc[order]
    fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(speedup.columns) + 4), 0.38 * len(speedup) + 2.5))
    # Colours on a log scale clipped at 8x either way, so that the serial baseline (thousands of
    # times slower) does not wash out the differences that matter; the numbers are exact.
    limit = 3.0
    values = np.clip(np.log2(speedup.to_numpy(dtype=float)), -limit, limit)
    image = ax.imshow(values, cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
    ax.set_xticks(range(len(speedup.columns)))
    ax.set_xticklabels([f"2^{int(np.log2(n))}" if n & (n - 1) == 0 else f"{n:,}" for n in speedup.columns],
                       rotation=60, fontsize=8)
    ax.set_yticks(range(len(speedup.index)))
    ax.set_yticklabels(speedup.index, fontsize=8)
    for (i, j), value in np.ndenumerate(speedup.to_numpy(dtype=float)):
        if np.isfinite(value):
            ink = "white" if abs(values[i, j]) > 2 else "black"  # readable on the dark ends
            ax.text(j, i, f"{value:.2f}" if value >= 0.01 else "<.01", ha="center", va="center", fontsize=6,
                    color=ink)
    colorbar = fig.colorbar(image, ax=ax, ticks=np.arange(-limit, limit + 1))
    colorbar.ax.set_yticklabels([f"{2.0 ** k:g}x" for k in np.arange(-limit, limit + 1)])
    colorbar.set_label("CUB time / variant time (blue: faster than CUB)")
    ax.set_xlabel("N (elements)")
    ax.set_title(title(header, f"Speed-up over CUB ({sweep_label(rows)}); blank: not measured or failed"))
    fig.tight_layout()
    fig.savefig(out / "speedup_vs_cub.png", dpi=120, bbox_inches="tight")
    plt.close(fig)


def plot_cache_regimes(header, rows, hot_rows, out, fastest_variant, hot_commit):
    fig, ax = plt.subplots(figsize=(10, 6.5))
    off_line = False
    for variant, color in (("memcpy_baseline", "black"), ("cub_scan", "tab:gray"), (fastest_variant, "tab:blue")):
        for regime, data, style in (("cold", rows, "-"), ("hot", hot_rows, ":")):
            series = passed(data)[passed(data)["variant"] == variant]
            if not series.empty:
                off_line |= draw(ax, series, gbps, f"{variant}, {regime} L2", linestyle=style, color=color,
                                 marker="o", markersize=3)
    draw_peak(ax, header)
    if off_line:
        note_off_line_markers(ax)
    size_axis(ax)
    ax.set_ylabel("GB/s (2 · N · element size / median time)")
    ax.set_ylim(bottom=0)
    # The hot sweep's commit on a line of its own: on the GPU's line it ran past the chart's edge.
    ax.set_title(title(header, "Cold vs hot L2 (hot: reps back to back, no flush; see docs/protocol.md)",
                       l2="cold and hot") + f"\nthe hot sweep: commit {hot_commit}", fontsize=11)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "cache_regimes.png", dpi=120)
    plt.close(fig)


def newer_sorts(timing, rows):
    """The rows with their sort application replaced by the sorts of onesweep/timing.txt beside
    the sweep, where that table exists, and a note of where the panel's data comes from; the rows
    as they are otherwise. Each panel compares rows of one run: the sorts' own sweep has CUB's."""
    sorts_table = timing.parent / "onesweep" / "timing.txt"
    if not sorts_table.exists():
        return rows, {}
    sorts_header, sorts = load(sorts_table)
    sorts = sorts[sorts["op"] == "sort"]
    if sorts.empty:
        return rows, {}
    note = f"from {sorts_table.parent.name}/{sorts_table.name}, commit {sorts_header.get('git_commit', '?')}"
    kept = rows[rows["op"] != "sort"]
    return pd.concat([kept, sorts], ignore_index=True), {label: note for label, *_ in application_groups(sorts)}


def plot_applications(header, rows, out, sources=None):
    """Time against N per application, ours against CUB's, and the ratio; `sources` notes the
    panels whose rows come from another table (newer_sorts)."""
    sources = sources or {}
    groups = application_groups(rows)
    ok = passed(rows)
    fig, axes = plt.subplots(2, len(groups), figsize=(5.5 * len(groups), 8), sharex=True, squeeze=False,
                             gridspec_kw=dict(height_ratios=[2, 1]))
    for column, (label, ours, reference) in enumerate(groups):
        top, bottom = axes[0][column], axes[1][column]
        series = {v: ok[ok["variant"] == v].set_index("n")["median_ms"].sort_index() for v in ours + [reference]}
        off_line = False
        for variant in ours + [reference]:
            style = dict(linestyle="--", color="black") if variant == reference else dict(marker="o", markersize=3)
            off_line |= draw(top, ok[ok["variant"] == variant], microseconds, variant, **style)
            if variant != reference and reference is not None:
                ratio = (series[variant] / series[reference]).dropna().rename("median_ms").reset_index()
                # The ratio of two medians has no spread of its own.
                draw(bottom, ratio, lambda rows, times: times, f"{variant} / {reference}", band=False, marker="o",
                     markersize=3)
        if off_line:
            note_off_line_markers(top)
        top.set_yscale("log")
        top.set_ylabel("median time (µs)")
        top.set_title(label + (f"\n({sources[label]})" if label in sources else ""), fontsize=10)
        top.legend(fontsize=8, loc="upper left")
        bottom.axhline(1.0, color="black", linewidth=0.8)
        bottom.set_ylabel("time ratio to CUB (below 1: faster)")
        bottom.legend(fontsize=8, loc="upper left")
        for ax in (top, bottom):
            size_axis(ax)
    fig.suptitle(title(header, "Scan applications against CUB's dedicated algorithms"), fontsize=11)
    fig.tight_layout()
    fig.savefig(out / "applications.png", dpi=120)
    plt.close(fig)


def plot_sweep(timing, hot, out):
    """Every chart of one GPU's sweep (`timing`, its hot sweep `hot` if there is one) into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    header, all_rows = load(timing)
    rows = scan_rows(all_rows)
    top3 = plot_latency_top3(header, rows, out)
    plot_bandwidth(header, rows, out)
    written = ["latency_pow2_top3.png", "bandwidth.png"]
    # A sweep of some variants only (--variants) gets the charts its rows can draw.
    measured = passed(rows)
    if (measured["variant"] == "cub_scan").any():
        plot_speedup_heatmap(header, rows, out)
        written.append("speedup_vs_cub.png")
    else:
        print(f"plots.py: {timing} has no cub_scan rows: no speedup_vs_cub.png")
    if ((measured["variant"] == "memcpy_baseline") & (measured["n"] <= SMALL_N)).any():
        plot_small_n(header, rows, out)
        written.append("small_n.png")
    else:
        print(f"plots.py: {timing} has no memcpy_baseline row at N <= 2^{SMALL_N.bit_length() - 1}: no small_n.png")
    if application_groups(all_rows):
        application_rows, sources = newer_sorts(timing, all_rows)
        plot_applications(header, application_rows, out, sources)
        written.append("applications.png")
    if not hot.exists():
        print(f"plots.py: {hot} not found: cache_regimes.png needs a hot sweep (./bench.sh --hot --out {hot})")
    elif not top3:
        print(f"plots.py: {timing} ranks no variant over its powers of two: no cache_regimes.png")
    else:
        hot_header, hot_rows = load(hot)
        hot_rows = scan_rows(hot_rows)
        plot_cache_regimes(header, rows, hot_rows, out, top3[0], hot_header.get("git_commit", "?"))
        written.append("cache_regimes.png")
    print(f"plots.py: wrote {', '.join(str(out / name) for name in written)}")


def plot_multi_gpu(timing):
    """aggregate_gbps.png beside a multi-GPU sweep's table."""
    header, rows = load(timing)
    ok = passed(rows)
    spread = ok[ok["variant"].str.startswith("multi_gpu_")]
    gpus = int(spread["gpus"].max()) if len(spread) else 1
    on = f"{gpus} GPU" + ("s" if gpus > 1 else "")
    fig, ax = plt.subplots(figsize=(10, 6))
    # The sweep's sizes are G x a power of two: those are the lines' points.
    def on_line(n):
        return n % gpus == 0 and is_power_of_two(n // gpus)

    ceiling = ok[ok["variant"] == "multi_gpu_memcpy"]
    draw(ax, ceiling, gbps, f"multi_gpu_memcpy: every GPU copies its shard (ceiling, {on})", on_line=on_line,
         color="black", linewidth=2.5)
    draw(ax, ceiling, lambda rows, times: gbps(rows, times) * 2 / 3,
         "2/3 of the ceiling: the 3-access bound of a scan whose shard totals are unknown", on_line=on_line,
         band=False, color="black", linestyle=":")
    for variant, style, what in (
            ("multi_gpu_scan", dict(color="tab:blue", marker="o"), f"reduce, exchange, scan ({on})"),
            ("multi_gpu_scan_then_add", dict(color="tab:orange", marker="s"), f"scan, exchange, add ({on})"),
            ("single_pass_scan_tuned", dict(color="tab:green", marker="^", linestyle="--"), "one GPU, where N fits")):
        draw(ax, ok[ok["variant"] == variant], gbps, f"{variant}: {what}", on_line=on_line, markersize=4, **style)
    draw_peak(ax, header, gpus)
    size_axis(ax)
    ax.set_xlabel("N (elements, global)")
    ax.set_ylabel("aggregate GB/s (2 · N · element size / median time)")
    ax.set_ylim(bottom=0)
    ax.set_title(title(header, f"A scan across {on} ({sweep_label(rows)})"), fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    out = timing.parent / "aggregate_gbps.png"
    fig.savefig(out, dpi=120)
    plt.close(fig)
    print(f"plots.py: wrote {out}")


AXIS_TABLE = re.compile(r"^(?P<type>[a-z0-9]+)_(?P<axis>length|columns)(?P<extent>\d+)\.txt$")
# Rows of the axis tables whose bytes per element are not a plain scan's: the recurrence reads a
# and b and writes h (12 bytes a float element, memcpy's 8), its backward reads a, h and dh and
# writes da and db (20 bytes), so memcpy is not a copy of their bytes.
NOT_A_COPY_OF_THE_SAME_BYTES = {"linear_recurrence", "linear_recurrence_backward"}


def axis_rows(axis_dir):
    """Every row of the axis sweep's tables in axis_dir, with its shape and % of a copy: columns
    type, axis ('length' or 'columns'), extent, lines x extent as `shape`, and `copy_pct`."""
    frames, header = [], {}
    for table in sorted(Path(axis_dir).glob("*.txt")):
        match = AXIS_TABLE.match(table.name)
        if not match:
            continue
        header, rows = load(table)
        ok = passed(rows)
        copy = ok[ok["variant"] == "memcpy_baseline"].set_index("n")["median_ms"]
        ok = ok[(ok["variant"] != "memcpy_baseline") & ~ok["variant"].isin(NOT_A_COPY_OF_THE_SAME_BYTES)].copy()
        ok = ok[ok["n"].isin(copy.index)]
        extent = int(match["extent"])
        ok["axis"], ok["extent"] = match["axis"], extent
        ok["shape"] = [f"{n // extent} x {extent}" for n in ok["n"]]
        ok["copy_pct"] = 100 * ok["n"].map(copy) / ok["median_ms"]
        ok["commit"] = header.get("git_commit", "?")
        frames.append(ok)
    return header, frames


def plot_axis(axis_dir):
    """axis_<type>.png in axis_dir: % of a copy against the shape, a panel per axis."""
    import pandas as pd
    header, frames = axis_rows(axis_dir)
    if not frames:
        print(f"plots.py: {axis_dir} holds no <type>_length<L>.txt or <type>_columns<C>.txt table: no axis chart")
        return
    rows = pd.concat(frames)
    written = []
    for type_name, of_type in rows.groupby("type"):
        fig, axes = plt.subplots(1, 2, figsize=(14, 6), sharey=True)
        for ax, (axis, what) in zip(axes, (("length", "along rows (rows x length)"),
                                           ("columns", "down columns (rows x columns)"))):
            data = of_type[of_type["axis"] == axis].sort_values(["extent", "n"])
            shapes = list(dict.fromkeys(data["shape"]))
            for number, (variant, of_variant) in enumerate(data.groupby("variant", sort=True)):
                # A line per row length (or column count) of the variant, one colour for all of them.
                style = dict(color=f"C{number % 10}", marker="o", markersize=4,
                             linestyle="--" if variant.startswith(("cub_", "torch_", "cupy_", "jax_")) else "-")
                whole = variant in ("cub_scan", "single_pass_scan_tuned")  # the bench's 1-D anchors
                label = f"{variant} (the whole array as one line)" if whole else variant
                for _, of_extent in of_variant.groupby("extent"):
                    x = [shapes.index(shape) for shape in of_extent["shape"]]
                    ax.plot(x, of_extent["copy_pct"], label=label, **style)
                    label = None
            ax.axhline(100, color="black", linewidth=1)
            ax.axhline(90, color="grey", linewidth=0.8, linestyle=":")
            ax.set_xticks(range(len(shapes)))
            ax.set_xticklabels(shapes, rotation=60, ha="right", fontsize=7)
            ax.set_title(what, fontsize=10)
            ax.set_xlabel("shape")
            if shapes:
                ax.legend(fontsize=7, loc="upper left")
        axes[0].set_ylabel("% of a copy of the same bytes (memcpy median / median)")
        axes[0].set_ylim(bottom=0)
        # The tables may come from several runs (each compared only with its own memcpy rows):
        # the title names every commit.
        commits = ", ".join(dict.fromkeys(of_type["commit"]))
        fig.suptitle(title(dict(header, git_commit=commits),
                           f"Scans along an axis, {type_name} inclusive sum: 100% = memcpy, dotted 90%"), fontsize=11)
        fig.tight_layout()
        out = Path(axis_dir) / f"axis_{type_name}.png"
        fig.savefig(out, dpi=120)
        plt.close(fig)
        written.append(str(out))
    print(f"plots.py: wrote {', '.join(written)}")


# The framework chart's bars, top to bottom in each shape's group: the zoo's binary for the
# shape, CUB, then each framework's scan beside scan_zoo's called from it (solid: scan_zoo).
ZOO_BINARIES = ("single_pass_scan_tuned", "row_scan", "column_scan")
FRAMEWORK_BARS = [("the zoo's binary (C++)", ZOO_BINARIES), ("CUB (one array)", ("cub_scan",)),
                  ("scan_zoo from torch", ("scan_zoo_torch",)), ("torch.cumsum", ("torch_cumsum",)),
                  ("scan_zoo from CuPy", ("scan_zoo_cupy",)), ("cupy.cumsum", ("cupy_cumsum",)),
                  ("scan_zoo from JAX", ("scan_zoo_jax",)), ("jnp.cumsum (host-timed)", ("jax_cumsum",)),
                  ("cuda.compute (one array)", ("cuda_compute_scan",))]


def shape_of(mode, n, type_name):
    """A row's shape in words, from its mode: inclusive (1-D), -length<L> or -columns<C>."""
    if "-length" in mode:
        extent = int(mode.rsplit("length", 1)[1])
        return f"{n // extent} x {extent} {type_name}"
    if "-columns" in mode:
        extent = int(mode.rsplit("columns", 1)[1])
        return f"{n // extent} x {extent} {type_name}, dim 0"
    return f"2^{int(np.log2(n))} {type_name}" if is_power_of_two(n) else f"{n} {type_name}"


def plot_frameworks(sweep_dir):
    """frameworks.png in sweep_dir: % of a copy for every shape of its tables and every bar."""
    groups, header = [], {}
    for table in sorted(Path(sweep_dir).glob("*.txt")):
        header, rows = load(table)
        ok = passed(rows)
        for (type_name, n), same in ok.groupby(["type", "n"], sort=False):
            copy = same[same["variant"] == "memcpy_baseline"]["median_ms"]
            if copy.empty:
                continue
            # The 1-D anchors (cub_scan, memcpy) of an axis sweep carry the plain mode: the shape
            # is the axis rows' own.
            mode = max(same["mode"], key=len)
            medians = dict(zip(same["variant"], same["median_ms"]))
            kind = 2 if "-columns" in mode else 1 if "-length" in mode else 0  # 1-D, rows, columns
            groups.append(((kind, type_name, n), shape_of(mode, n, type_name), {
                label: 100 * copy.iloc[0] / medians[variant]
                for label, variants in FRAMEWORK_BARS for variant in variants if variant in medians}))
    if not groups:
        print(f"plots.py: {sweep_dir} holds no framework rows beside memcpy_baseline: no frameworks chart")
        return
    groups = [(shape, percent) for _, shape, percent in sorted(groups, key=lambda group: group[0])]
    bars = [label for label, _ in FRAMEWORK_BARS]
    height = 0.9 / len(bars)
    fig, ax = plt.subplots(figsize=(14, 0.9 * len(groups) + 2))
    for number, label in enumerate(bars):
        y = [g + number * height for g in range(len(groups))]
        values = [percent.get(label, np.nan) for _, percent in groups]
        framework_own = label.startswith(("torch.", "cupy.", "jnp.", "cuda.compute"))
        ax.barh(y, values, height=height, color=f"C{number}", label=label, hatch="//" if framework_own else None,
                edgecolor="white" if framework_own else None)
    ax.set_yticks([g + 0.45 - height / 2 for g in range(len(groups))])
    ax.set_yticklabels([shape for shape, _ in groups], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}%"))
    ax.axvline(100, color="black", linewidth=1)
    ax.set_xlabel("% of a copy of the same bytes (memcpy median / median; log scale)")
    ax.grid(True, axis="x", which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.suptitle(title(header, "Prefix sums from Python against the zoo's: scan_zoo's (solid) and each "
                               "framework's own (hatched)"), fontsize=11)
    fig.tight_layout()
    out = Path(sweep_dir) / "frameworks.png"
    fig.savefig(out, dpi=120)
    plt.close(fig)
    print(f"plots.py: wrote {out}")


def plot_from(path):
    """The charts of every table `path` names (make plots FROM=PATH), each beside its table."""
    for timing in timing_files(path):
        _, rows = load(timing)
        if is_multi_gpu(rows):
            plot_multi_gpu(timing)
        else:
            plot_sweep(timing, timing.with_name("timing_hot.txt"), timing.parent)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench-dir", default="bench", help="every <bench-dir>/<gpu>/timing.txt (the default)")
    parser.add_argument("--from", dest="source", metavar="PATH",
                        help="a timing table, a folder holding timing.txt, or a folder of such folders")
    parser.add_argument("--timing", help="one sweep instead")
    parser.add_argument("--hot", help="its hot sweep (default: timing_hot.txt beside it)")
    parser.add_argument("--out", help="where its charts go (default: its folder)")
    parser.add_argument("--axis", metavar="DIR", help="one sweep along an axis (scripts/axis_bench.sh's folder)")
    parser.add_argument("--frameworks", metavar="DIR", help="one sweep of the framework rows (bench.sh's tables)")
    args = parser.parse_args(argv)
    if args.axis:
        plot_axis(args.axis)
        return
    if args.frameworks:
        plot_frameworks(args.frameworks)
        return
    if args.source:
        plot_from(args.source)
        return
    if args.timing:
        timing = Path(args.timing)
        sweeps = [(timing, Path(args.hot or timing.with_name("timing_hot.txt")), Path(args.out or timing.parent))]
    else:
        sweeps = [(timing, timing.with_name("timing_hot.txt"), timing.parent)
                  for timing in per_gpu_files(args.bench_dir, "timing.txt")]
        if not sweeps:
            raise SystemExit(f"plots.py: no {args.bench_dir}/*/timing.txt (run ./bench.sh)")
    for timing, hot, out in sweeps:
        plot_sweep(timing, hot, out)
    if not args.timing:
        for timing in multi_gpu_files(args.bench_dir):
            plot_multi_gpu(timing)
        for axis_dir in sorted(Path(args.bench_dir).glob("*/axis")):
            plot_axis(axis_dir)
        for sweep_dir in sorted(Path(args.bench_dir).glob("*/python/sweep_*")):
            plot_frameworks(sweep_dir)



if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts plots")
