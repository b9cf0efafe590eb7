"""Summarizes `ncu --csv` output (stdin) as one line per kernel launch.

Per launch: duration, DRAM throughput, shared-memory bank conflicts, achieved occupancy and
barrier stalls. Used by scripts/profile_kernels.sh.
"""
import collections
import csv
import sys

TIME = "gpu__time_duration.sum"
DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
CONFLICTS = ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
BARRIER = "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"
TO_MICROSECONDS = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6}


def main(argv):  # it takes no arguments: the CSV comes on stdin
    rows = csv.DictReader(line for line in sys.stdin if line.startswith('"'))
    kernels = collections.OrderedDict()
    for r in rows:
        name = r["Kernel Name"].split("(")[0].split("<")[0].split(" ")[-1]
        value = float(r["Metric Value"].replace(",", ""))
        if r["Metric Name"] == TIME:
            value *= TO_MICROSECONDS[r["Metric Unit"]]
        kernels.setdefault((r["ID"], name), {})[r["Metric Name"]] = value
    for (_, name), m in kernels.items():
        if name == "read_to_flush_l2":
            continue
        conflicts = sum(m.get(c, 0.0) for c in CONFLICTS)
        print(f"  {name[:44]:44s} {m[TIME]:9.1f} us  dram {m[DRAM]:5.1f}%  bank-conflicts {conflicts:11.0f}"
              f"  occupancy {m[OCCUPANCY]:5.1f}%  barrier-stall {m[BARRIER]:6.2f}")



if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts ncu-summary")
