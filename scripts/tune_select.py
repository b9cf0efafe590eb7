"""Selection from a tuning sweep (scripts/tune.sh -> bench/tuning.txt), after the ScanBox thesis:

  - the ideal configuration set: the fastest configuration at each N;
  - the best single configuration over all N by each selection metric: sum of throughput,
    absolute and squared distance to the ideal line, Chebyshev (largest distance), and the
    scale-free worst-case ratio to the ideal that we ship as the fallback (see choose_default);
  - the per-N table compiled into single_pass_scan_tuned (src/common/tuned_table.cuh): the
    smallest set of configurations that has one within TOLERANCE of the ideal at every N;
  - a report (bench/TUNING.md) and two charts: tuning_ideal_vs_single.png (GB/s over N) and
    tuning_density.png (how the configurations' throughput is distributed at a few sizes).

Usage: python3 scripts/tune_select.py [--tuning bench/tuning.txt] [--configs bench/tuning_configs.txt]
           [--table src/common/tuned_table.cuh] [--report bench/TUNING.md] [--out bench]
"""
import argparse
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing_table import load  # noqa: E402

REFERENCES = ("memcpy_baseline", "cub_scan")
# A configuration within 1% of the ideal at some N counts as ideal there: closer than that, two
# configurations trade places from one sweep to the next (median of 25 cold reps).
TOLERANCE = 0.01
DENSITY_SIZES = (2**12, 2**16, 2**20, 2**24, 2**28)

# Name fields (TunedConfig::name, tuned_scan.cuh) -> C++ template arguments.
BLOCK_SCANS = {"warpscans": "WarpScans", "raking": "Raking", "blelloch": "Blelloch"}
LOOKBACKS = {"serial": "Serial", "warp": "Warp"}
SLEEPS = {"sleep": "true", "nosleep": "false"}
DESCRIPTORS = {"packed64": "Packed64", "twofield": "TwoField"}
GRIDS = {"pertile": "TilePerBlock", "persistent": "Persistent"}


def cpp_config(name):
    """'128x24.v16.warpscans.warp.sleep.packed64.pertile' -> 'TunedConfig<128, 24, 16, ...>'."""
    shape, vector, scan, lookback, sleep, descriptor, grid = name.split(".")
    threads, items = shape.split("x")
    return (f"TunedConfig<{int(threads)}, {int(items)}, {int(vector[1:])}, BlockScanKind::{BLOCK_SCANS[scan]}, "
            f"LookbackKind::{LOOKBACKS[lookback]}, {SLEEPS[sleep]}, DescriptorKind::{DESCRIPTORS[descriptor]}, "
            f"GridKind::{GRIDS[grid]}>")


def load_sweep(path):
    """(header, gbps): gbps is a configuration x N table of PASS rows, references included."""
    header, rows = load(path)
    passed = rows[rows["status"] == "PASS"]
    gbps = passed.pivot_table(index="variant", columns="n", values="gbps")
    return header, rows, gbps


def load_configs(path):
    if path is None or not Path(path).exists():
        return None
    return pd.read_csv(path, sep=r"\s+").set_index("config")


def candidates(gbps, configs):
    """Configurations that may be shipped: measured (PASS) at every N and spill-free."""
    table = gbps.drop(index=[r for r in REFERENCES if r in gbps.index]).dropna()
    if configs is not None:
        spill_free = configs.index[configs["local_bytes"] == 0]
        table = table.loc[table.index.intersection(spill_free)]
    return table


def metrics(table):
    """Each selection metric per configuration (rows of `table`), against the ideal line."""
    ideal = table.max(axis=0)
    distance = ideal - table
    return pd.DataFrame({
        "sum_gbps": table.sum(axis=1),                      # maximize
        "abs_distance": distance.sum(axis=1),               # minimize
        "squared_distance": (distance ** 2).sum(axis=1),    # minimize
        "chebyshev": distance.max(axis=1),                  # minimize
        "worst_ratio": (table / ideal).min(axis=1),         # maximize
    })


METRIC_SENSE = {"sum_gbps": False, "abs_distance": True, "squared_distance": True, "chebyshev": True,
                "worst_ratio": False}  # True: smaller is better


