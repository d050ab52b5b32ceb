#!/usr/bin/env bash
# Scale benchmark: GET one, paged lists (the first page, and page 50 or the last),
# filtered lists and creation as the tables grow (BENCH_SCALE_SIZES packages and as many
# instances, default 1000 10000 100000, and BENCH_SCALE_OCC_FACTOR (default 10) times as
# many operation occurrences: 10k, 100k and 1M), wrk -c16 against `tacker server` on
# PostgreSQL: a 1 s warm-up, then the median of BENCH_REPEAT (default 3) runs of
# BENCH_SCALE_DURATION seconds (default 5); the server's peak RSS after each size, and at
# the end each line's req/s at every size with the ratio largest/smallest.
#
# Generator: rows go straight into PostgreSQL with generate_series after `tacker db
# migrate`: packages ONBOARDED every other one (else CREATED) with userDefinedData
# {"i": n, "site": "s<n mod 1000>"} (a JSON-path filter on site matches one package in
# 1000); instances NOT_INSTANTIATED; occurrences TERMINATE COMPLETED, every 100th
# FAILED_TEMP, of instance n mod 100 (so one instance has one occurrence in 100);
# creation times one millisecond apart. Creation is POST /vnfpkgm/v1/vnf_packages. The
# tables are then vacuumed and a checkpoint taken, so neither autovacuum (which a million
# fresh rows would start) nor a checkpoint runs during the measurements.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
BIN=${TACKER_BIN:?}
DUR=${BENCH_SCALE_DURATION:-5}
OCC=${BENCH_SCALE_OCC_FACTOR:-10}
SIZES=${BENCH_SCALE_SIZES:-1000 10000 100000}
PG=${TACKER_TEST_PG:-postgres://postgres@127.0.0.1:5432}
AMQP=${TACKER_TEST_AMQP:-amqp://guest:guest@127.0.0.1:5672/%2f}
work=$(mktemp -d)
server=
db=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  [ -n "$db" ] && psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base=http://127.0.0.1:$port
key="$("$BIN" secrets generate-key bench)"

generate() {
  psql -q "$PG/$db" <<SQL
INSERT INTO vnf_packages (id, onboarding_state, operational_state, usage_state, user_defined_data, created_at, updated_at)
SELECT gen_random_uuid()::text, CASE WHEN n % 2 = 0 THEN 'ONBOARDED' ELSE 'CREATED' END,
       'DISABLED', 'NOT_IN_USE', '{"i": ' || n || ', "site": "s' || n % 1000 || '"}',
       now() - interval '1 day' + n * interval '1 millisecond', now()
FROM generate_series(1, $1) AS n;
INSERT INTO vnf_instances (id, vnf_instance_name, vnfd_id, vnf_pkg_id, vnf_provider, vnf_product_name,
       vnf_software_version, vnfd_version, instantiation_state, created_at, updated_at)
SELECT CASE WHEN n <= 100 THEN '00000000-0000-4000-8000-' || lpad(n::text, 12, '0')
            ELSE gen_random_uuid()::text END,
       'vnf-' || n, 'vnfd-' || n % 10, gen_random_uuid()::text, 'Bench', 'bench', '1.0', '1.0',
       'NOT_INSTANTIATED', now() - interval '1 day' + n * interval '1 millisecond', now()
FROM generate_series(1, $1) AS n;
INSERT INTO vnf_lcm_op_occs (id, vnf_instance_id, operation, operation_state, state_entered_time, start_time, operation_params, created_at)
SELECT gen_random_uuid()::text, '00000000-0000-4000-8000-' || lpad((n % 100 + 1)::text, 12, '0'), 'TERMINATE',
       CASE WHEN n % 100 = 0 THEN 'FAILED_TEMP' ELSE 'COMPLETED' END,
       now(), now() - interval '1 day' + n * interval '1 millisecond', '{"terminationType": "FORCEFUL"}',
       now() - interval '1 day' + n * interval '1 millisecond'
FROM generate_series(1, $1 * $OCC) AS n;
VACUUM (ANALYZE);
CHECKPOINT;
SQL
}

# The URL of page $2 of list $1 (following Link: rel="next").
page() {
  local url=$1 n=$2
  for _ in $(seq 2 "$n"); do
    url=$(curl -fsS -D - -o /dev/null "$url" -H 'Version: 2.0.0' | tr -d '\r' | sed -n 's/^[Ll]ink: <\(.*\)>; rel="next"$/\1/p')
  done
  echo "$url"
}

# A POST of an empty package (wrk script).
cat >"$work/create.lua" <<'LUA'
wrk.method = "POST"
wrk.body = "{}"
wrk.headers["Content-Type"] = "application/json"
LUA

declare -A figures
measure() {
  local name=$1 url=$2 size=$3 script=${4:-}
  local args=(-c16 -t2 -H 'Version: 2.0.0')
  [ -n "$script" ] && args+=(-s "$script")
  wrk_median "$DUR" "${args[@]}" "$url" || { echo "from $url"; exit 1; }
  printf '%8s  %-40s %9s req/s (%s)  p50 %-6s p99 %-7s ms\n' "$size" "$name" "$RPS" "$RPS_RANGE" "$P50" "$P99"
  figures["$name/$size"]=$RPS
}

echo "== scale: tacker server on PostgreSQL, wrk -c16 -t2, median of ${BENCH_REPEAT:-3} runs of ${DUR}s per line (page size 100; occurrences: $OCC x the size)"
for size in $SIZES; do
  db=tacker_scale_$$_$size
  psql "$PG/postgres" -qc "CREATE DATABASE $db" >/dev/null
  export TACKER__SECRETS__KEYS="$key" TACKER__DATABASE__URL=$PG/$db TACKER__BUS__URL=$AMQP \
    TACKER__BUS__PREFIX=scale-$$ TACKER__SERVER__BIND=127.0.0.1:$port TACKER__OUTBOUND__ALLOWED_NETWORKS=127.0.0.1/32 \
    TACKER__STORAGE__URL=file://$work/store TACKER__LOG__FILTER=warn
  "$BIN" db migrate >/dev/null
  generate "$size"
  "$BIN" server >"$work/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 100); do curl -fsS "$base/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  pkgs=$base/vnfpkgm/v1/vnf_packages
  ops=$base/vnflcm/v2/vnf_lcm_op_occs
  insts=$base/vnflcm/v2/vnf_instances
  one=$(curl -fsS "$pkgs" | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["id"])')
  measure "GET one package" "$pkgs/$one" "$size"
  measure "packages, first page" "$pkgs" "$size"
  deep=$(( size / 100 < 50 ? size / 100 : 50 ))
  measure "packages, page 50 (or last)" "$(page "$pkgs" "$deep")" "$size"
  measure "packages (eq,onboardingState,ONBOARDED)" "$pkgs?filter=(eq,onboardingState,ONBOARDED)" "$size"
  measure "packages (eq,userDefinedData/site,s7)" "$pkgs?filter=(eq,userDefinedData/site,s7)" "$size"
  measure "instances, first page" "$insts" "$size"
  measure "instances, page 50 (or last)" "$(page "$insts" "$deep")" "$size"
  measure "op occurrences, first page" "$ops" "$size"
  measure "op occurrences, page 50 (or last)" "$(page "$ops" "$(( size * OCC / 100 < 50 ? size * OCC / 100 : 50 ))")" "$size"
  measure "op occ. (eq,operationState,FAILED_TEMP)" "$ops?filter=(eq,operationState,FAILED_TEMP)" "$size"
  measure "op occ. (eq,vnfInstanceId,<one>)" "$ops?filter=(eq,vnfInstanceId,00000000-0000-4000-8000-000000000007)" "$size"
  measure "create (POST a package)" "$pkgs" "$size" "$work/create.lua"
  printf '%8s  server RSS after: %s\n' "$size" "$(awk '/VmHWM/ {printf "%.1f MiB peak", $2/1024}' "/proc/$server/status")"
  kill "$server"; wait "$server" 2>/dev/null || true; server=
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null; db=
done

first=${SIZES%% *} last=${SIZES##* }
echo "== scale: req/s by size (packages and instances; occurrences x$OCC), ratio $last/$first"
for name in "GET one package" "packages, first page" "packages, page 50 (or last)" \
  "packages (eq,onboardingState,ONBOARDED)" "packages (eq,userDefinedData/site,s7)" \
  "instances, first page" "instances, page 50 (or last)" "op occurrences, first page" \
  "op occurrences, page 50 (or last)" "op occ. (eq,operationState,FAILED_TEMP)" \
  "op occ. (eq,vnfInstanceId,<one>)" "create (POST a package)"; do
  row=$(printf '%-40s' "$name")
  for size in $SIZES; do row+=$(printf ' %9s' "${figures["$name/$size"]}"); done
  row+=$(printf '  %.2f' "$(echo "${figures["$name/$last"]} / ${figures["$name/$first"]}" | bc -l)")
  echo "$row"
done
