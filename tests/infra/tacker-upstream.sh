#!/usr/bin/env bash
# tacker-upstream.sh: upstream OpenStack Tacker 16.0.0 (PyPI `tacker==16.0.0`) on loopback,
# the deployment `tacker import tacker` reads and the benches compare against.
#
#   tacker-upstream.sh up
#       Installs Tacker into a venv of its own (.tools/tacker-upstream) and Debian's
#       mariadb-server when missing; sets up, once, in $TACKER_UPSTREAM_DIR
#       (<repo>/.tacker-upstream): a private MariaDB (data directory there, 127.0.0.1:
#       $TACKER_UPSTREAM_DB_PORT, 13306) with database `tacker` (user tacker), Tacker's
#       schema (`tacker-db-manage upgrade head`), the RabbitMQ vhost `tacker-upstream` on
#       the tests' broker, Fernet VIM keys (`[vim_keys] openstack`), package storage
#       (`[vnf_package] vnf_package_csar_path` and glance_store's file directory); starts
#       whatever does not answer: MariaDB, `tacker-server` (Keystone auth on the tests'
#       Keystone, tests/infra/openstack.sh, as user `tacker` of project `service`) on
#       127.0.0.1:$TACKER_UPSTREAM_PORT (19890) and one `tacker-conductor` (with
#       k8s-tools.sh's helm in its PATH, for Tacker's Helm driver). Prints
#       `tacker <url>`, `db <mysql url>`, `vim-keys <dir>`, `csar-dir <dir>`, `conf
#       <tacker.conf>` and `userdata-standard <file>` (Tacker's own StandardUserData
#       script, which packages name as their `lcm-operation-user-data`). Like services.sh it never stops them (pids in the directory).
#       Safe to run concurrently (a lock).
#   tacker-upstream.sh pg-copy NAME
#       Tacker's database as it is now, copied into a new database NAME on the tests'
#       PostgreSQL (127.0.0.1:5432) with Tacker's schema made there by Tacker's own
#       migrations (`tacker-db-manage upgrade head` through psycopg2): the deployment of an
#       operator who runs Tacker on PostgreSQL. Prints `db <postgresql url>`.
#   tacker-upstream.sh stop-conductor
#       Stops Tacker's conductor (the cut-over's first step; `up` starts it again).
#   tacker-upstream.sh stop
#       Stops what `up` started (by the pids it recorded).
#
# Pitfalls found here: mariadbd refuses to run as root without --user=root; MariaDB's
# root over TCP is refused (a user of our own is made over the socket); the wheel's
# api-paste.ini (venv/etc/tacker) has noauth pipelines, but the package API's sets no
# request context under them (every call is a 500 KeyError 'tacker.context'): Keystone
# auth it is, as deployments run it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${TACKER_UPSTREAM_DIR:-$root/.tacker-upstream}
venv=$root/.tools/tacker-upstream
db_port=${TACKER_UPSTREAM_DB_PORT:-13306}
port=${TACKER_UPSTREAM_PORT:-19890}
url=http://127.0.0.1:$port
db_pw=tacker-upstream-password-for-tests
db_url="mysql+pymysql://tacker:$db_pw@127.0.0.1:$db_port/tacker?charset=utf8"
amqp_host=127.0.0.1:5672
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo

up_http() { curl -fsS -m 3 -o /dev/null "$1" 2>/dev/null; }
tcp_up() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
wait_until() {
  local what=$1 log=$2; shift 2
  for _ in $(seq 1 300); do "$@" && return 0; sleep 0.2; done
  echo "tacker-upstream.sh: $what did not come up; see $log" >&2
  tail -20 "$log" >&2
  return 1
}

install() {
  "$root/tests/infra/k8s-tools.sh"
  command -v mariadbd >/dev/null || {
    echo "tacker-upstream.sh: installing mariadb-server" >&2
    $sudo apt-get update -qq
    # Debian starts the packaged service on install: a policy forbids it (ours runs apart).
    printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
    $sudo chmod +x /usr/sbin/policy-rc.d
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq mariadb-server >&2 || {
      $sudo rm -f /usr/sbin/policy-rc.d; exit 1; }
    $sudo rm -f /usr/sbin/policy-rc.d
  }
  [ -f "$venv/.tacker-upstream-v2" ] && return 0
  command -v curl >/dev/null || { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq curl >&2; }
  echo "tacker-upstream.sh: installing tacker 16.0.0 into $venv" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'tacker==16.0.0' 'PyMySQL' \
    'psycopg2-binary' >&2
  touch "$venv/.tacker-upstream-v2"
}

