"""Selection from the tuning sweeps of every measured GPU (tune/tune.sh -> bench/<gpu>/tuning.txt,
with tuning_configs.txt beside it), after the ScanBox thesis. For each GPU:

  - the ideal configuration set: the fastest configuration at each N;
  - the best single configuration over all N by each selection metric: sum of throughput,
    absolute and squared distance to the ideal line, Chebyshev (largest distance), and the
    scale-free worst-case ratio to the ideal;
  - its per-N table: the smallest set of configurations that has one within TOLERANCE of the
    ideal at every N;
  - a report, bench/<gpu>/TUNING.md, and two charts beside it: tuning_ideal_vs_single.png (GB/s
    over N) and tuning_density.png (how the configurations' throughput is distributed at a few
    sizes), each headed with the GPU, the commit and the date of its sweep.
Over all GPUs:

  - the fallback, for GPUs with neither a table of their own nor a compatible one (same compute
    capability: include/scan_zoo/detail/tuned_dispatch.cuh): see choose_fallback;
  - the generated include/scan_zoo/detail/tuned_table.cuh: the union of every GPU's set and the fallback, each
    configuration once, and one row table per GPU (ordered by slug, scripts/gpu_slug.py).
Each run rereads every GPU's sweep, so `make tune` on one GPU replaces that GPU's table and keeps
the others'.

Candidates for shipping: configurations that passed at every N of the GPU's sweep and do not
spill (local memory 0 in tuning_configs.txt; bin/ is built with spills as errors).

The configuration space comes from its listing, build/tune/space.txt (tune/list_space.cu, `make
build/tune/space.txt`): one row per configuration of include/scan_zoo/detail/tuned_space.cuh, with its
index, its name (TunedConfig::name(), the variant column of a sweep) and its parameters. A sweep
naming a configuration outside it is of another space, and is refused. The generated table names
the shipped configurations by index (ConfigAt<i>), and the reports take each configuration's
parameters from the listing: this script never reads a name's fields.

Usage: python3 -m tune.tune_select [--bench-dir bench | --tuning PATH [PATH ...]]
                                      [--space build/tune/space.txt]
                                      [--table include/scan_zoo/detail/tuned_table.cuh]
  --tuning takes tuning.txt files or the folders holding them; reports and charts go beside each.
"""
import argparse
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from scripts.gpu_slug import gpu_slug  # noqa: E402
from scripts.timing_table import load, per_gpu_files  # noqa: E402

REFERENCES = ("memcpy_baseline", "cub_scan")
# A configuration within 1% of the ideal at some N counts as ideal there: closer than that, two
# configurations trade places from one sweep to the next (median of 25 cold reps).
TOLERANCE = 0.01
# The compact table (SCAN_ZOO_COMPACT_TUNED_TABLE, what the Python package compiles, its build time
# being bounded; docs/python.md, "Build cost"): one set for every GPU, which from COMPACT_EXACT_FROM
# elements on runs what the full table runs (the sweeps are of int32 alone: a configuration
# within a few % there lost 10% on an int32 -> int64 scan at 2^26, bench/NOTES.md, "torch's scan
# ops: the build under five minutes"), and below it one within COMPACT_TOLERANCE of the fastest.
COMPACT_TOLERANCE = 0.05
COMPACT_EXACT_FROM = 2**20
DENSITY_SIZES = (2**12, 2**16, 2**20, 2**24, 2**28)
# What the C++ side needs of a sweep's header to tell GPUs apart and find the nearest one.
HEADER_FIELDS = ("gpu", "compute_capability", "sm_count", "peak_memory_gbps")

# The parameter columns of the space's listing (tune/list_space.cu), in its order; the reports
# name the parameters by them.
PARAMETERS = ("threads", "items", "publish", "descriptor_stride", "per_lane", "sleep_ns", "aggregate")


def load_space(path):
    """The space's listing, indexed by configuration name: its index in the space and its parameters."""
    if not Path(path).exists():
        raise SystemExit(f"tune_select: no {path}, the listing of the configuration space: "
                         "run make build/tune/space.txt (make tune-select does)")
    space = pd.read_csv(path, sep=r"\s+")
    missing = [column for column in ("index", "name", *PARAMETERS) if column not in space.columns]
    if missing:
        raise SystemExit(f"tune_select: {path} lacks the columns {', '.join(missing)} (not tune/list_space's listing?)")
    return space.set_index("name")


