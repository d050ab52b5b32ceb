#!/usr/bin/env bash
# Authentication benchmark: the cost of a Keystone-authenticated GET with a warm cache
# beside the same GET with a JWT of the built-in endpoint and without authentication.
# One `tacker server` on PostgreSQL + RabbitMQ in mode "keystone" with a signing key (so
# it takes both kinds of token), the tests' real Keystone (tests/infra/openstack.sh);
# wrk -c16 -t2 on GET /vnfpkgm/v1/vnf_packages/{id}, each token in X-Auth-Token.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
BIN=${TACKER_BIN:?}
DUR=${BENCH_DURATION:-10}
PG=${TACKER_TEST_PG:-postgres://postgres@127.0.0.1:5432}
AMQP=${TACKER_TEST_AMQP:-amqp://guest:guest@127.0.0.1:5672/%2f}
infra=$(cd "$(dirname "$0")/../tests/infra" && pwd)
ks=$("$infra/openstack.sh" up | awk '$1=="keystone" {print $2}')
db=tacker_bench_auth_$$
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
secret=bench-client-secret-0123456789
"$BIN" auth generate-key --out "$work/signing.pem" >/dev/null
cat >"$work/tacker.toml" <<EOF
[auth]
mode = "keystone"
keystone_url = "$ks"
keystone_username = "tacker"
keystone_password = "$("$infra/openstack.sh" tacker-password)"
keystone_project = "service"
signing_key_file = "$work/signing.pem"
token_rate_limit = 0

[[auth.clients]]
id = "bench"
secret_hash = "$(printf '%s\n' "$secret" | "$BIN" auth hash-secret)"
roles = ["admin"]
EOF
export TACKER_CONFIG=$work/tacker.toml TACKER__SECRETS__KEYS="$("$BIN" secrets generate-key bench)" \
  TACKER__DATABASE__URL=$PG/$db TACKER__BUS__URL=$AMQP TACKER__BUS__PREFIX=bench-$$ \
  TACKER__SERVER__BIND=127.0.0.1:$port TACKER__STORAGE__URL=file://$work/store TACKER__LOG__FILTER=warn
"$BIN" db migrate >/dev/null
"$BIN" server >"$work/server.log" 2>&1 &
server=$!
base=http://127.0.0.1:$port
for _ in $(seq 1 100); do curl -fsS "$base/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
jwt=$(curl -fsS -u "bench:$secret" -d grant_type=client_credentials "$base/oauth2/token" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
keystone=$(curl -fsS -D - -o /dev/null -H 'Content-Type: application/json' "$ks/auth/tokens" -d "{\"auth\": {
  \"identity\": {\"methods\": [\"password\"], \"password\": {\"user\": {\"name\": \"admin\",
    \"domain\": {\"name\": \"Default\"}, \"password\": \"$("$infra/openstack.sh" admin-password)\"}}},
  \"scope\": {\"project\": {\"name\": \"admin\", \"domain\": {\"name\": \"Default\"}}}}}" |
  awk 'tolower($1)=="x-subject-token:" {print $2}' | tr -d '\r')
id=$(curl -fsS -H "X-Auth-Token: $keystone" -H 'Content-Type: application/json' -d '{}' \
  "$base/vnfpkgm/v1/vnf_packages" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
url=$base/vnfpkgm/v1/vnf_packages/$id
echo "== auth: GET vnf_packages/{id}, tacker server in mode keystone on PostgreSQL, wrk -c16 -t2: 1 s warm-up, then the median (and range) of ${BENCH_REPEAT:-3} runs of ${DUR}s"
run() {
  local name=$1
  shift
  wrk_median "$DUR" -c16 -t2 "$@" "$url"
  printf '%-30s %9s req/s (%s)  p50 %s ms  p99 %s ms (%s)\n' "$name" "$RPS" "$RPS_RANGE" "$P50" "$P99" "$P99_RANGE"
}
run "JWT (built-in endpoint)" -H "X-Auth-Token: $jwt"
jwt_rps=$RPS
run "Keystone token, warm cache" -H "X-Auth-Token: $keystone"
ks_rps=$RPS
echo "Keystone / JWT: $(echo "scale=3; $ks_rps / $jwt_rps" | bc) (goal: at least 0.9)"
