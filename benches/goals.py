#!/usr/bin/env python3
"""The hot paths' goals, read off one `make bench` output: a line per goal with its
figure, its verdict and, given the previous run's output, the figure then.

    benches/goals.py latest.txt [previous.txt]

Goals against OpenStack Tacker are ratios to Tacker 16.0.0's figures measured in the same run
by benches/tacker.sh where it ran, else to these, measured with the
same client on a machine of this kind (issue 35's table: server and one conductor on
MariaDB/RabbitMQ, noauth); a goal whose line is not in the output (a benchmark left out
with BENCH_ONLY) is printed as not measured. Exits 0: the verdicts are for reading.
"""
import re
import sys

# (name, pattern with one group per figure, figure index, goal: (">=" or "<=", limit),
#  Tacker's figure for ratio goals or None, unit)
GOALS = [
    ("GET one package", r"^GET vnf_packages/\{id\}\s+([\d.]+) req/s", 0, (">=", 100), 125.0, "req/s"),
    ("GET one package, p99", r"^GET vnf_packages/\{id\}.*p99 ([\d.]+) ms", 0, ("<=", 10), None, "ms"),
    ("GET list of 100 packages", r"^GET vnf_packages \(100\)\s+([\d.]+) req/s", 0, (">=", 150), 25.1, "req/s"),
    ("GET /vnflcm/v2/vnf_instances", r"^GET vnf_instances \(none\)\s+([\d.]+) req/s", 0, (">=", 60), 290.0, "req/s"),
    ("create, one client, p50", r"^POST vnf_packages \(1 client\).*p50 ([\d.]+) ms", 0, ("<=", 0.5), None, "ms"),
    ("small CSAR PUT -> ONBOARDED, p50, 3 conductors", r"^one small package at a time.*p50 ([\d.]+) ms", 0, ("<=", 25), None, "ms"),
    ("200 MB onboarding / raw copy", r"^\s*200 MiB package: median ratio of \d+ runs ([\d.]+)", 0, ("<=", 1.1), None, "x"),
    ("server peak RSS, 200 MB uploads", r"^\s*200 MiB package:", "next-server", ("<=", 48), None, "MiB"),
    ("import from Tacker, 1,000 packages + 1,000 instances", r"^import of \d+ packages and \d+ instances: ([\d.]+) s", 0, ("<=", 60), None, "s"),
    ("idle RSS, largest process", r"^idle RSS \(MiB.*?: server ([\d.]+), conductors ([\d.]+) ([\d.]+) ([\d.]+)", "max", ("<=", 24), None, "MiB"),
]


# Tacker's figure for a goal, where `benches/tacker.sh` measured it in the same run.
MEASURED_TACKER = {
    "GET one package": r"^Tacker 16\.0\.0 GET vnf_packages/\{id\}\s+([\d.]+) req/s",
    "GET list of 100 packages": r"^Tacker 16\.0\.0 GET vnf_packages \(\d+\)\s+([\d.]+) req/s",
    "GET /vnflcm/v2/vnf_instances": r"^Tacker 16\.0\.0 GET vnf_instances \(\d+\)\s+([\d.]+) req/s",
}


def tacker_figures(path):
    """Tacker's figures measured in the run at `path` (where a line is there and not 0)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    out = {}
    for name, pattern in MEASURED_TACKER.items():
        m = re.search(pattern, text, re.M)
        if m and float(m.group(1)) > 0:
            out[name] = float(m.group(1))
    return out


def figures(path):
    """Each goal's figure in the output at `path` (None where its line is missing)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    out = {}
    for name, pattern, pick, _, _, _ in GOALS:
        rx = re.compile(pattern)
        for i, line in enumerate(lines):
            m = rx.search(line)
            if not m:
                continue
            if pick == "max":
                out[name] = max(float(g) for g in m.groups())
            elif pick == "next-server":
                # The peak RSS line follows its size's ratio line.
                peak = re.search(r"server ([\d.]+)", lines[i + 1]) if i + 1 < len(lines) else None
                out[name] = float(peak.group(1)) if peak else None
            else:
                out[name] = float(m.group(pick + 1))
            break
    return out


def figure(value):
    """A figure as printed: small ones (latencies, ratios) to the hundredth."""
    return f"{value:,.2f}" if value < 10 else f"{value:,.1f}"


def main(argv):
    if not argv or len(argv) > 2:
        sys.exit(__doc__)
    now = figures(argv[0])
    before = figures(argv[1]) if len(argv) == 2 else {}
    measured = tacker_figures(argv[0])
    print("== goals (ratios to Tacker 16.0.0: measured in this run where `tacker` ran, else issue 35's figures)")
    for name, _, _, (op, limit), tacker, unit in GOALS:
        if name in measured:
            tacker = measured[name]
        value = now.get(name)
        if value is None:
            print(f"{name:<48} not measured")
            continue
        shown = value / tacker if tacker else value
        met = shown >= limit if op == ">=" else shown <= limit
        what = f"{figure(value)} {unit}" + (f" = {shown:.1f}x Tacker" if tacker else "")
        if name in measured:
            what += f" ({figure(tacker)} here)"
        goal = f"goal {op} {limit}{'x Tacker' if tacker else ' ' + unit}"
        then = before.get(name)
        previous = f"  (previous run {figure(then)} {unit})" if then is not None else ""
        print(f"{name:<48} {what:<32} {goal:<20} {'met' if met else 'MISSED'}{previous}")


if __name__ == "__main__":
    main(sys.argv[1:])