@dataclass
class Sweep:
    """One GPU's tuning sweep and what the selection made of it."""
    path: Path               # bench/<gpu>/tuning.txt
    header: dict             # its '# key: value' lines
    rows: pd.DataFrame       # every row, failures included
    gbps: pd.DataFrame       # configuration x N, PASS rows only, references included
    configs: pd.DataFrame    # tuning_configs.txt (registers, local_bytes, ...), or None without one
    table: pd.DataFrame      # the candidates x N
    slug: str
    chosen: list = field(default_factory=list)  # its per-N set, in the order the cover picked it
    per_n: dict = field(default_factory=dict)   # N -> the configuration its table runs there

    @property
    def gpu(self):
        return self.header["gpu"]

    @property
    def folder(self):
        return self.path.parent

    def cub_ratio(self, name):
        """The configuration's GB/s over CUB's at each N where both were measured."""
        if "cub_scan" not in self.gbps.index:
            return pd.Series(dtype=float)
        return (self.table.loc[name] / self.gbps.loc["cub_scan"]).dropna()


def load_sweep(path, space):
    header, rows = load(path)
    missing = [key for key in HEADER_FIELDS if key not in header]
    if missing:
        raise SystemExit(f"tune_select: {path}: header lacks {', '.join(missing)} (not a tune/tune.sh sweep?)")
    unknown = [name for name in rows["variant"].unique() if name not in REFERENCES and name not in space.index]
    if unknown:
        others = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        raise SystemExit(f"tune_select: {path}: '{unknown[0]}'{others} is not a configuration of the space "
                         "(include/scan_zoo/detail/tuned_space.cuh): the sweep is of another configuration space. "
                         "Re-run make tune on that GPU.")
    passed = rows[rows["status"] == "PASS"]
    gbps = passed.pivot_table(index="variant", columns="n", values="gbps")
    configs_path = Path(path).with_name("tuning_configs.txt")
    configs = pd.read_csv(configs_path, sep=r"\s+").set_index("config") if configs_path.exists() else None
    return Sweep(Path(path), header, rows, gbps, configs, candidates(gbps, configs), gpu_slug(header["gpu"]))


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
    """Each metric's best configuration; of equal scores (configurations that tie at their worst
    size, say) the first by name, whichever order the rows came in and however pandas sorts."""
    by_name = scores.sort_index()
    return {metric: by_name[metric].sort_values(ascending=ascending, kind="stable").index[0]
            for metric, ascending in METRIC_SENSE.items()}


def cover(ratio, tolerance, chosen=()):
    """The configurations (rows of `ratio`, each one's ratio to the ideal at each column) that
    `chosen` begins with, then the fewest more with one within `tolerance` of the ideal at every
    column (greedy set cover: most columns covered first, ties to the higher mean ratio). A
    configuration of `chosen` that is no row of `ratio` covers nothing."""
    eligible = ratio >= 1 - tolerance
    chosen = list(chosen)
    uncovered = set(ratio.columns)
    for name in chosen:
        if name in eligible.index:
            uncovered -= set(eligible.columns[eligible.loc[name]])
    while uncovered:
        covers = eligible[sorted(uncovered)].sum(axis=1)
        tied = covers[covers == covers.max()].index
        pick = ratio.loc[tied].mean(axis=1).sort_values(ascending=False).index[0]
        chosen.append(pick)
        uncovered -= set(eligible.columns[eligible.loc[pick]])
    return chosen


def compress(table, tolerance=TOLERANCE):
    """The smallest set of configurations with one within `tolerance` of the ideal at every N
    (cover), and for each N the fastest configuration of that set. Returns (chosen configs,
    {n: config})."""
    chosen = cover(table / table.max(axis=0), tolerance)
    per_n = {n: table.loc[chosen, n].idxmax() for n in table.columns}
    return chosen, per_n


