#!/usr/bin/env bash
# pg-failover.sh: a PostgreSQL primary with a synchronous streaming replica on loopback
# (Debian PostgreSQL, as services.sh installs it), beside the system cluster and never
# touching it, for the database failover tests. Ports $BASE (primary) and $BASE+1
# (replica), BASE 21432; user postgres, trust on loopback; state under DIR.
#
#   pg-failover.sh up DIR        initdb, start the primary, make the replica
#                                (pg_basebackup -R) and start it; prints the libpq
#                                multi-host URL (target_session_attrs=read-write)
#   pg-failover.sh kill DIR      SIGKILLs the primary's postmaster
#   pg-failover.sh promote DIR   promotes the replica (pg_ctl promote)
#   pg-failover.sh down DIR      stops both
#
# Pitfalls (../shared/reference/services-pitfalls.md): the servers run as the postgres
# user, so DIR must be reachable by it; unix_socket_directories = '' keeps them on TCP;
# synchronous_standby_names is given on the primary's command line only, so the promoted
# replica does not wait for a standby it does not have.
set -euo pipefail
cmd=${1:?usage: pg-failover.sh up|kill|promote|down DIR}
dir=${2:?a state directory}
base=${PG_FAILOVER_BASE:-21432}
bin=/usr/lib/postgresql/$(ls /usr/lib/postgresql | sort -V | tail -1)/bin
as_pg() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

case "$cmd" in
  up)
    mkdir -p "$dir"
    chmod 755 "$dir"
    chown postgres:postgres "$dir"
    as_pg "$bin/initdb" -D "$dir/primary" -U postgres --auth=trust >/dev/null
    printf "host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n" \
      | as_pg tee -a "$dir/primary/pg_hba.conf" >/dev/null
    as_pg "$bin/pg_ctl" -D "$dir/primary" -l "$dir/primary.log" -w start -o \
      "-p $base -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c wal_level=replica -c max_wal_senders=4 -c synchronous_standby_names='*' -c fsync=off" >/dev/null
    as_pg "$bin/pg_basebackup" -h 127.0.0.1 -p "$base" -U postgres -D "$dir/replica" -R -X stream >/dev/null
    as_pg "$bin/pg_ctl" -D "$dir/replica" -l "$dir/replica.log" -w start -o \
      "-p $((base + 1)) -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off" >/dev/null
    # The replica is streaming (synchronously) before anyone writes.
    for _ in $(seq 1 100); do
      state=$(as_pg "$bin/psql" -h 127.0.0.1 -p "$base" -U postgres -Atc \
        "select sync_state from pg_stat_replication" 2>/dev/null || true)
      [ "$state" = sync ] && break
      sleep 0.1
    done
    echo "postgres://postgres@127.0.0.1:$base,127.0.0.1:$((base + 1))/postgres?target_session_attrs=read-write"
    ;;
  kill)
    pid=$(head -1 "$dir/primary/postmaster.pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
    ;;
  promote)
    as_pg "$bin/pg_ctl" -D "$dir/replica" -w promote >/dev/null
    ;;
  down)
    for d in primary replica; do
      [ -f "$dir/$d/postmaster.pid" ] && as_pg "$bin/pg_ctl" -D "$dir/$d" -m immediate stop >/dev/null 2>&1 || true
      pid=$(head -1 "$dir/$d/postmaster.pid" 2>/dev/null || true)
      [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
    done
    ;;
  *) echo "pg-failover.sh: unknown command $cmd" >&2; exit 2 ;;
esac