configure() {
  mkdir -p "$dir/log" "$dir/vim_keys" "$dir/vnfpackages" "$dir/csar_files" "$dir/lock" "$dir/state"
  local ks_url
  ks_url=$("$root/tests/infra/openstack.sh" up | awk '$1 == "keystone" {print $2}')
  cat > "$dir/tacker.conf" <<EOF
[DEFAULT]
auth_strategy = keystone
bind_host = 127.0.0.1
bind_port = $port
api_paste_config = $venv/etc/tacker/api-paste.ini
transport_url = rabbit://guest:guest@$amqp_host/tacker-upstream
state_path = $dir/state
debug = false
[database]
connection = $db_url
[vim_keys]
openstack = $dir/vim_keys
use_barbican = false
[vnf_package]
vnf_package_csar_path = $dir/vnfpackages
[glance_store]
stores = file
default_store = file
filesystem_store_datadir = $dir/csar_files
[oslo_concurrency]
lock_path = $dir/lock
[vnf_lcm]
endpoint_url = $url/
[v2_vnfm]
endpoint = $url
[keystone_authtoken]
www_authenticate_uri = $ks_url
auth_url = $ks_url
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = tacker
password = $("$root/tests/infra/openstack.sh" tacker-password)
EOF
}

start_mariadb() {
  tcp_up 127.0.0.1 "$db_port" && return 0
  if [ ! -d "$dir/mysql/mysql" ]; then
    rm -rf "$dir/mysql" "$dir/.migrated"
    mariadb-install-db --no-defaults --datadir="$dir/mysql" --auth-root-authentication-method=normal \
      --user="$(id -un)" --skip-test-db > "$dir/log/mariadb-install.log" 2>&1 \
      || { tail -20 "$dir/log/mariadb-install.log" >&2; exit 1; }
  fi
  echo "tacker-upstream.sh: starting MariaDB on 127.0.0.1:$db_port" >&2
  setsid mariadbd --no-defaults --datadir="$dir/mysql" --port="$db_port" --bind-address=127.0.0.1 \
    --socket="$dir/mysqld.sock" --pid-file="$dir/mysqld.pid" --user="$(id -un)" --skip-log-bin \
    --innodb-buffer-pool-size=32M 9>&- > "$dir/log/mariadb.log" 2>&1 < /dev/null &
  wait_until MariaDB "$dir/log/mariadb.log" tcp_up 127.0.0.1 "$db_port"
  mariadb --no-defaults -S "$dir/mysqld.sock" -uroot -e "
    CREATE DATABASE IF NOT EXISTS tacker CHARACTER SET utf8;
    CREATE USER IF NOT EXISTS 'tacker'@'127.0.0.1' IDENTIFIED BY '$db_pw';
    GRANT ALL ON tacker.* TO 'tacker'@'127.0.0.1';"
}

migrate() {
  [ -f "$dir/.migrated" ] && return 0
  "$venv/bin/tacker-db-manage" --config-file "$dir/tacker.conf" upgrade head \
    > "$dir/log/db-manage.log" 2>&1 || { tail -20 "$dir/log/db-manage.log" >&2; exit 1; }
  touch "$dir/.migrated"
}

vhost() {
  command -v rabbitmqctl >/dev/null || return 0
  $sudo rabbitmqctl -q list_vhosts 2>/dev/null | grep -qx tacker-upstream && return 0
  $sudo rabbitmqctl -q add_vhost tacker-upstream >/dev/null
  $sudo rabbitmqctl -q set_permissions -p tacker-upstream guest '.*' '.*' '.*' >/dev/null
}

running() { [ -f "$dir/$1.pid" ] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }

start_tacker() {
  if ! up_http "$url/"; then
    echo "tacker-upstream.sh: starting tacker-server on $url" >&2
    setsid "$venv/bin/tacker-server" --config-file "$dir/tacker.conf" --log-file "$dir/log/server.log" \
      9>&- > "$dir/log/server.out" 2>&1 < /dev/null &
    echo $! > "$dir/server.pid"
    wait_until tacker-server "$dir/log/server.log" up_http "$url/"
  fi
  # A conductor an older checkout started, without helm in its PATH, starts again (its
  # environment cannot be read back: Tacker rewrites it with its process title).
  if running conductor && [ ! -f "$dir/conductor.with-helm" ]; then
    echo "tacker-upstream.sh: restarting tacker-conductor, with helm in its PATH" >&2
    stop_group conductor
  fi
  if ! running conductor; then
    echo "tacker-upstream.sh: starting tacker-conductor" >&2
    # Tacker's Helm driver runs `helm` from PATH: k8s-tools.sh's.
    PATH="$root/.tools/bin:$PATH" setsid "$venv/bin/tacker-conductor" --config-file "$dir/tacker.conf" --log-file "$dir/log/conductor.log" \
      9>&- > "$dir/log/conductor.out" 2>&1 < /dev/null &
    echo $! > "$dir/conductor.pid"
    touch "$dir/conductor.with-helm"
  fi
}

