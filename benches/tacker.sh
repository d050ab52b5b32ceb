#!/usr/bin/env bash
# Upstream Tacker 16.0.0 on this machine, with the client and the loads of `api.sh`: the
# figures `goals.py` divides ours by (its built-in figures, from issue 35's machine, only
# where this did not run). Tacker runs as tests/infra/tacker-upstream.sh sets it up
# (server + one conductor on MariaDB/RabbitMQ, Keystone auth whose token checks
# keystonemiddleware caches, so a request costs about what it costs under noauth).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
DUR=${BENCH_DURATION:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
base=$("$root/tests/infra/tacker-upstream.sh" up | awk '$1=="tacker" {print $2}')
ks=http://127.0.0.1:15000/v3
admin_pw=$("$root/tests/infra/openstack.sh" admin-password)
work=$(mktemp -d)
created=()
token=
cleanup() {
  # The packages made here leave again: Tacker's database is the tests' too.
  for p in "${created[@]}"; do
    curl -fsS -o /dev/null -X DELETE -H "X-Auth-Token: $token" "$base/vnfpkgm/v1/vnf_packages/$p" || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
token=$(curl -fsS -D - -o /dev/null -H 'Content-Type: application/json' -d "{\"auth\": {
  \"identity\": {\"methods\": [\"password\"], \"password\": {\"user\": {\"name\": \"admin\",
    \"domain\": {\"name\": \"Default\"}, \"password\": \"$admin_pw\"}}},
  \"scope\": {\"project\": {\"name\": \"admin\", \"domain\": {\"name\": \"Default\"}}}}}" \
  "$ks/auth/tokens" | awk 'tolower($1)=="x-subject-token:" {print $2}' | tr -d '\r')
count() { curl -fsS -H "X-Auth-Token: $token" "$@" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
# Tacker pages its package list (100 a page): every count and id list asks for all.
all="$base/vnfpkgm/v1/vnf_packages?all_records=yes"
have=$(count "$all")
for i in $(seq "$((have + 1))" 100); do
  curl -fsS -H "X-Auth-Token: $token" -H 'Content-Type: application/json' \
    -d "{\"userDefinedData\":{\"i\":\"$i\"}}" "$base/vnfpkgm/v1/vnf_packages" >"$work/last.json"
  created+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$work/last.json")")
done
id=${created[0]:-$(curl -fsS -H "X-Auth-Token: $token" "$all" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')}
packages=$(count "$all")
instances=$(count -H 'Version: 2.0.0' "$base/vnflcm/v2/vnf_instances")
echo "== tacker: upstream Tacker 16.0.0 (server + 1 conductor, MariaDB, Keystone token), wrk -c16 -t2 as api: median of ${BENCH_REPEAT:-3} runs of ${DUR}s"
run() {
  local name=$1
  shift
  # A slow answer counts (wrk's 2 s timeout would drop it from the figure).
  wrk_median "$DUR" -c16 -t2 --timeout 30s -H "X-Auth-Token: $token" "$@"
  printf 'Tacker 16.0.0 %-28s %9s req/s (%s)  p50 %s ms  p99 %s ms (%s)\n' "$name" "$RPS" "$RPS_RANGE" "$P50" "$P99" "$P99_RANGE"
}
run "GET vnf_packages/{id}" "$base/vnfpkgm/v1/vnf_packages/$id"
run "GET vnf_packages ($packages)" "$all"
# Our line is an empty list; Tacker's holds what the tests left there (said in the name).
run "GET vnf_instances ($instances)" -H 'Version: 2.0.0' "$base/vnflcm/v2/vnf_instances"
cat >"$work/create.lua" <<'LUA'
wrk.method = "POST"
wrk.body = "{}"
wrk.headers["Content-Type"] = "application/json"
LUA
# Creates of one client for 3 s (each made package is deleted again after).
ids() { curl -fsS -H "X-Auth-Token: $token" "$all" | python3 -c 'import json,sys; [print(p["id"]) for p in json.load(sys.stdin)]' | sort; }
ids >"$work/before"
out=$(wrk -d3s -c1 -t1 --latency -H "X-Auth-Token: $token" -s "$work/create.lua" "$base/vnfpkgm/v1/vnf_packages")
printf 'Tacker 16.0.0 %-28s %9s req/s  p50 %s ms\n' "POST vnf_packages (1 client)" \
  "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" "$(awk '$1=="50%" {print $2}' <<<"$out" | to_ms)"
while read -r p; do created+=("$p"); done < <(ids | comm -13 "$work/before" -)
