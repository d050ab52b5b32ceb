#!/usr/bin/env python3
"""Two runs of the benchmarks side by side: how far apart their figures are.

    make bench > a.txt; make bench > b.txt; benches/compare.py a.txt b.txt [--limit 20]

Lines are matched by their text with the numbers taken out (and ranges in parentheses,
which are the spread inside one run, left aside); each figure of a line is compared with
the same figure of the other run. Prints every line with its largest difference, in %,
and the lines past the limit; exits 1 if there are any. Figures under 1 ms of latency
are compared to the nearest 0.1 ms (a difference of 0.05 ms is not 20 %).
"""
import re
import sys

NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*")


def key_and_figures(line):
    line = re.sub(r"\([^)]*\)", "()", line)
    figures = [float(n.replace(",", "")) for n in NUMBER.findall(line)]
    key = NUMBER.sub("#", line).strip()
    return key, figures


def lines_of(path):
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            key, figures = key_and_figures(raw.rstrip("\n"))
            if figures and key not in out:
                out[key] = (raw.strip(), figures)
    return out


def difference(a, b):
    lo, hi = sorted((abs(a), abs(b)))
    if hi < 1.0 and hi - lo <= 0.05:
        return 0.0
    return 0.0 if hi == 0 else (hi - lo) / hi * 100


def main(argv):
    limit = 20.0
    paths = []
    args = iter(argv)
    for a in args:
        if a == "--limit":
            limit = float(next(args))
        else:
            paths.append(a)
    if len(paths) != 2:
        sys.exit(__doc__)
    first, second = lines_of(paths[0]), lines_of(paths[1])
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