def compact_cover(sweeps, fallback, tolerance=COMPACT_TOLERANCE, exact_from=COMPACT_EXACT_FROM):
    """The compact table: one set for every GPU, the fallback first, then what each GPU's full
    table runs from `exact_from` elements on, then the fewest configurations (candidates on
    every GPU) with one within `tolerance` of each GPU's fastest at each smaller N; and for each
    GPU and N the full table's choice from `exact_from` on, the fastest of the set below.
    Returns (chosen, {slug: {n: config}})."""
    chosen = [fallback.name]
    for s in sweeps:
        for n in sorted(s.per_n):
            if n >= exact_from and s.per_n[n] not in chosen:
                chosen.append(s.per_n[n])
    small = [(s.table / s.table.max(axis=0))[[n for n in s.table.columns if n < exact_from]]
             .rename(columns=lambda n, slug=s.slug: (slug, n)) for s in sweeps]
    ratio = pd.concat(small, axis=1).dropna()  # the candidates on every GPU
    chosen = cover(ratio, tolerance, chosen)
    # Below exact_from the fastest of the set that this GPU measured (another GPU's full-table
    # choice need not be a candidate here), ties to the one chosen first.
    return chosen, {s.slug: {n: s.per_n[n] if n >= exact_from
                             else s.table.loc[[c for c in chosen if c in s.table.index], n].idxmax()
                             for n in s.table.columns} for s in sweeps}


@dataclass
class Fallback:
    name: str
    worst_ratio: float      # to the ideal, over every GPU and N
    never_slower_than_cub: bool


def choose_fallback(sweeps):
    """The configuration for GPUs without a table: among those that are candidates on every GPU,
    the best worst-case ratio to the ideal over all GPUs and N (decent everywhere, and scale-free:
    the thesis's absolute metrics are decided by the largest sizes alone, GB/s at 2^12 being a few
    hundredths of those at 2^28), restricted to those never slower than CUB (in GB/s, at any N of
    any GPU), since on an unknown GPU a scan slower than the library's is no reason to ship ours.
    If none is never slower than CUB, the best worst-case ratio regardless (said loudly)."""
    common = sorted(set.intersection(*(set(s.table.index) for s in sweeps)))
    if not common:
        raise SystemExit("tune_select: no configuration is a candidate (PASS at every N, spill-free) on every GPU: "
                         "no fallback can be chosen")
    worst = pd.concat([(s.table.loc[common] / s.table.max(axis=0)).min(axis=1) for s in sweeps], axis=1).min(axis=1)
    never_slower = [name for name in common if all((s.cub_ratio(name) >= 1).all() for s in sweeps)]
    pool = worst.loc[never_slower] if never_slower else worst
    name = sorted(pool.index, key=lambda c: (-pool[c], c))[0]
    return Fallback(name, float(worst[name]), bool(never_slower))


def shipped_configs(sweeps, fallback):
    """Every GPU's set, in slug order, then the fallback: each configuration once."""
    union = []
    for name in [c for s in sweeps for c in s.chosen] + [fallback.name]:
        if name not in union:
            union.append(name)
    return union


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


def rows_name(sweep):
    """The C++ name of a GPU's row array: kRows and its slug, uppercased (h100 -> kRowsH100)."""
    return "kRows" + re.sub(r"[^A-Z0-9]", "_", sweep.slug.upper())


def table_body(sweeps, configs, fallback_name, per_n, space):
    """The lines of one table: its Configs, kFallback, each GPU's rows (per_n: slug -> {n: config})
    and kTables."""
    index = {name: i for i, name in enumerate(configs)}
    lines = ["using Configs = TypeList<"]
    for i, name in enumerate(configs):
        comma = "," if i + 1 < len(configs) else ">;"
        lines.append(f"    ConfigAt<{space.loc[name, 'index']}>{comma}  // {i}: {name}")
    lines += ["", "// The configuration for GPUs without a measured or compatible table.",
              f"inline constexpr int kFallback = {index[fallback_name]};", ""]
    entries = []
    for s in sweeps:
        rows = table_rows(per_n[s.slug])
        lines.append(f"inline constexpr Row {rows_name(s)}[] = {{")
        lines += [f"    {{{log2_n}, {index[name]}}},  // {name}" for log2_n, name in rows]
        lines.append("};")
        major, minor = s.header["compute_capability"].split(".")
        entries.append(f"    {{{json.dumps(s.gpu)}, {int(major)}, {int(minor)}, {int(s.header['sm_count'])}, "
                       f"{round(float(s.header['peak_memory_gbps']))}, {rows_name(s)}, {len(rows)}}},")
    return lines + ["inline constexpr Table kTables[] = {", *entries, "};"]