def metric_winners(scores):
    return {metric: scores[metric].sort_values(ascending=ascending).index[0]
            for metric, ascending in METRIC_SENSE.items()}


def choose_default(winners):
    """The fallback (GPUs without a table) is the best worst-case ratio to the ideal: it must be
    decent at every N, and the thesis's absolute metrics are decided by the largest sizes alone
    (GB/s at 2^12 are a few hundredths of those at 2^28)."""
    return winners["worst_ratio"]


def compress(table, default, tolerance=TOLERANCE):
    """The smallest set of configurations with one within `tolerance` of the ideal at every N
    (greedy set cover: most sizes covered first, ties to the higher mean ratio to the ideal),
    and for each N the fastest configuration of that set. Returns (chosen configs, {n: config})."""
    ideal = table.max(axis=0)
    ratio = table / ideal
    eligible = ratio >= 1 - tolerance
    uncovered = set(table.columns)
    chosen = []
    while uncovered:
        cover = eligible[sorted(uncovered)].sum(axis=1)
        best = cover.max()
        tied = cover[cover == best].index
        pick = ratio.loc[tied].mean(axis=1).sort_values(ascending=False).index[0]
        chosen.append(pick)
        uncovered -= set(eligible.columns[eligible.loc[pick]])
    per_n = {n: table.loc[chosen, n].idxmax() for n in table.columns}
    if default not in chosen:
        chosen.append(default)
    return chosen, per_n


def table_rows(per_n):
    """(log2 n, config) rows, one per run of equal choices, each at the run's largest N."""
    rows = []
    for n in sorted(per_n):
        log2_n = int(round(math.log2(n)))
        if rows and rows[-1][1] == per_n[n]:
            rows[-1] = (log2_n, per_n[n])
        else:
            rows.append((log2_n, per_n[n]))
    return rows


def write_table(path, header, chosen, default, rows):
    index = {name: i for i, name in enumerate(chosen)}
    gpu = header.get("gpu", "")
    lines = [
        "// tuned_table.cuh -- GENERATED by scripts/tune_select.py from bench/tuning.txt; do not edit by hand.",
        f"// Sweep: {gpu}, commit {header.get('git_commit', '?')}, {header.get('date', '?')}, "
        f"int32 inclusive sum, {header.get('l2', 'cold')} L2.",
        "// Configs: the smallest set with one within 1% of the fastest measured at every power of two",
        "// (bench/TUNING.md); kFallback: the best worst-case ratio to the fastest over all N, used",
        "// on every GPU without a measured table.",
        "#pragma once",
        "",
        '#include "tuned_scan.cuh"',
        "",
        "namespace zoo::tuned {",
        "",
        "using Configs = TypeList<",
    ]
    for i, name in enumerate(chosen):
        comma = "," if i + 1 < len(chosen) else ">;"
        lines.append(f"    {cpp_config(name)}{comma}  // {i}: {name}")
    lines += [
        "",
        "// The configuration for GPUs without a measured table.",
        f"inline constexpr int kFallback = {index[default]};",
        "",
        "// Per GPU (by its device name): config index for N in (2^(previous row's log2_n), 2^log2_n];",
        "// below the first row the first row's config, above the last the last row's.",
        "struct Row {",
        "  int log2_n;",
        "  int config;",
        "};",
        "struct Table {",
        "  const char* gpu;",
        "  const Row* rows;",
        "  int count;",
        "};",
        "",
        "inline constexpr Row kMeasuredRows[] = {",
    ]
    lines += [f"    {{{log2_n}, {index[name]}}},  // {name}" for log2_n, name in rows]
    lines += [
        "};",
        f'inline constexpr Table kTables[] = {{{{"{gpu}", kMeasuredRows, {len(rows)}}}}};',
        "",
        "}  // namespace zoo::tuned",
        "",
    ]
    Path(path).write_text("\n".join(lines))


