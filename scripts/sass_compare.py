"""Compares the SASS of one binary built from two commits, kernel by kernel.

Two `cuobjdump -sass` listings: kernel count, instruction count, and per kernel whether its
opcodes are identical, the earlier ones with some removed, or otherwise different; then the opcodes removed and added over all kernels.

Usage: python3 -m scripts sass-compare before.sass after.sass
(bench/NOTES.md, "The library's own include root", compared the tuned binary this way.)
"""
import collections
import re

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
    # The kernels moved namespace (zoo:: -> scan_zoo::detail::) and the tuned one lost a parameter,
    # so their mangled names differ: pair them in listing order (the same order of instantiation).
    b_list, a_list = kernels(argv[0]), kernels(argv[1])
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


if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts sass-compare")