def write_table(path, source, sweeps, configs, fallback, compact, space):
    """The generated header: the full table (configs, each sweep's per_n), and the compact one
    (compact: compact_cover's chosen and per_n) under SCAN_ZOO_COMPACT_TUNED_TABLE."""
    sweeps_line = "; ".join(f"{s.gpu} (commit {s.header.get('git_commit', '?')}, {s.header.get('date', '?')})"
                            for s in sweeps)
    regimes = ", ".join(sorted({s.header.get("l2", "cold") for s in sweeps}))
    if fallback.never_slower_than_cub:
        how = ["// (bench/<gpu>/TUNING.md); kFallback: among the configurations that are candidates on every GPU",
               "// and never slower than CUB there, the best worst-case ratio to the fastest over all GPUs and N."]
    else:
        how = ["// (bench/<gpu>/TUNING.md); kFallback: the best worst-case ratio to the fastest over all GPUs and N",
               "// among the configurations that are candidates on every GPU; NONE of them is never slower than CUB."]
    compact_configs, compact_per_n = compact
    lines = [
        f"// scan_zoo/detail/tuned_table.cuh -- GENERATED by tune/tune_select.py from {source}; do not edit by hand.",
        f"// Sweeps (int32 inclusive sum, {regimes} L2): {sweeps_line}.",
        "// Configs: per GPU, the smallest set with one within 1% of the fastest measured at every power of two",
        *how,
        "// With SCAN_ZOO_COMPACT_TUNED_TABLE defined (in every translation unit of a program alike: the two",
        f"// tables number their configurations differently), the compact table: {len(compact_configs)} configurations "
        f"for every GPU, the",
        f"// fallback, the full table's choices from 2^{COMPACT_EXACT_FROM.bit_length() - 1} elements on, and below "
        f"the fewest with one within {COMPACT_TOLERANCE:.0%}",
        "// of each GPU's fastest, for a build that compiles fewer kernels (the Python package's; docs/python.md,",
        "// \"Build cost\").",
        "#pragma once",
        "",
        '#include "tuned_space.cuh"',
        "",
        "namespace scan_zoo::detail::tuned {",
        "",
        f'static_assert(kSpaceSize == {len(space)}, "this table indexes a space of {len(space)} configurations '
        '(tuned_space.cuh): regenerate it (make tune-select)");',
        "",
        "// Config index for N in (2^(previous row's log2_n), 2^log2_n]; below the first row the first",
        "// row's config, above the last the last row's.",
        "struct Row {",
        "  int log2_n;",
        "  int config;",
        "};",
        "// A measured GPU: its device name, compute capability, SM count and peak memory bandwidth (the",
        "// sweep header's), so that a GPU without a table can borrow the nearest compatible one.",
        "struct Table {",
        "  const char* gpu;",
        "  int cc_major;",
        "  int cc_minor;",
        "  int sms;",
        "  int peak_memory_gbps;",
        "  const Row* rows;",
        "  int count;",
        "};",
        "",
        "// The configurations by their index in the space (tuned_space.cuh), as its listing numbered",
        "// them when this table was generated.",
        "#ifndef SCAN_ZOO_COMPACT_TUNED_TABLE",
        *table_body(sweeps, configs, fallback.name, {s.slug: s.per_n for s in sweeps}, space),
        "#else",
        *table_body(sweeps, compact_configs, fallback.name, compact_per_n, space),
        "#endif",
        "",
        "}  // namespace scan_zoo::detail::tuned",
        "",
    ]
    Path(path).write_text("\n".join(lines))


