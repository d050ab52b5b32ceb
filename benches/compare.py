#!/usr/bin/env python3
"""Two runs of the benchmarks side by side: how far apart their figures are.

    make bench > a.txt; make bench > b.txt; benches/compare.py a.txt b.txt [--limit 20] [--tails]

Lines are matched by their text with the numbers taken out (and ranges in parentheses,
which are the spread inside one run, left aside), the n-th such line of one run with the
n-th of the other; each figure of a line is compared with the same figure of the other
run. Lines of single runs ("run 2: ...") are left out: their median is the figure; so
are the spans' breakdown (lines starting with "span") and, unless --tails, the tails of
distributions (a number after p90, p99 or max): on cores shared with the load generator
they are printed but not expected to repeat. Prints every line with its largest difference, in %,
and the lines past the limit; exits 1 if there are any. Figures under 1 ms of latency
are compared to the nearest 0.1 ms (a difference of 0.05 ms is not 20 %).
"""
import re
import sys

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
# One run of several (their median is the figure), the breakdown of spans (where the
# time of a figure goes), and cargo's output.
SKIPPED = re.compile(r"\brun \d+\b|^\s*span\b|^\s*(Compiling|Finished|Running|Fresh)\b")


# Tails of a distribution: printed, but on shared cores not expected to repeat.
TAILS = {"p90", "p99", "max"}


def key_and_figures(line, tails=False):
    line = re.sub(r"\([^)]*\)", "()", line)
    figures = []
    for m in NUMBER.finditer(line):
        label = re.search(r"([A-Za-z0-9]+)\W*$", line[: m.start()])
        if tails or not (label and label.group(1) in TAILS):
            figures.append(float(m.group()))
    key = re.sub(r"\s+", " ", NUMBER.sub("#", line)).strip()
    return key, figures


def lines_of(path, tails):
    """Lines with figures, keyed by their text without numbers and which time that text
    came (the scale benchmark prints the same line once per size)."""
    out, seen = {}, {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            if SKIPPED.search(raw):
                continue
            key, figures = key_and_figures(raw.rstrip("\n"), tails)
            if figures:
                seen[key] = seen.get(key, 0) + 1
                out[(key, seen[key])] = (raw.strip(), figures)
    return out


def difference(a, b):
    lo, hi = sorted((abs(a), abs(b)))
    if hi < 1.0 and hi - lo <= 0.05:
        return 0.0
    return 0.0 if hi == 0 else (hi - lo) / hi * 100


def main(argv):
    limit, tails = 20.0, False
    paths = []
    args = iter(argv)
    for a in args:
        if a == "--limit":
            limit = float(next(args))
        elif a == "--tails":
            tails = True
        else:
            paths.append(a)
    if len(paths) != 2:
        sys.exit(__doc__)
    first, second = lines_of(paths[0], tails), lines_of(paths[1], tails)
    past = []
    for key, (text, figures) in first.items():
        if key not in second:
            continue
        other = second[key][1]
        diffs = [difference(x, y) for x, y in zip(figures, other)]
        worst = max(diffs, default=0.0)
        print(f"{worst:6.1f} %  {text}")
        if worst > limit:
            past.append((worst, text, second[key][0]))
    print(f"== {len(past)} line(s) differ by more than {limit:.0f} %")
    for worst, a, b in past:
        print(f"{worst:6.1f} %\n  {a}\n  {b}")
    sys.exit(1 if past else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
