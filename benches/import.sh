#!/usr/bin/env bash
# Import from Tacker: a Tacker 16 database (upstream's own schema, on the MariaDB of
# tests/infra/tacker-upstream.sh) holding BENCH_IMPORT_PACKAGES (default 1,000) ONBOARDED
# packages, each with its CSAR in a glance_store directory and a line of user-defined
# data, and BENCH_IMPORT_INSTANCES (default 1,000) v2 instances not instantiated, spread
# over them; `tacker import tacker` into PostgreSQL and local storage. Prints the wall
# time of the import (goal: under a minute), and of a second run (nothing new: every
# object found unchanged).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
BIN=${TACKER_BIN:?}
PACKAGES=${BENCH_IMPORT_PACKAGES:-1000}
INSTANCES=${BENCH_IMPORT_INSTANCES:-1000}
PG=${TACKER_TEST_PG:-postgres://postgres@127.0.0.1:5432}
root=$(cd "$(dirname "$0")/.." && pwd)
upstream=$("$root/tests/infra/tacker-upstream.sh" up)
upstream_dir=${TACKER_UPSTREAM_DIR:-$root/.tacker-upstream}
# mysql://tacker:<password>@127.0.0.1:<port>/tacker, on another database.
tacker_db=$(awk '$1 == "db" {print $2}' <<<"$upstream")
src=tacker_bench_import_$$
src_url=${tacker_db%/*}/$src
db=tacker_bench_import_$$
work=$(mktemp -d)
cleanup() {
  mariadb --no-defaults -S "$upstream_dir/mysqld.sock" -uroot -e "DROP DATABASE IF EXISTS $src" \
    >/dev/null 2>&1 || true
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/keys"
"$root/tests/infra/tacker-fill.sh" "$src" "$work/csars" "$PACKAGES" "$INSTANCES"
psql "$PG/postgres" -qc "CREATE DATABASE $db" >/dev/null
export TACKER__SECRETS__KEYS="$("$BIN" secrets generate-key bench)" TACKER__DATABASE__URL=$PG/$db \
  TACKER__STORAGE__URL=file://$work/store TACKER__LOG__FILTER=warn
"$BIN" db migrate >/dev/null
run() {
  local t0 t1
  t0=$(date +%s.%N)
  "$BIN" import tacker --db "$src_url" --vim-keys "$work/keys" --csar-dir "$work/csars" \
    >"$work/out.txt" 2>"$work/err.txt" || { cat "$work/out.txt" "$work/err.txt" >&2; exit 1; }
  t1=$(date +%s.%N)
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$t0" "$t1"
}
echo "== import: tacker import tacker, $PACKAGES packages + $INSTANCES v2 instances from Tacker 16's MariaDB into PostgreSQL"
first=$(run)
sed 's/^/  /' "$work/out.txt"
again=$(run)
imported=$(awk '$1 == "package" || $1 == "instance" {n += $2} END {print n + 0}' "$work/out.txt")
echo "import of $PACKAGES packages and $INSTANCES instances: $first s (goal < 60 s)"
echo "import again (nothing new, $imported imported): $again s"