def parameter_effects(table, sizes, space):
    """For each parameter value: the best GB/s any configuration with that value reached at each
    of `sizes` (what each choice can do at its best)."""
    parameters = space.loc[table.index, list(PARAMETERS)]
    out = []
    for parameter in PARAMETERS:
        for value in sorted(parameters[parameter].unique()):
            best = table.loc[parameters.index[parameters[parameter] == value], sizes].max(axis=0)
            out.append([parameter, value] + [f"{best[n]:.0f}" for n in sizes])
    return out


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def pow2_label(n):
    return f"2^{int(round(math.log2(n)))}"


def fallback_section(sweep, sweeps, fallback):
    """What the report says about the fallback: how it was chosen, and how it does on this GPU."""
    gpus = [s.gpu for s in sweeps]
    ratio_to_cub = sweep.cub_ratio(fallback.name)
    ideal = sweep.table.max(axis=0)
    text = [
        "## The fallback (GPUs without a table of their own or a compatible one)",
        "",
        "A GPU nobody measured borrows the table of a measured GPU of the same compute capability",
        "(nearest SM count, then nearest peak memory bandwidth: `include/scan_zoo/detail/tuned_dispatch.cuh`); only",
        "a GPU with no such table runs the fallback, one configuration at every N. It is chosen over",
        f"every measured GPU ({'; '.join(gpus)}): among the configurations that are candidates on",
        "all of them, the best worst-case ratio to the fastest at any N of any GPU, among those never",
        "slower than CUB (GB/s) at any N of any GPU.",
        "",
    ]
    if not fallback.never_slower_than_cub:
        text += ["**No configuration that is a candidate on every GPU is never slower than CUB: the fallback is",
                 "the best worst-case ratio regardless, and is slower than CUB somewhere.**", ""]
    worst_n = ratio_to_cub.idxmin() if not ratio_to_cub.empty else None
    text += [
        f"Fallback: **{fallback.name}**, never below {fallback.worst_ratio:.3f} of the fastest over all GPUs and N;"
        f" here at worst {(sweep.table.loc[fallback.name] / ideal).min():.3f} of the fastest"
        + (f", and at worst {ratio_to_cub[worst_n]:.2f}x CUB's GB/s (at {pow2_label(worst_n)})."
           if worst_n is not None else " (no CUB rows to compare with)."),
        "",
    ]
    return text


def compact_section(sweep, compact):
    """What the compact table (SCAN_ZOO_COMPACT_TUNED_TABLE) runs on this GPU, and what it gives up."""
    chosen, per_n = compact
    table, ours = sweep.table, per_n[sweep.slug]
    ratio = pd.Series({n: table.loc[ours[n], n] / table.loc[sweep.per_n[n], n] for n in table.columns})
    large = ratio[ratio.index >= 2**20]
    from_2_20 = (f", and from 2^20 on {pow2_label(large.idxmin())} at {large.min():.3f}x" if len(large) else "")
    return ["## The compact table (the Python package's build)", "",
            f"With `SCAN_ZOO_COMPACT_TUNED_TABLE` a build compiles {len(chosen)} configurations for every GPU "
            f"(the fallback, every GPU's full-table choices from {pow2_label(COMPACT_EXACT_FROM)} on, and below the "
            f"fewest with one within {100 * COMPACT_TOLERANCE:.0f}% of each GPU's fastest): "
            f"{', '.join(f'`{c}`' for c in chosen)}. On this GPU it runs {len(set(ours.values()))} of them; "
            f"against the shipped table's choice its worst N is {pow2_label(ratio.idxmin())} at "
            f"{ratio.min():.3f}x{from_2_20}.", ""]


