#!/usr/bin/env bash
# openstack.sh: a real Keystone and Glance (PyPI keystone 30.0.0, glance 33.0.0; their
# databases openstack_keystone and openstack_glance on the tests' PostgreSQL, Glance's file
# store, Keystone auth) on loopback for the OpenStack tests.
#
#   openstack.sh up
#       Installs them into a venv of their own (.tools/openstack) when missing, sets them
#       up once in $TACKER_OPENSTACK_DIR (<repo>/.openstack) and the tests' PostgreSQL
#       ($TACKER_TEST_PG, else services.sh's 127.0.0.1:5432): Keystone's database, Fernet
#       keys, the bootstrap admin, project `service` with users `glance` and `tacker` (role
#       service: it validates tokens), the image service in the catalog (region RegionOne); starts whatever does not answer, Keystone on
#       127.0.0.1:$KEYSTONE_PORT (15000), Glance on 127.0.0.1:$GLANCE_PORT (19292); prints
#       `keystone <url>` and `glance <url>`. Like services.sh it never stops them (they
#       live on between test runs; their pids are in the directory). Safe to run
#       concurrently (a lock).
#   openstack.sh admin-password
#       Prints the bootstrap admin's password (the tests create their projects, users,
#       regions and catalog entries with it).
#   openstack.sh tacker-password
#       Prints the password of user `tacker` (project `service`, role service).
#
# Pitfalls found here: keystone-manage reads only --config-file (not OS_KEYSTONE_CONFIG_DIR)
# and puts Fernet receipt keys in /etc/keystone unless [fernet_receipts] names a directory;
# the WSGI apps parse sys.argv with oslo.config, so a wrapper module resets it under
# gunicorn; Glance checks an upload against its disk_format (raw accepts anything). On
# SQLite (even in WAL mode) a login while other tests create projects got "database is
# locked" (HTTP 500) from Keystone under CI load: hence PostgreSQL.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${TACKER_OPENSTACK_DIR:-$root/.openstack}
venv=$root/.tools/openstack
ks_port=${KEYSTONE_PORT:-15000}
gl_port=${GLANCE_PORT:-19292}
ks_url=http://127.0.0.1:$ks_port/v3
gl_url=http://127.0.0.1:$gl_port
admin_pw=admin-password-for-tests
pg=${TACKER_TEST_PG:-postgres://postgres@127.0.0.1:5432}
db_url() { echo "postgresql+psycopg2://${pg#*://}/$1"; }

up_http() { curl -fsS -m 3 -o /dev/null "$1" 2>/dev/null; }
wait_http() {
  for _ in $(seq 1 150); do up_http "$1" && return 0; sleep 0.2; done
  echo "openstack.sh: $1 did not answer; see $2" >&2
  tail -20 "$2" >&2
  return 1
}

install() {
  [ -f "$venv/.tacker-openstack-v2" ] && return 0
  command -v curl >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl >&2; }
  echo "openstack.sh: installing keystone and glance into $venv" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    'keystone==30.0.0' 'glance==33.0.0' 'gunicorn' 'psycopg2-binary' >&2
  touch "$venv/.tacker-openstack-v2"
}

configure() {
  mkdir -p "$dir/keystone" "$dir/glance/images" "$dir/glance/staging" "$dir/glance/tasks"
  cat > "$dir/keystone/keystone.conf" <<EOF
[DEFAULT]
log_dir = $dir/keystone
[database]
connection = $(db_url openstack_keystone)
[cache]
enabled = false
[identity]
password_hash_rounds = 4
[fernet_tokens]
key_repository = $dir/keystone/fernet-keys
[fernet_receipts]
key_repository = $dir/keystone/fernet-keys
[credential]
key_repository = $dir/keystone/credential-keys
EOF
  printf 'import sys\nsys.argv = sys.argv[:1]\nfrom keystone.server.wsgi import initialize_public_application\napplication = initialize_public_application()\n' \
    > "$dir/keystone/ks_wsgi.py"
  cat > "$dir/glance/glance-api.conf" <<EOF
[DEFAULT]
bind_host = 127.0.0.1
bind_port = $gl_port
log_file = $dir/glance/glance-api.log
enabled_backends = fs:file
worker_self_reference_url = $gl_url
[database]
connection = $(db_url openstack_glance)
[glance_store]
default_backend = fs
[fs]
filesystem_store_datadir = $dir/glance/images/
[os_glance_staging_store]
filesystem_store_datadir = $dir/glance/staging/
[os_glance_tasks_store]
filesystem_store_datadir = $dir/glance/tasks/
[paste_deploy]
flavor = keystone
config_file = $venv/etc/glance/glance-api-paste.ini
[keystone_authtoken]
www_authenticate_uri = $ks_url
auth_url = $ks_url
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = glance
password = glance-password-for-tests
EOF
  printf 'import sys\nsys.argv = sys.argv[:1]\nfrom glance.common.wsgi_app import init_app\napplication = init_app()\n' \
    > "$dir/glance/gl_wsgi.py"
}

