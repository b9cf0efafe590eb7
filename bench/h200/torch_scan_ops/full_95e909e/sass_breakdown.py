"""The instruction mix of the row kernels in ncu_sass.csv.xz (Nsight Compute's source page, SASS):
for the first cummax kernel and the first cumsum kernel, the executed warp instructions by opcode,
the warp-stall samples by opcode, the instructions with the most stall samples, and the executed
instructions grouped by how many times each instruction ran (straight-line code of every warp
runs once a warp: grid x 8; loops more often)."""
import collections, csv, lzma, sys
from pathlib import Path

rows = list(csv.reader(lzma.open(Path(__file__).with_name("ncu_sass.csv.xz"), "rt")))
sections, i = [], 0
while i < len(rows):
    if rows[i] and rows[i][0] == "Kernel Name":
        j = i + 2
        while j < len(rows) and not (rows[j] and rows[j][0] == "Kernel Name"):
            j += 1
        sections.append((rows[i][1], rows[i + 1], rows[i + 2:j]))
        i = j
    else:
        i += 1
for name, header, body in (sections[0], sections[2]):  # each kernel is listed twice (two passes)
    col = {h: k for k, h in enumerate(header)}
    executed = [int(r[col["Instructions Executed"]] or 0) for r in body]
    stalls = [int(r[col["Warp Stall Sampling (All Samples)"]] or 0) for r in body]
    source = [r[col["Source"]] for r in body]
    total, total_stalls = sum(executed), sum(stalls)
    print(name.split("ScanArgs<")[1].split(", scan_zoo::detail::RowStarts")[0])
    print(f"  {total:,} warp instructions executed, {total_stalls:,} stall samples, {len(body):,} SASS lines")
    by_op, stall_by_op, by_count = collections.Counter(), collections.Counter(), collections.Counter()
    for text, n, s in zip(source, executed, stalls):
        words = text.split()
        op = (words[1] if words and words[0].startswith("@") else words[0] if words else "").split(".")[0]
        by_op[op] += n
        stall_by_op[op] += s
        by_count[n] += n
    print("  executed by opcode, %:", ", ".join(f"{o} {100 * c / total:.1f}" for o, c in by_op.most_common(12)))
    print("  stall samples by opcode, %:", ", ".join(f"{o} {100 * c / total_stalls:.1f}" for o, c in stall_by_op.most_common(8)))
    print("  most stalled:")
    for k in sorted(range(len(body)), key=lambda k: -stalls[k])[:6]:
        print(f"    {source[k][:60]:60s} {stalls[k]:6d} samples ({100 * stalls[k] / total_stalls:.1f}%), ran {executed[k]:,}")
    print("  executed, grouped by how often an instruction ran:",
          ", ".join(f"{n:,}x: {100 * c / total:.1f}%" for n, c in by_count.most_common(6)))
