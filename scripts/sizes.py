"""N in the binaries' syntax (src/harness/cli.hpp, parse_size), for the Python scripts.

Accepted: 1048576, 64K, 16M, 1G (K/M/G: 2^10/2^20/2^30), 2^20, each optionally +OFFSET or
-OFFSET (2^24+1, 2^22-1), comma lists of them; the same range (up to 2^62) and the same
refusals, so a list that a binary takes, every script takes, and the other way round
(tests/test_frameworks.py holds the two parsers to the same answers). Errors are ValueErrors with the binaries' wording.

    from scripts.sizes import parse_size, parse_sizes
    parse_sizes("2^20,1M,2^24+1")  ->  [1048576, 1048576, 16777217]

    python3 -m scripts sizes 2^20,1M,2^24+1  ->  1048576,1048576,16777217
    (exit 2, with the binaries' wording, for a list that a binary refuses)
"""
import sys

MAX_SIZE = 1 << 62


def _count(text, whole):
    if not text.isdigit() or not text.isascii():
        raise ValueError(f"bad N '{whole}': expected a non-negative integer such as 1048576, 1M or 2^20")
    value = int(text)
    if value > MAX_SIZE:
        raise ValueError(f"N '{whole}' is too large")
    return value


def _size_term(term, whole):
    if "^" in term:
        base, exponent = term.split("^", 1)
        base, exponent = _count(base, whole), _count(exponent, whole)
        if base != 2 or exponent > 62:
            raise ValueError(f"bad N '{whole}': powers must be 2^k with k <= 62")
        return 1 << exponent
    shift = {"k": 10, "m": 20, "g": 30}.get(term[-1:].lower(), 0)
    value = _count(term[:-1] if shift else term, whole)
    if value > MAX_SIZE >> shift:
        raise ValueError(f"N '{whole}' is too large")
    return value << shift


def parse_size(text):
    """One N: 123, 64K, 16M, 1G, 2^20, each optionally followed by +OFFSET or -OFFSET."""
    if text.startswith("-"):
        raise ValueError(f"bad N '{text}': N must not be negative")
    sign = next((i for i, c in enumerate(text) if c in "+-" and i > 0), None)
    value = _size_term(text if sign is None else text[:sign], text)
    if sign is None:
        return value
    offset = _count(text[sign + 1:], text)
    if text[sign] == "+":
        if value > MAX_SIZE - offset:
            raise ValueError(f"N '{text}' is too large")
        return value + offset
    if offset > value:
        raise ValueError(f"bad N '{text}': N must not be negative")
    return value - offset


def split_list(text, what):
    """The items of a comma list, refusing an empty one (as the binaries do)."""
    items = text.split(",")
    if any(not item for item in items):
        raise ValueError(f"empty item in the {what} list '{text}'")
    return items


def parse_sizes(text):
    return [parse_size(item) for item in split_list(text, "N")]


def main(argv):
    if len(argv) != 1:
        print("usage: python3 -m scripts sizes LIST   (e.g. 2^20,1M,2^24+1)", file=sys.stderr)
        return 2
    try:
        print(",".join(str(n) for n in parse_sizes(argv[0])))
    except ValueError as error:
        print(f"sizes: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # run by its path: the tools run through the package's one entry
    raise SystemExit("run it from the repository root as: python3 -m scripts sizes")
