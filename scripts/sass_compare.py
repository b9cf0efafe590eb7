"""Compares the SASS of one binary built from two commits, kernel by kernel.

Two `cuobjdump -sass` listings: kernel count, instruction count, and per kernel whether its
opcodes are identical, the earlier ones with some removed, or otherwise different; then the
opcodes removed and added over all kernels, and the local-memory instructions (LDL, STL: register
spills, or arrays the compiler could not keep in registers) of each listing. Opcode sequences
alone do not show a spill that an added LDL/STL pair makes: the last line does.

Usage: python3 -m scripts sass-compare before.sass after.sass
Exit status: 0 compared; 2 a listing missing or holding no kernel.
(bench/NOTES.md, "The library's own include root", compared the tuned binary this way.)
"""
import argparse
import collections
import re
import sys

LOCAL_MEMORY = ("LDL", "STL")

def kernels(path):
    """{function name: [opcode, ...]} in listing order."""
    out, name = {}, None
    for line in open(path):
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1); out[name] = []; continue
        line = re.sub(r"/\*[0-9a-f]+\*/", "", line)  # the instruction's address
        m = re.match(r"\s*(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)\b", line)
        if name and m and not line.strip().startswith(("code for", "Fatbin", "...")):
            out[name].append(m.group(2))
    return out

def is_subsequence(small, big):
    """Whether `small` is `big` with some elements removed."""
    it = iter(big)
    return all(x in it for x in small)

def main(argv):
    """argv: the listings before and after."""
    parser = argparse.ArgumentParser(prog="python3 -m scripts sass-compare",
                                     description="Compares two cuobjdump -sass listings kernel by kernel.")
    parser.add_argument("before", help="cuobjdump -sass listing of the binary before the change")
    parser.add_argument("after", help="the same binary's listing after it")
    args = parser.parse_args(argv)
    listings = []
    for path in (args.before, args.after):
        try:
            listing = kernels(path)
        except OSError as error:
            print(f"sass-compare: cannot read {path}: {error.strerror}", file=sys.stderr)
            return 2
        if not listing:
            print(f"sass-compare: {path} holds no kernel (not a cuobjdump -sass listing?)", file=sys.stderr)
            return 2
        listings.append(listing)
    # Kernels that moved namespace or lost a parameter have other mangled names: pair them in
    # listing order (the same order of instantiation).
    b_list, a_list = listings
    print(f"kernels: before {len(b_list)}, after {len(a_list)}")
    before = {i: v for i, v in enumerate(b_list.values())}
    after = {i: v for i, v in enumerate(a_list.values())}
    removed, added = collections.Counter(), collections.Counter()
    identical = subseq = other = 0
    for name in sorted(set(before) & set(after)):
        b, a = before[name], after[name]
        if b == a: identical += 1
        elif is_subsequence(a, b): subseq += 1
        else: other += 1
        cb, ca = collections.Counter(b), collections.Counter(a)
        removed += cb - ca; added += ca - cb
    print(f"identical opcode sequences: {identical}; after = before minus some instructions: {subseq}; other: {other}")
    print(f"instructions: before {sum(map(len, before.values()))}, after {sum(map(len, after.values()))}")
    print("removed:", dict(removed.most_common(12)))
    print("added:", dict(added.most_common(12)))
    def local(listing):
        return sum(op.startswith(LOCAL_MEMORY) for ops in listing.values() for op in ops)
    print(f"local-memory instructions (LDL, STL): before {local(before)}, after {local(after)}")
    return 0


if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts sass-compare")
