#!/usr/bin/env bash
# API benchmark: wrk, 16 connections, against `tacker server` on PostgreSQL + RabbitMQ.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
BIN=${TACKER_BIN:?}
DUR=${BENCH_DURATION:-10}
PG=${TACKER_TEST_PG:-postgres://postgres@127.0.0.1:5432}
AMQP=${TACKER_TEST_AMQP:-amqp://guest:guest@127.0.0.1:5672/%2f}
db=tacker_bench_$$
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
psql "$PG/postgres" -qc "CREATE DATABASE $db" >/dev/null
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export TACKER__SECRETS__KEYS="$("$BIN" secrets generate-key bench)" TACKER__DATABASE__URL=$PG/$db TACKER__BUS__URL=$AMQP TACKER__BUS__PREFIX=bench-$$ \
  TACKER__SERVER__BIND=127.0.0.1:$port TACKER__OUTBOUND__ALLOWED_NETWORKS=127.0.0.1/32 TACKER__STORAGE__URL=file://$work/store TACKER__LOG__FILTER=warn
"$BIN" db migrate >/dev/null
"$BIN" server >"$work/server.log" 2>&1 &
server=$!
base=http://127.0.0.1:$port
for _ in $(seq 1 100); do curl -fsS "$base/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
for i in $(seq 1 100); do
  curl -fsS -H 'Content-Type: application/json' -d "{\"userDefinedData\":{\"i\":\"$i\"}}" "$base/vnfpkgm/v1/vnf_packages" >"$work/last.json"
done
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$work/last.json")
rss() { awk '/VmRSS/ {printf "%.1f MiB", $2/1024}' "/proc/$server/status"; }
echo "== api: tacker server on PostgreSQL, wrk -c16 -t2: 1 s warm-up, then the median (and range) of ${BENCH_REPEAT:-3} runs of ${DUR}s"
echo "server RSS before: $(rss)"
run() {
  local name=$1
  shift
  wrk_median "$DUR" -c16 -t2 "$@"
  printf '%-28s %9s req/s (%s)  p50 %s ms  p99 %s ms (%s)\n' "$name" "$RPS" "$RPS_RANGE" "$P50" "$P99" "$P99_RANGE"
}
cat >"$work/create.lua" <<'LUA'
wrk.method = "POST"
wrk.body = "{}"
wrk.headers["Content-Type"] = "application/json"
LUA
run "GET vnf_packages/{id}" "$base/vnfpkgm/v1/vnf_packages/$id"
run "GET vnf_packages (100)" "$base/vnfpkgm/v1/vnf_packages"
run "GET vnf_instances (none)" -H 'Version: 2.0.0' "$base/vnflcm/v2/vnf_instances"
# One client, one request after the other: the latency of a create on its own.
run "POST vnf_packages (1 client)" -c1 -t1 -s "$work/create.lua" "$base/vnfpkgm/v1/vnf_packages"
echo "server RSS after:  $(rss)"
# Where the time goes (benches/profile.py): every CPU sampled by perf while wrk loads one
# route as above; idle near 0 % says the two cores, not the server, set the figure.
profile() {
  local name=$1
  shift
  wrk -d"$((DUR + 2))s" -c16 -t2 "$@" >/dev/null &
  local load=$!
  sleep 1
  perf record -a -F 999 -o "$work/perf.data" -- sleep "$DUR" >/dev/null 2>&1
  wait "$load"
  echo "profile of $name (perf on every CPU, ${DUR}s):"
  "$(dirname "$0")/profile.py" "$work/perf.data" | sed 's/^/  /'
}
if [ "${BENCH_PROFILE:-1}" != 0 ] && command -v perf >/dev/null; then
  profile "GET vnf_packages/{id}" "$base/vnfpkgm/v1/vnf_packages/$id"
  profile "GET vnf_packages (100)" "$base/vnfpkgm/v1/vnf_packages"
  profile "GET vnf_instances (none)" -H 'Version: 2.0.0' "$base/vnflcm/v2/vnf_instances"
fi
