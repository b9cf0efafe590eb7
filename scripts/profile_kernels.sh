#!/usr/bin/env bash
# profile_kernels.sh -- per-kernel time and the few counters that explain a scan's speed.
#
# From Nsight Compute, for the given variants at one size (int32 inclusive sum).
#   scripts/profile_kernels.sh N variant [variant ...]
# Columns: kernel, duration (us), DRAM throughput (% of peak), shared-memory bank conflicts
# (loads + stores), achieved occupancy (% of max warps), barrier stall (cycles per issued
# instruction spent waiting at __syncthreads).
set -u
cd "$(dirname "$0")/.."
n=$1; shift
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
for variant in "$@"; do
  binary=$variant; [ -x "$binary" ] || binary=bin/$variant
  echo "== $variant n=$n"
  ncu --clock-control none --metrics "$metrics" --csv "$binary" "$n" --check-only 2>/dev/null |
    "${PYTHON:-python3}" -m scripts ncu-summary
done