def write_report(sweep, sweeps, fallback, compact, scores, winners, space):
    path = sweep.folder / "TUNING.md"
    table, gbps, rows, header = sweep.table, sweep.gbps, sweep.rows, sweep.header
    sizes = list(table.columns)
    ideal_name = table.idxmax(axis=0)
    ideal = table.max(axis=0)
    memcpy = gbps.loc["memcpy_baseline"] if "memcpy_baseline" in gbps.index else None
    cub = gbps.loc["cub_scan"] if "cub_scan" in gbps.index else None
    status_counts = rows[~rows["variant"].isin(REFERENCES)]["status"].value_counts()
    n_configs = rows.loc[~rows["variant"].isin(REFERENCES), "variant"].nunique()
    configs = sweep.configs
    spilling = [] if configs is None else list(configs.index[configs["local_bytes"] > 0])
    text = [
        f"# Tuning single_pass_scan_tuned on the {sweep.gpu}",
        "",
        f"Generated by `tune/tune_select.py` from `{shown(sweep.path)}` (`make tune` on this GPU; the",
        "sweep is `tune/tune.sh`; `make tune-select` redoes the selection over every GPU's sweep).",
        "Do not edit: re-run the selection.",
        "",
        f"- GPU: {sweep.gpu} (compute capability {header['compute_capability']}, {header['sm_count']} SMs,"
        f" {header['peak_memory_gbps']} GB/s peak); commit {header.get('git_commit', '?')}; {header.get('date', '?')};"
        f" int32 inclusive sum, {header.get('l2', 'cold')} L2, median of {int(rows['reps'].max())} reps;"
        " CUB and memcpy in the same process.",
        f"- {n_configs} configurations x {len(sizes)} sizes: "
        + ", ".join(f"{count} {status}" for status, count in status_counts.items()) + ".",
        f"- Spill-free and measured at every N (the candidates for shipping): {len(table)}"
        + (f"; spilling (local memory > 0, never shipped): {len(spilling)}" if configs is not None
           else "; no tuning_configs.txt beside the sweep, so spills were not checked") + ".",
        "",
        "## Ideal configuration set (fastest at each N) and the shipped table",
        "",
    ]
    body = []
    for n in sizes:
        shipped = sweep.per_n[n]
        row = [pow2_label(n), ideal_name[n], f"{ideal[n]:.0f}"]
        row += [f"{cub[n]:.0f}" if cub is not None else "-", f"{ideal[n] / cub[n]:.2f}" if cub is not None else "-"]
        row += [f"{100 * ideal[n] / memcpy[n]:.1f}%" if memcpy is not None else "-"]
        row += [shipped, f"{table.loc[shipped, n]:.0f}", f"{table.loc[shipped, n] / ideal[n]:.3f}"]
        body.append(row)
    text.append(markdown_table(["N", "fastest configuration", "GB/s", "CUB GB/s", "fastest / CUB",
                                "% of memcpy", "shipped configuration", "GB/s", "of fastest"], body))
    text += ["", f"The shipped table uses {len(set(sweep.per_n.values()))} configurations "
             f"(each N gets one within {100 * TOLERANCE:.0f}% of the fastest measured there).", ""]
    text += fallback_section(sweep, sweeps, fallback)
    text += compact_section(sweep, compact)
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
        "the largest sizes decide them; the worst-case ratio to the ideal is scale-free, which is why",
        "the fallback is chosen by it.",
        "",
        "## What each parameter can do at its best (GB/s of its fastest configuration)",
        "",
    ]
    effect_sizes = [n for n in (2**12, 2**16, 2**20, 2**24, 2**28, 2**30) if n in sizes]
    text.append(markdown_table(["parameter", "value"] + [pow2_label(n) for n in effect_sizes],
                               parameter_effects(table, effect_sizes, space)))
    text.append("")
    path.write_text("\n".join(text))


