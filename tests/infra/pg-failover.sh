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
#   pg-failover.sh stop DIR      stops the current primary (fast shutdown)
#   pg-failover.sh start DIR     starts the current primary again (the replica once
#                                promoted)
#   pg-failover.sh down DIR      stops both
#
# Pitfalls (../shared/reference/services-pitfalls.md): the servers run as the postgres
# user, so DIR must be reachable by it; unix_socket_directories = '' keeps them on TCP;
# synchronous_standby_names is given on the primary's command line only, so the promoted
# replica does not wait for a standby it does not have.
set -euo pipefail
cmd=${1:?usage: pg-failover.sh up|kill|promote|stop|start|down DIR}
dir=${2:?a state directory}
base=${PG_FAILOVER_BASE:-21432}
bin=/usr/lib/postgresql/$(ls /usr/lib/postgresql | sort -V | tail -1)/bin
as_pg() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

# Sends signal $2 to the postmaster of data directory $1 if it still runs: after a kill its
# postmaster.pid names a dead process whose PID may have gone to another process since
# (pid_max is 32768 on machines of CI's kind), so the PID is checked to be that
# directory's postmaster before anything is sent to it.
kill_postmaster() {
  local pid
  pid=$(head -1 "$1/postmaster.pid" 2>/dev/null || true)
  [ -n "$pid" ] || return 0
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-D $1" || return 0
  kill "-$2" "$pid" 2>/dev/null || true
  [ "$2" = KILL ] && return 0
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

case "$cmd" in
  up)
    mkdir -p "$dir"
    chmod 755 "$dir"
    chown postgres:postgres "$dir"
    as_pg "$bin/initdb" -D "$dir/primary" -U postgres --auth=trust >/dev/null
    printf "host all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n" \
      | as_pg tee -a "$dir/primary/pg_hba.conf" >/dev/null
    echo "-p $base -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c wal_level=replica -c max_wal_senders=4 -c synchronous_standby_names='*' -c fsync=off -c max_connections=200" > "$dir/primary.opts"
    echo "-p $((base + 1)) -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off -c max_connections=200" > "$dir/replica.opts"
    echo primary > "$dir/current"
    as_pg "$bin/pg_ctl" -D "$dir/primary" -l "$dir/primary.log" -w start -o "$(cat "$dir/primary.opts")" >/dev/null
    as_pg "$bin/pg_basebackup" -h 127.0.0.1 -p "$base" -U postgres -D "$dir/replica" -R -X stream >/dev/null
    as_pg "$bin/pg_ctl" -D "$dir/replica" -l "$dir/replica.log" -w start -o "$(cat "$dir/replica.opts")" >/dev/null
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
    kill_postmaster "$dir/primary" KILL
    ;;
  promote)
    as_pg "$bin/pg_ctl" -D "$dir/replica" -w promote >/dev/null
    echo replica > "$dir/current"
    ;;
  stop)
    cur=$(cat "$dir/current")
    as_pg "$bin/pg_ctl" -D "$dir/$cur" -m fast -w stop >/dev/null
    ;;
  start)
    cur=$(cat "$dir/current")
    as_pg "$bin/pg_ctl" -D "$dir/$cur" -l "$dir/$cur.log" -w start -o "$(cat "$dir/$cur.opts")" >/dev/null
    ;;
  down)
    # pg_ctl stop would signal whatever holds a stale postmaster.pid's PID: checked here
    # (SIGQUIT is an immediate shutdown: the postmaster ends its backends too).
    for d in primary replica; do
      kill_postmaster "$dir/$d" QUIT
    done
    ;;
  *) echo "pg-failover.sh: unknown command $cmd" >&2; exit 2 ;;
esac