def parameter_effects(table, sizes):
    """For each parameter value: the best GB/s any configuration with that value reached at each
    of `sizes` (what each choice can do at its best)."""
    fields = ["shape", "vector", "block scan", "look-back", "back-off", "descriptor", "grid"]
    parts = pd.DataFrame([name.split(".") for name in table.index], index=table.index, columns=fields)
    out = []
    for field in fields:
        for value in sorted(parts[field].unique()):
            best = table.loc[parts.index[parts[field] == value], sizes].max(axis=0)
            out.append([field, value] + [f"{best[n]:.0f}" for n in sizes])
    return out


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def pow2_label(n):
    return f"2^{int(round(math.log2(n)))}"


def write_report(path, header, rows, gbps, table, scores, winners, default, per_n, configs):
    sizes = list(table.columns)
    ideal_name = table.idxmax(axis=0)
    ideal = table.max(axis=0)
    memcpy = gbps.loc["memcpy_baseline"] if "memcpy_baseline" in gbps.index else None
    cub = gbps.loc["cub_scan"] if "cub_scan" in gbps.index else None
    status_counts = rows[~rows["variant"].isin(REFERENCES)]["status"].value_counts()
    n_configs = rows.loc[~rows["variant"].isin(REFERENCES), "variant"].nunique()
    spilling = [] if configs is None else list(configs.index[configs["local_bytes"] > 0])
    text = [
        "# Tuning single_pass_scan_tuned",
        "",
        "Generated by `scripts/tune_select.py` from `bench/tuning.txt` (`make tune`; the sweep is",
        "`scripts/tune.sh`). Do not edit: re-run the selection.",
        "",
        f"- GPU: {header.get('gpu', '?')}; commit {header.get('git_commit', '?')}; {header.get('date', '?')};"
        f" int32 inclusive sum, {header.get('l2', 'cold')} L2, median of {int(rows['reps'].max())} reps;"
        " CUB and memcpy in the same process.",
        f"- {n_configs} configurations x {len(sizes)} sizes: "
        + ", ".join(f"{count} {status}" for status, count in status_counts.items()) + ".",
        f"- Spill-free and measured at every N (the candidates for shipping): {len(table)}"
        + (f"; spilling (local memory > 0, never shipped): {len(spilling)}" if configs is not None else "") + ".",
        "",
        "## Ideal configuration set (fastest at each N) and the shipped table",
        "",
    ]
    body = []
    for n in sizes:
        shipped = per_n[n]
        row = [pow2_label(n), ideal_name[n], f"{ideal[n]:.0f}"]
        row += [f"{cub[n]:.0f}" if cub is not None else "-", f"{ideal[n] / cub[n]:.2f}" if cub is not None else "-"]
        row += [f"{100 * ideal[n] / memcpy[n]:.1f}%" if memcpy is not None else "-"]
        row += [shipped, f"{table.loc[shipped, n]:.0f}", f"{table.loc[shipped, n] / ideal[n]:.3f}"]
        body.append(row)
    text.append(markdown_table(["N", "fastest configuration", "GB/s", "CUB GB/s", "fastest / CUB",
                                "% of memcpy", "shipped configuration", "GB/s", "of fastest"], body))
    text += ["", f"The shipped table uses {len(set(per_n.values()))} configurations "
             f"(each N gets one within {100 * TOLERANCE:.0f}% of the fastest measured there).", ""]
    text += ["## Best single configuration by each metric", ""]
    body = []
    for metric, name in winners.items():
        s = scores.loc[name]
        body.append([metric, name, f"{s['sum_gbps']:.0f}", f"{s['abs_distance']:.0f}", f"{s['squared_distance']:.0f}",
                     f"{s['chebyshev']:.0f}", f"{s['worst_ratio']:.3f}"])
    text.append(markdown_table(["metric", "winner", "sum GB/s", "abs distance", "squared distance", "Chebyshev",
                                "worst ratio to ideal"], body))
    text += [
        "",
        "Sum of throughput and absolute distance always pick the same configuration (the distance is",
        "the ideal's sum minus the configuration's). All four of the thesis's metrics are in GB/s, so",
        "the largest sizes decide them. The fallback (GPUs without a measured table) is the best",
        f"worst-case ratio to the ideal, scale-free: **{default}**, never below "
        f"{scores.loc[default, 'worst_ratio']:.3f} of the fastest at any N of this sweep.",
        "",
        "## What each parameter can do at its best (GB/s of its fastest configuration)",
        "",
    ]
    effect_sizes = [n for n in (2**12, 2**16, 2**20, 2**24, 2**28, 2**30) if n in sizes]
    text.append(markdown_table(["parameter", "value"] + [pow2_label(n) for n in effect_sizes],
                               parameter_effects(table, effect_sizes)))
    text.append("")
    Path(path).write_text("\n".join(text))