# Each was started as the leader of its own process group (setsid): the group goes, the
# workers Tacker forks with it; a conductor that does not finish within 10 s is killed.
stop_group() {
  local pid
  running "$1" || { rm -f "$dir/$1.pid"; return 0; }
  pid=$(cat "$dir/$1.pid")
  kill -TERM -- "-$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$dir/$1.pid"
}

stop() {
  stop_group conductor
  stop_group server
  stop_group mysqld
}

# Tacker's MariaDB database copied, table by table in the order its foreign keys need,
# into PostgreSQL database $1 migrated by Tacker itself.
pg_copy() {
  local name=$1 pg_url="postgresql+psycopg2://postgres@127.0.0.1:5432/$1"
  case "$name" in *[!a-z0-9_]*|"") echo "pg-copy: a database name of [a-z0-9_]" >&2; exit 2 ;; esac
  psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $name" \
    -c "CREATE DATABASE $name" >/dev/null
  sed "s|^connection = .*|connection = $pg_url|" "$dir/tacker.conf" > "$dir/tacker-$name.conf"
  "$venv/bin/tacker-db-manage" --config-file "$dir/tacker-$name.conf" upgrade head \
    > "$dir/log/pg-copy-$name.log" 2>&1 || { tail -20 "$dir/log/pg-copy-$name.log" >&2; exit 1; }
  rm -f "$dir/tacker-$name.conf"
  "$venv/bin/python" - "$db_url" "$pg_url" <<'PY'
import json, sys
import sqlalchemy as sa
src, dst = sa.create_engine(sys.argv[1]), sa.create_engine(sys.argv[2])
smeta, dmeta = sa.MetaData(), sa.MetaData()
smeta.reflect(src)
dmeta.reflect(dst)
with src.connect() as s, dst.begin() as d:
    for t in dmeta.sorted_tables:
        if t.name == "alembic_version" or t.name not in smeta.tables:
            continue
        rows = [dict(r._mapping) for r in s.execute(smeta.tables[t.name].select())]
        for r in rows:
            for c in t.columns:
                v = r.get(c.name)
                if v is None:
                    continue
                if isinstance(c.type, sa.Boolean):
                    r[c.name] = bool(v)
                elif isinstance(c.type, sa.JSON) and isinstance(v, (str, bytes)):
                    # MariaDB's JSON is text: the value, not its text, goes in.
                    r[c.name] = json.loads(v)
        if rows:
            d.execute(t.insert(), rows)
PY
  echo "db postgresql://postgres@127.0.0.1:5432/$name"
}

# Under the lock held until this script exits: Tacker installed and configured, its
# MariaDB running with Tacker's schema.
database_up() {
  mkdir -p "$dir"
  exec 9> "$dir/.lock"
  flock 9
  install
  configure
  start_mariadb
  migrate
}

case "${1:-up}" in
  up)
    database_up
    vhost
    start_tacker
    echo "tacker $url"
    echo "db mysql://tacker:$db_pw@127.0.0.1:$db_port/tacker"
    echo "vim-keys $dir/vim_keys"
    echo "csar-dir $dir/csar_files"
    echo "conf $dir/tacker.conf"
    userdata=$(ls -d "$venv"/lib/python3*/site-packages/tacker/sol_refactored/infra_drivers/openstack/userdata_standard.py 2>/dev/null | head -1)
    [ -n "$userdata" ] || { echo "tacker-upstream.sh: Tacker's userdata_standard.py not found in $venv" >&2; exit 1; }
    echo "userdata-standard $userdata"
    ;;
  pg-copy)
    [ $# -eq 2 ] || { echo "usage: tacker-upstream.sh pg-copy NAME" >&2; exit 2; }
    database_up
    pg_copy "$2"
    ;;
  stop-conductor) stop_group conductor ;;
  stop) stop ;;
  *) echo "usage: tacker-upstream.sh up | pg-copy NAME | stop-conductor | stop" >&2; exit 2 ;;
esac