def shown(path):
    """The path as a report should show it: relative to where the script runs, when inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def chart_title(header, what):
    return (f"{what}\n{header.get('gpu', '?')}, int32 inclusive sum, {header.get('l2', 'cold')} L2, "
            f"{header.get('date', '')[:10]}, commit {header.get('git_commit', '?')}")


def plot_ideal_vs_single(sweep, winners, fallback):
    table, gbps, sizes = sweep.table, sweep.gbps, list(sweep.table.columns)
    fig, ax = plt.subplots(figsize=(10, 6))
    ax.plot(sizes, table.max(axis=0)[sizes], "k-", lw=2.5, label="ideal set (fastest at each N)")
    ax.plot(sizes, [table.loc[sweep.per_n[n], n] for n in sizes], "o", color="tab:green", ms=6,
            label="shipped per-N table")
    roles = {}
    for metric, name in winners.items():
        roles.setdefault(name, []).append(f"best by {metric}")
    roles.setdefault(fallback.name, []).append("fallback (all GPUs)")
    styles = ["--", "-.", ":", (0, (5, 1))]
    for (name, what), style in zip(roles.items(), styles * 3):
        ax.plot(sizes, table.loc[name, sizes], linestyle=style, lw=1.5, label=f"{', '.join(what)}: {name}")
    for ref, color in (("memcpy_baseline", "tab:gray"), ("cub_scan", "tab:red")):
        if ref in gbps.index:
            ax.plot(sizes, gbps.loc[ref, sizes], color=color, lw=1.5, marker=".", label=ref)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("N (elements)")
    ax.set_ylabel("GB/s (2 x 4 bytes x N / median time)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(chart_title(sweep.header, "Tuned single-pass scan: ideal set vs best single configurations"),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(sweep.folder / "tuning_ideal_vs_single.png", dpi=110)
    plt.close(fig)


def plot_density(sweep):
    gbps = sweep.gbps
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
    fig.suptitle(chart_title(sweep.header, "Throughput density of the configuration space"), fontsize=10)
    fig.tight_layout()
    fig.savefig(sweep.folder / "tuning_density.png", dpi=110)
    plt.close(fig)


def tuning_files(paths):
    """--tuning's arguments as tuning.txt files (a folder stands for the tuning.txt in it)."""
    return [Path(p) / "tuning.txt" if Path(p).is_dir() else Path(p) for p in paths]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench-dir", default="bench", help="every <bench-dir>/<gpu>/tuning.txt (the default)")
    parser.add_argument("--tuning", nargs="+", help="these sweeps instead (tuning.txt files or their folders)")
    parser.add_argument("--space", default="build/tune/space.txt",
                        help="the listing of the configuration space (make build/tune/space.txt)")
    parser.add_argument("--table", default="include/scan_zoo/detail/tuned_table.cuh")
    args = parser.parse_args(argv)

    paths = tuning_files(args.tuning) if args.tuning else per_gpu_files(args.bench_dir, "tuning.txt")
    if not paths:
        print(f"tune_select: no {args.bench_dir}/*/tuning.txt (run make tune on a GPU)", file=sys.stderr)
        return 1
    space = load_space(args.space)
    sweeps = sorted((load_sweep(p, space) for p in paths), key=lambda s: s.slug)
    for a, b in zip(sweeps, sweeps[1:]):  # one sweep per slug: the slug names the GPU's folder and row array
        if a.slug == b.slug:
            print(f"tune_select: {a.path} ({a.gpu}) and {b.path} ({b.gpu}) are both GPU {a.slug}: keep one",
                  file=sys.stderr)
            return 1
    for s in sweeps:
        if s.table.empty:
            print(f"tune_select: no configuration of {s.path} passed at every size spill-free", file=sys.stderr)
            return 1
        if s.folder.name != s.slug:
            print(f"tune_select: warning: {s.path} was measured on the {s.gpu}, whose folder is bench/{s.slug}/",
                  file=sys.stderr)
        s.chosen, s.per_n = compress(s.table)

    fallback = choose_fallback(sweeps)
    if not fallback.never_slower_than_cub:
        print(f"tune_select: WARNING: no configuration that is a candidate on every GPU is never slower than CUB; "
              f"the fallback, {fallback.name}, is the best worst-case ratio regardless", file=sys.stderr)
    configs = shipped_configs(sweeps, fallback)
    source = ", ".join(shown(p) for p in paths) if args.tuning else f"{args.bench_dir}/*/tuning.txt"
    compact = compact_cover(sweeps, fallback)
    write_table(args.table, source, sweeps, configs, fallback, compact, space)
    for s in sweeps:
        scores = metrics(s.table)
        winners = metric_winners(scores)
        write_report(s, sweeps, fallback, compact, scores, winners, space)
        plot_ideal_vs_single(s, winners, fallback)
        plot_density(s)
    print(f"tune_select: {len(configs)} configurations for {len(sweeps)} GPUs "
          f"({', '.join(s.slug for s in sweeps)}) in {args.table} ({len(compact[0])} in the compact table); "
          f"fallback {fallback.name}; "
          f"reports {', '.join(shown(s.folder / 'TUNING.md') for s in sweeps)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