has_db() { [ "$(psql "$pg/postgres" -Atc "SELECT 1 FROM pg_database WHERE datname = '$1'")" = 1 ]; }

# The databases and the marker files in $dir go together: a marker without its database
# (PostgreSQL reset) sets up again; set-up starts from empty databases.
bootstrap() {
  if [ -f "$dir/.bootstrapped-pg" ] && has_db openstack_keystone && has_db openstack_glance; then
    return 0
  fi
  rm -f "$dir/.bootstrapped-pg" "$dir/.seeded-pg-v2"
  rm -rf "$dir/keystone/fernet-keys" "$dir/keystone/credential-keys"
  for db in openstack_keystone openstack_glance; do
    PGOPTIONS=--client-min-messages=warning psql -q "$pg/postgres" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  done
  local km="$venv/bin/keystone-manage --config-file $dir/keystone/keystone.conf"
  me=$(id -un); grp=$(id -gn)
  {
    $km db_sync
    $km fernet_setup --keystone-user "$me" --keystone-group "$grp"
    $km credential_setup --keystone-user "$me" --keystone-group "$grp"
    $km bootstrap --bootstrap-password "$admin_pw" --bootstrap-admin-url "$ks_url" \
      --bootstrap-public-url "$ks_url" --bootstrap-internal-url "$ks_url" --bootstrap-region-id RegionOne
    "$venv/bin/glance-manage" --config-file "$dir/glance/glance-api.conf" db_sync
  } > "$dir/bootstrap.log" 2>&1 || { tail -20 "$dir/bootstrap.log" >&2; exit 1; }
  touch "$dir/.bootstrapped-pg"
}

start_keystone() {
  up_http "$ks_url" && return 0
  echo "openstack.sh: starting Keystone on $ks_url" >&2
  OS_KEYSTONE_CONFIG_DIR="$dir/keystone" HOME="$dir" setsid "$venv/bin/gunicorn" --no-control-socket \
    --chdir "$dir/keystone" -b "127.0.0.1:$ks_port" -w 2 ks_wsgi:application 9>&- \
    > "$dir/keystone/gunicorn.log" 2>&1 < /dev/null &
  echo $! > "$dir/keystone/pid"
  wait_http "$ks_url" "$dir/keystone/gunicorn.log"
}

start_glance() {
  up_http "$gl_url/versions" && return 0
  echo "openstack.sh: starting Glance on $gl_url" >&2
  OS_GLANCE_CONFIG_DIR="$dir/glance" HOME="$dir" setsid "$venv/bin/gunicorn" --no-control-socket \
    --chdir "$dir/glance" -b "127.0.0.1:$gl_port" -w 2 gl_wsgi:application 9>&- \
    > "$dir/glance/gunicorn.log" 2>&1 < /dev/null &
  echo $! > "$dir/glance/pid"
  wait_http "$gl_url/versions" "$dir/glance/gunicorn.log"
}

case "${1:-up}" in
  up)
    mkdir -p "$dir"
    exec 9> "$dir/.lock"
    flock 9
    install
    configure
    bootstrap
    start_keystone
    if [ ! -f "$dir/.seeded-pg-v2" ]; then
      "$venv/bin/python" "$root/tests/infra/openstack-seed.py" "$ks_url" "$admin_pw" "$gl_url" \
        >> "$dir/bootstrap.log" 2>&1 || { tail -20 "$dir/bootstrap.log" >&2; exit 1; }
      touch "$dir/.seeded-pg-v2"
    fi
    start_glance
    echo "keystone $ks_url"
    echo "glance $gl_url"
    ;;
  admin-password) echo "$admin_pw" ;;
  tacker-password) echo "tacker-password-for-tests" ;;
  *) echo "usage: openstack.sh up | admin-password | tacker-password" >&2; exit 2 ;;
esac
