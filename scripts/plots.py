"""Charts of bench.sh sweeps (pandas + matplotlib), one set per GPU, written next to its timing
table (bench/<gpu>/timing.txt):

  latency_pow2_top3.png  latency vs N at powers of two: the three fastest variants (by mean
                         latency over the powers of two every one of them completed) plus CUB
  bandwidth.png          GB/s vs N: the best variant of each family, memcpy as the ceiling,
                         CUB dashed
  speedup_vs_cub.png     heatmap of time(CUB) / time(variant), variant x N (above 1: faster)
  cache_regimes.png      cold vs hot L2 for memcpy, CUB and the fastest variant (needs a --hot
                         sweep in timing_hot.txt beside timing.txt; skipped with a message otherwise)
  applications.png       the scan applications (segmented scan, stream compaction, radix sort):
                         time vs N, ours against CUB's, and the ratio (only when the sweep has them)
The scan charts use the scan rows only (mode inclusive / exclusive).
And, for each sweep of the scans across GPUs (scripts/multi_gpu_bench.sh), beside its table
bench/multi_gpu/<gpu>_x<G>/timing.txt:
  aggregate_gbps.png     aggregate GB/s vs global N: every GPU copying its shard (the ceiling),
                         2/3 of it (the 3-access bound), multi_gpu_scan, the scan-then-add
                         baseline and the one-GPU tuned scan of the same N

Usage: python3 scripts/plots.py [--bench-dir bench]     every bench/<gpu>/timing.txt (the default)
       python3 scripts/plots.py --timing FILE [--hot HOT_FILE] [--out DIR]
                                one sweep (default: timing_hot.txt beside it, charts into its folder)
"""
import argparse
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing_table import application_groups, load, multi_gpu_files, per_gpu_files, scan_rows  # noqa: E402

REFERENCES = ("memcpy_baseline", "cub_scan")
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
    sizes = sorted(n for n in ok["n"].unique() if n & (n - 1) == 0)
    candidates = [v for v in ok["variant"].unique() if v not in REFERENCES]
    top3 = fastest(rows, candidates, sizes)[:3]
    fig, ax = plt.subplots(figsize=(9, 6))
    for variant in top3 + ["cub_scan"]:
        data = ok[(ok["variant"] == variant) & ok["n"].isin(sizes)].sort_values("n")
        style = dict(linestyle="--", color="black") if variant == "cub_scan" else {}
        ax.plot(data["n"], data["median_ms"] * 1e3, marker="o", label=variant, **style)
    size_axis(ax)
    ax.set_yscale("log")
    ax.set_ylabel("median time per scan (µs)")
    ax.set_title(title(header, f"Latency at powers of two, top 3 variants + CUB ({sweep_label(rows)})"))
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
    for family, (variant, _) in sorted(by_family.items()):
        data = ok[ok["variant"] == variant].sort_values("n")
        ax.plot(data["n"], data["gbps"], marker="o", markersize=4, label=f"{family}: {variant}")
    for variant, style in (("memcpy_baseline", dict(color="black", linewidth=2.5)),
                           ("cub_scan", dict(color="black", linestyle="--"))):
        data = ok[ok["variant"] == variant].sort_values("n")
        ax.plot(data["n"], data["gbps"], label=variant + (" (ceiling)" if variant == "memcpy_baseline" else ""),
                **style)
    size_axis(ax)
    ax.set_ylabel("GB/s (2 · N · element size / median time)")
    ax.set_ylim(bottom=0)
    ax.set_title(title(header, f"Bandwidth: the best variant of each family ({sweep_label(rows)})"))
    ax.legend(loc="upper left", fontsize=8, title=f"family: best variant (highest GB/s at its largest N)",
              title_fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "bandwidth.png", dpi=120)
    plt.close(fig)