def chart_title(header, what):
    return (f"{what}\n{header.get('gpu', '?')}, int32 inclusive sum, {header.get('l2', 'cold')} L2, "
            f"{header.get('date', '')[:10]}, commit {header.get('git_commit', '?')}")


def plot_ideal_vs_single(path, header, gbps, table, winners, per_n):
    sizes = list(table.columns)
    fig, ax = plt.subplots(figsize=(10, 6))
    ax.plot(sizes, table.max(axis=0)[sizes], "k-", lw=2.5, label="ideal set (fastest at each N)")
    ax.plot(sizes, [table.loc[per_n[n], n] for n in sizes], "o", color="tab:green", ms=6,
            label="shipped per-N table")
    styles = ["--", "-.", ":", (0, (5, 1))]
    labelled = {}
    for metric, name in winners.items():
        labelled.setdefault(name, []).append(metric)
    for (name, names), style in zip(labelled.items(), styles * 3):
        ax.plot(sizes, table.loc[name, sizes], linestyle=style, lw=1.5, label=f"best by {', '.join(names)}: {name}")
    for ref, color in (("memcpy_baseline", "tab:gray"), ("cub_scan", "tab:red")):
        if ref in gbps.index:
            ax.plot(sizes, gbps.loc[ref, sizes], color=color, lw=1.5, marker=".", label=ref)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("N (elements)")
    ax.set_ylabel("GB/s (2 x 4 bytes x N / median time)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(chart_title(header, "Tuned single-pass scan: ideal set vs best single configurations"), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_density(path, header, gbps):
    configs = gbps.drop(index=[r for r in REFERENCES if r in gbps.index])
    sizes = [n for n in DENSITY_SIZES if n in configs.columns]
    fig, axes = plt.subplots(1, len(sizes), figsize=(3.2 * len(sizes), 3.6), squeeze=False)
    for ax, n in zip(axes[0], sizes):
        values = configs[n].dropna()
        ax.hist(values, bins=40, color="tab:blue", alpha=0.8)
        for ref, color in (("memcpy_baseline", "tab:gray"), ("cub_scan", "tab:red")):
            if ref in gbps.index and not math.isnan(gbps.loc[ref, n]):
                ax.axvline(gbps.loc[ref, n], color=color, ls="--", lw=1.2, label=ref)
        ax.set_title(f"N = {pow2_label(n)} ({len(values)} configs)", fontsize=9)
        ax.set_xlabel("GB/s")
    axes[0][0].set_ylabel("configurations")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(chart_title(header, "Throughput density of the configuration space"), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tuning", default="bench/tuning.txt")
    parser.add_argument("--configs", default="bench/tuning_configs.txt")
    parser.add_argument("--table", default="src/common/tuned_table.cuh")
    parser.add_argument("--report", default="bench/TUNING.md")
    parser.add_argument("--out", default="bench")
    args = parser.parse_args(argv)

    header, rows, gbps = load_sweep(args.tuning)
    configs = load_configs(args.configs)
    table = candidates(gbps, configs)
    if table.empty:
        print(f"tune_select: no configuration of {args.tuning} passed at every size spill-free", file=sys.stderr)
        return 1
    scores = metrics(table)
    winners = metric_winners(scores)
    default = choose_default(winners)
    chosen, per_n = compress(table, default)
    write_table(args.table, header, chosen, default, table_rows(per_n))
    write_report(args.report, header, rows, gbps, table, scores, winners, default, per_n, configs)
    out = Path(args.out)
    plot_ideal_vs_single(out / "tuning_ideal_vs_single.png", header, gbps, table, winners, per_n)
    plot_density(out / "tuning_density.png", header, gbps)
    print(f"tune_select: {len(chosen)} configurations in {args.table}; fallback {default}; "
          f"report {args.report}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
