#!/usr/bin/env python3
"""Where the CPU went during a load run, read off `perf record -a` (every CPU sampled):

    benches/profile.py perf.data

Prints each process's share of all samples (our server, PostgreSQL, the load client,
idle), then the server's share by thread and by part of the work (kernel: sockets,
wake-ups; the database client library; JSON; HTTP; the runtime; allocation and copies;
the rest). Shares are of every sample of every CPU, so idle near 0 % means the machine's
cores were saturated and a faster server cannot be measured on it. Exits 0.
"""
import re
import subprocess
import sys
from collections import defaultdict

# (part, does a (dso, symbol) belong to it), first match wins.
PARTS = [
    ("kernel: sockets, scheduling, wake-ups", lambda dso, sym: dso.startswith("[kernel")),
    ("database client (libpq, TLS libraries)", lambda dso, sym: re.search(r"libpq|libssl|libcrypto|libgnutls|libkrb|libgss", dso)),
    ("allocation and copies (libc)", lambda dso, sym: dso.startswith("libc") or re.search(r"malloc|free|memcpy|memmove|realloc", sym)),
    ("database calls (diesel, the pool, rows)", lambda dso, sym: re.search(r"diesel|pq_sys|r2d2|tacker_db", sym)),
    ("JSON (serde_json, rendering)", lambda dso, sym: re.search(r"serde_json|serde::|Serialize|Deserialize|render", sym)),
    ("HTTP (actix, h1, headers, routing)", lambda dso, sym: re.search(r"actix|http::|h1::|httparse|HeaderMap|route|regex", sym)),
    ("runtime (tokio, futures, channels)", lambda dso, sym: re.search(r"tokio|futures|mio::|crossbeam|parking_lot|std::sync|std::thread", sym)),
    ("logging and metrics (tracing, prometheus)", lambda dso, sym: re.search(r"tracing|prometheus|metrics", sym)),
]


def report(data, *args):
    """(share %, fields...) rows of `perf report` with `args` (tab separated)."""
    out = subprocess.run(
        ["perf", "report", "-i", data, "--stdio", "--no-children", "--percentage", "absolute",
         "-t", "\t", *args],
        capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        try:
            rows.append((float(fields[0].rstrip("%")), *fields[1:]))
        except ValueError:
            continue
    return rows


def shares(rows):
    """A share per name, largest first, as `name 12.3 %` joined."""
    return ", ".join(f"{k} {v:.1f} %" for k, v in sorted(rows.items(), key=lambda kv: -kv[1]) if v >= 0.1)


def ours(comm):
    """Whether a thread of this name is the server's (its threads carry these names)."""
    return comm.startswith(("tacker", "actix", "tokio-runtime", "secret-check"))


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    data = argv[0]
    machine, threads = defaultdict(float), defaultdict(float)
    for share, comm in report(data, "--sort", "comm"):
        if ours(comm):
            threads[comm] += share
            comm = "our server"
        name = {"swapper": "idle", "postgres": "PostgreSQL", "wrk": "wrk (the client)",
                "our server": "our server"}.get(comm, "other")
        machine[name] += share
    print(f"CPU of the machine:   {shares(machine)}")
    print(f"server by thread:     {shares(threads)}")
    if not threads:
        return
    parts = defaultdict(float)
    for share, dso, sym in report(data, "--comms", ",".join(threads), "--sort", "dso,sym"):
        sym = sym[4:] if sym[:1] == "[" else sym
        part = next((name for name, test in PARTS if test(dso, sym)), "the rest (our code, unresolved)")
        parts[part] += share
    print(f"server by part:       {shares(parts)}")


if __name__ == "__main__":
    main(sys.argv[1:])