def plot_speedup_heatmap(header, rows, out):
    ok = passed(rows)
    times = ok.pivot_table(index="variant", columns="n", values="median_ms")
    if "cub_scan" not in times.index:
        raise SystemExit("plots.py: no cub_scan rows: the speed-up heatmap needs CUB in the sweep")
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
    fig, ax = plt.subplots(figsize=(9, 6))
    for variant, color in (("memcpy_baseline", "black"), ("cub_scan", "tab:gray"), (fastest_variant, "tab:blue")):
        for regime, data, style in (("cold", rows, "-"), ("hot", hot_rows, ":")):
            series = passed(data)[passed(data)["variant"] == variant].sort_values("n")
            if not series.empty:
                ax.plot(series["n"], series["gbps"], style, color=color, marker="o", markersize=3,
                        label=f"{variant}, {regime} L2")
    size_axis(ax)
    ax.set_ylabel("GB/s (2 · N · element size / median time)")
    ax.set_ylim(bottom=0)
    ax.set_title(title(header, "Cold vs hot L2 (hot: the previous rep's input and output still cached)",
                       l2=f"cold and hot (hot sweep at commit {hot_commit})"))
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "cache_regimes.png", dpi=120)
    plt.close(fig)


def plot_applications(header, rows, out):
    groups = application_groups(rows)
    ok = passed(rows)
    fig, axes = plt.subplots(2, len(groups), figsize=(5.5 * len(groups), 8), sharex=True, squeeze=False,
                             gridspec_kw=dict(height_ratios=[2, 1]))
    for column, (label, ours, reference) in enumerate(groups):
        top, bottom = axes[0][column], axes[1][column]
        series = {v: ok[ok["variant"] == v].set_index("n")["median_ms"].sort_index() for v in ours + [reference]}
        for variant in ours + [reference]:
            style = dict(linestyle="--", color="black") if variant == reference else dict(marker="o", markersize=3)
            top.plot(series[variant].index, series[variant] * 1e3, label=variant, **style)
            if variant != reference and reference is not None:
                ratio = (series[variant] / series[reference]).dropna()
                bottom.plot(ratio.index, ratio, marker="o", markersize=3, label=f"{variant} / {reference}")
        top.set_yscale("log")
        top.set_ylabel("median time (µs)")
        top.set_title(label, fontsize=10)
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
    plot_speedup_heatmap(header, rows, out)
    written = ["latency_pow2_top3.png", "bandwidth.png", "speedup_vs_cub.png"]
    if application_groups(all_rows):
        plot_applications(header, all_rows, out)
        written.append("applications.png")
    if hot.exists():
        hot_header, hot_rows = load(hot)
        hot_rows = scan_rows(hot_rows)
        plot_cache_regimes(header, rows, hot_rows, out, top3[0], hot_header.get("git_commit", "?"))
        written.append("cache_regimes.png")
    else:
        print(f"plots.py: {hot} not found: cache_regimes.png needs a hot sweep (./bench.sh --hot --out {hot})")
    print(f"plots.py: wrote {', '.join(str(out / name) for name in written)}")


def plot_multi_gpu(timing):
    """aggregate_gbps.png beside a multi-GPU sweep's table."""
    header, rows = load(timing)
    ok = passed(rows)
    spread = ok[ok["variant"].str.startswith("multi_gpu_")]
    gpus = int(spread["gpus"].max()) if len(spread) else 1
    on = f"{gpus} GPU" + ("s" if gpus > 1 else "")
    fig, ax = plt.subplots(figsize=(10, 6))
    ceiling = ok[ok["variant"] == "multi_gpu_memcpy"].sort_values("n")
    ax.plot(ceiling["n"], ceiling["gbps"], color="black", linewidth=2.5,
            label=f"multi_gpu_memcpy: every GPU copies its shard (ceiling, {on})")
    ax.plot(ceiling["n"], ceiling["gbps"] * 2 / 3, color="black", linestyle=":",
            label="2/3 of the ceiling: the 3-access bound of a scan whose shard totals are unknown")
    for variant, style, what in (
            ("multi_gpu_scan", dict(color="tab:blue", marker="o"), f"reduce, exchange, scan ({on})"),
            ("multi_gpu_scan_then_add", dict(color="tab:orange", marker="s"), f"scan, exchange, add ({on})"),
            ("single_pass_scan_tuned", dict(color="tab:green", marker="^", linestyle="--"), "one GPU, where N fits")):
        data = ok[ok["variant"] == variant].sort_values("n")
        ax.plot(data["n"], data["gbps"], markersize=4, label=f"{variant}: {what}", **style)
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench-dir", default="bench", help="every <bench-dir>/<gpu>/timing.txt (the default)")
    parser.add_argument("--timing", help="one sweep instead")
    parser.add_argument("--hot", help="its hot sweep (default: timing_hot.txt beside it)")
    parser.add_argument("--out", help="where its charts go (default: its folder)")
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
