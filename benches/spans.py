#!/usr/bin/env python3
"""Where the time goes: reads JSON logs written with `log.span_timings = true` and prints,
per span, how many closed and the median / p90 of their wall time (busy + idle) in ms.

    benches/spans.py LOG... [--only NAME-PREFIX...]

A `bus` span is named after its method (`bus UploadPackage`), a `request` span after
its HTTP method (`request PUT`), so the coordinator's whole turn and the members' answers
are lines of their own.
"""
import json
import re
import sys

# The onboarding's steps in the order they run; other spans follow.
ORDER = [
    "request PUT", "upload.begin", "upload.store", "upload.record", "upload.cast",
    "bus UploadPackage", "onboarding.read", "onboarding.cache",
    "onboarding.validate", "onboarding.store_model", "onboarding.gather",
    "onboarding.members", "onboarding.complete", "onboarding.ask",
    "bus DownloadCsar", "download.cache", "download.confirm", "cache.fill", "cache.extract",
]
UNITS = {"ns": 1e-6, "µs": 1e-3, "us": 1e-3, "ms": 1.0, "s": 1000.0}


def ms(text):
    m = re.fullmatch(r"([0-9.]+)(ns|µs|us|ms|s)", text)
    if not m:
        raise ValueError(f"not a duration: {text!r}")
    return float(m.group(1)) * UNITS[m.group(2)]


def name_of(line):
    span = line.get("span") or {}
    name = span.get("name", "?")
    if name == "bus":
        return f"bus {span.get('method', '?').rsplit('.', 1)[-1]}"
    if name == "request":
        return f"request {span.get('method', '?')}"
    return name


def quantile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main(argv):
    paths, only = [], []
    args = iter(argv)
    for a in args:
        if a == "--only":
            only.extend(next(args).split(","))
        else:
            paths.append(a)
    times = {}
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for raw in f:
                try:
                    line = json.loads(raw)
                except json.JSONDecodeError:
                    continue
                fields = line.get("fields") or {}
                if fields.get("message") != "close":
                    continue
                name = name_of(line)
                if only and not any(name.startswith(p) for p in only):
                    continue
                total = ms(fields["time.busy"]) + ms(fields["time.idle"])
                times.setdefault(name, []).append(total)
    # Every line starts with "span" (benches/compare.py leaves breakdowns aside).
    print(f"span {'':<28} {'count':>6} {'p50 ms':>8} {'p90 ms':>8}")
    rank = {n: i for i, n in enumerate(ORDER)}
    for name in sorted(times, key=lambda n: (rank.get(n, len(ORDER)), n)):
        t = times[name]
        print(f"span {name:<28} {len(t):>6} {quantile(t, 0.5):>8.2f} {quantile(t, 0.9):>8.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
