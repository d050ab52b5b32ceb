#!/usr/bin/env bash
# Many small packages: `tacker server` with three `tacker conductor` processes on
# PostgreSQL + RabbitMQ and local storage.
#  Idle RSS of every process once all are READY.
#  0. One small CSAR at a time, BENCH_MANY_SINGLE times (default 50): PUT -> ONBOARDED
#     latency p50/p90/max (the client polls every 2 ms), and where that time goes: every
#     process logs its spans' times (`log.span_timings`, JSON), `benches/spans.py` prints
#     the median of each step (BENCH_SPANS=0 turns it off).
#  1. 100 small CSARs (BENCH_MANY_CONCURRENT) uploaded at once, each by its own client
#     (create, PUT, poll): wall time until every one is ONBOARDED, and that none is lost.
#  2. More uploads (20 at a time) up to 1,000 ONBOARDED packages (BENCH_MANY_TOTAL).
#  3. A fourth conductor joins with an empty cache: time from its start to /readyz 200
#     (it has every ONBOARDED package in its cache then), and its peak RSS.
#  4. The same conductor restarted under the same id with its cache kept: time to READY.
#  5. Restarted with only 100 packages left in its cache (it fetches the rest).
# Phases 1, 3, 4 and 5 run BENCH_MANY_RUNS times (default 3) and print every run and the
# median, so the figures' noise shows.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
BIN=${TACKER_BIN:?}
CONCURRENT=${BENCH_MANY_CONCURRENT:-100}
TOTAL=${BENCH_MANY_TOTAL:-1000}
RUNS=${BENCH_MANY_RUNS:-3}
PG=${TACKER_TEST_PG:-postgres://postgres@127.0.0.1:5432}
AMQP=${TACKER_TEST_AMQP:-amqp://guest:guest@127.0.0.1:5672/%2f}
work=$(mktemp -d)
db=tacker_bench_many_$$
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
psql "$PG/postgres" -qc "CREATE DATABASE $db" >/dev/null
port=$(free_port)
export TACKER__SECRETS__KEYS="$("$BIN" secrets generate-key bench)" TACKER__DATABASE__URL=$PG/$db \
  TACKER__BUS__URL=$AMQP TACKER__BUS__PREFIX=bench-many-$$ TACKER__STORAGE__URL=file://$work/store \
  TACKER__LOG__FILTER=${BENCH_LOG:-warn} TACKER__SERVER__BIND=127.0.0.1:$port \
  TACKER__OUTBOUND__ALLOWED_NETWORKS=127.0.0.1/32
if [ "${BENCH_SPANS:-1}" = 1 ]; then
  # The onboarding path's spans: the PUT and its steps, bus messages, the coordinator's
  # and the members' steps (`tacker_server::request_id` is the HTTP request span).
  export TACKER__LOG__FORMAT=json TACKER__LOG__SPAN_TIMINGS=true \
    TACKER__LOG__FILTER=${BENCH_LOG:-warn,tacker_server::request_id=info,tacker_server::routes::package_content=info,tacker_rpc::serve=info,tacker_conductor::onboarding=info,tacker_conductor::handlers=info,tacker_conductor::cache=info}
fi
"$BIN" db migrate >/dev/null
"$BIN" server >"$work/server.log" 2>&1 &
pids+=("$!")
conductor() { # id health-port: starts `tacker conductor`, prints its pid
  TACKER__CONDUCTOR__ID=$1 TACKER__CONDUCTOR__CACHE_DIR=$work/cache/$1 \
    TACKER__CONDUCTOR__HEALTH_BIND=127.0.0.1:$2 "$BIN" conductor >>"$work/$1.log" 2>&1 &
  echo $!
}
for n in 1 2 3; do pids+=("$(conductor bench-c$n "$(free_port)")"); done
for _ in $(seq 1 300); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
sleep 2
base=http://127.0.0.1:$port/vnfpkgm/v1/vnf_packages

# upload FROM COUNT PARALLEL [latency]: packages FROM..FROM+COUNT-1, PARALLEL clients at a
# time; prints the wall time in seconds (with "latency": p50/p90/max of PUT -> ONBOARDED),
# fails unless all are ONBOARDED.
upload() {
  python3 - "$base" "$1" "$2" "$3" "${4:-}" <<'PY'
import concurrent.futures, io, json, sys, time, urllib.error, urllib.request, zipfile
base, start, count, parallel = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
latency = sys.argv[5] == "latency"
took, retried = [], []

def csar(n):
    vnfd = f"""tosca_definitions_version: tosca_simple_yaml_1_2
node_types:
  bench.VNF:
    derived_from: tosca.nodes.nfv.VNF
topology_template:
  substitution_mappings:
    node_type: bench.VNF
    properties: {{flavour_id: simple}}
  node_templates:
    VNF:
      type: bench.VNF
      properties: {{descriptor_id: bench-many-{n}, provider: Bench, product_name: Bench, software_version: '1', descriptor_version: '1', vnfm_info: [Tacker]}}
"""
    meta = ("TOSCA-Meta-File-Version: 1.0\nCSAR-Version: 1.1\nCreated-By: bench\n"
            "Entry-Definitions: Definitions/top.yaml\n")
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr("TOSCA-Metadata/TOSCA.meta", meta)
        z.writestr("Definitions/top.yaml", vnfd)
    return b.getvalue()

def call(method, url, body=None, ctype=None):
    req = urllib.request.Request(url, data=body, method=method)
    if ctype:
        req.add_header("Content-Type", ctype)
    with urllib.request.urlopen(req, timeout=120) as r:
        data = r.read()
        return json.loads(data) if data else None

def one(n):
    pid = call("POST", base, b"{}", "application/json")["id"]
    body = csar(n)
    t0 = time.time()
    while True:
        try:
            call("PUT", f"{base}/{pid}/package_content", body, "application/zip")
            break
        except urllib.error.HTTPError as e:
            # Over server.max_concurrent_uploads: 503 with Retry-After, as a client would.
            if e.code != 503:
                raise
            retried.append(1)
            time.sleep(float(e.headers.get("Retry-After", "1")))
    deadline = time.time() + 300
    while time.time() < deadline:
        s = call("GET", f"{base}/{pid}")["onboardingState"]
        if s in ("ONBOARDED", "CREATED"):
            took.append(time.time() - t0)
            return s
        time.sleep(0.002 if latency else 0.02)
    return "stuck"

t0 = time.time()
with concurrent.futures.ThreadPoolExecutor(parallel) as ex:
    states = list(ex.map(one, range(start, start + count)))
wall = time.time() - t0
bad = [s for s in states if s != "ONBOARDED"]
if bad:
    sys.exit(f"{len(bad)} of {count} not ONBOARDED: {sorted(set(bad))}")
if latency:
    took.sort()
    ms = lambda q: took[min(len(took) - 1, int(q * len(took)))] * 1000
    print(f"p50 {ms(0.5):.1f} ms, p90 {ms(0.9):.1f} ms, max {took[-1] * 1000:.1f} ms")
else:
    print(f"{wall:.2f} {len(retried)}")
PY
}

# ready_after PORT PID LOG: seconds until the conductor on PORT answers /readyz 200 (its
# log's end on stderr if it exits first).
ready_after() {
  local t0 t1
  t0=$(date +%s.%N)
  for _ in $(seq 1 1200); do
    curl -fsS "http://127.0.0.1:$1/readyz" >/dev/null 2>&1 && break
    kill -0 "$2" 2>/dev/null || { echo "conductor exited:" >&2; tail -20 "$3" >&2; exit 1; }
    sleep 0.05
  done
  t1=$(date +%s.%N)
  printf '%.2f' "$(echo "$t1 - $t0" | bc)"
}
peak() { awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }

echo "== onboard_many: 3 conductors, PostgreSQL + RabbitMQ, local storage"
rss() { awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }
echo "idle RSS (MiB, every process READY, nothing onboarded yet): server $(rss "${pids[0]}"), conductors $(rss "${pids[1]}") $(rss "${pids[2]}") $(rss "${pids[3]}") (goal < 24)"
SINGLE=${BENCH_MANY_SINGLE:-50}
echo "one small package at a time ($SINGLE): PUT -> ONBOARDED $(upload 100000 "$SINGLE" 1 latency)"
if [ "${BENCH_SPANS:-1}" = 1 ]; then
  echo "where it goes (spans of those $SINGLE, wall time = busy + idle; the coordinator's turn is 'bus UploadPackage'):"
  python3 "$(dirname "$0")/spans.py" "$work/server.log" "$work"/bench-c*.log \
    --only "request PUT,upload.,bus UploadPackage,bus DownloadCsar,onboarding.,download.,cache."
fi
walls=()
for r in $(seq 1 "$RUNS"); do
  read -r wall retried < <(upload $(((r - 1) * CONCURRENT)) "$CONCURRENT" "$CONCURRENT")
  walls+=("$wall")
  echo "run $r: $CONCURRENT small packages uploaded at once: all ONBOARDED in ${wall} s ($(echo "scale=1; $CONCURRENT / $wall" | bc) packages/s), none lost; $retried PUTs answered 503 (server.max_concurrent_uploads) and retried after Retry-After"
done
echo "median of $RUNS: $CONCURRENT at once in $(printf '%s\n' "${walls[@]}" | median) s"
rest=$((TOTAL - CONCURRENT * RUNS - SINGLE))
if [ "$rest" -gt 0 ]; then
  read -r wall _ < <(upload $((CONCURRENT * RUNS)) "$rest" 20)
  echo "$rest more, 20 at a time: ${wall} s ($(echo "scale=1; $rest / $wall" | bc) packages/s)"
fi
# timed_start PORT: starts conductor bench-c4 on PORT, the disk synced first (so it does
# not pay for the writeback of what earlier phases wrote); prints its seconds to READY
# and its peak RSS (MiB), then stops it and waits until it is gone (the next start takes
# the same health port).
timed_start() {
  local c4 secs
  sync
  c4=$(conductor bench-c4 "$1")
  secs=$(ready_after "$1" "$c4" "$work/bench-c4.log") || { kill "$c4" 2>/dev/null; return 1; }
  echo "$secs $(peak "$c4")"
  kill "$c4"
  while kill -0 "$c4" 2>/dev/null; do sleep 0.02; done
}
joins=() restarts=() partials=()
for r in $(seq 1 "$RUNS"); do
  hp=$(free_port)
  rm -rf "$work/cache/bench-c4"
  out=$(timed_start "$hp"); read -r join rss <<<"$out"
  out=$(timed_start "$hp"); read -r restart _ <<<"$out"
  # Then only 100 packages are left in its cache: the restart fetches the others.
  find "$work/cache/bench-c4" -mindepth 1 -maxdepth 1 -type d ! -name '.*' | sort | tail -n +101 | xargs -r rm -rf
  out=$(timed_start "$hp"); read -r partial _ <<<"$out"
  joins+=("$join") restarts+=("$restart") partials+=("$partial")
  echo "run $r: a conductor joining with $TOTAL ONBOARDED packages and an empty cache: READY after $join s (peak RSS $rss MiB); restarted with its cache: $restart s; with 100 of them left in its cache: $partial s"
done
echo "median of $RUNS: joining with an empty cache $(printf '%s\n' "${joins[@]}" | median) s (goal < 10)"
echo "median of $RUNS: restarted with its cache $(printf '%s\n' "${restarts[@]}" | median) s (goal < 2)"
echo "median of $RUNS: restarted with 100 cached $(printf '%s\n' "${partials[@]}" | median) s"
