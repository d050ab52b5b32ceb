#!/usr/bin/env bash
# rabbitmq-cluster.sh: a three-node RabbitMQ cluster on loopback for the bus's cluster
# tests (Debian rabbitmq-server, as services.sh installs it), beside the system broker
# and never touching it: nodes tq1..tq3@localhost, AMQP on 127.0.0.1:$BASE+1..3 (BASE
# 21670: below the ephemeral ports), distribution ports $BASE+11..13, an epmd of its own on $BASE+20, one cookie,
# state under DIR.
#
#   rabbitmq-cluster.sh up DIR        starts the three nodes and joins tq2, tq3 to tq1;
#                                     prints the three AMQP URLs, comma-separated
#   rabbitmq-cluster.sh kill DIR N    SIGKILLs node N (1..3)
#   rabbitmq-cluster.sh start DIR N   starts node N again on its data (it rejoins)
#   rabbitmq-cluster.sh wipe DIR N    SIGKILLs node N and deletes its data directory
#                                     (a node whose disk was lost)
#   rabbitmq-cluster.sh rejoin DIR N  makes the live nodes forget node N, starts it empty,
#                                     joins it and grows every quorum queue back onto it
#   rabbitmq-cluster.sh leader DIR Q  the node (1..3) leading quorum queue Q
#   rabbitmq-cluster.sh members DIR Q the nodes (1..3) holding a replica of quorum queue
#                                     Q, space-separated
#   rabbitmq-cluster.sh down DIR      stops every node and the epmd
#
# Pitfalls (../shared/reference/services-pitfalls.md): the Debian wrappers switch to the
# rabbitmq user and the system cookie, so the scripts they wrap run as root with HOME =
# a private directory holding .erlang.cookie and an empty RABBITMQ_CONF_ENV_FILE; the
# system rabbitmq.conf (listeners on 5672) and enabled plugins are replaced by files of
# our own; await_startup fails at once until a node registered with epmd: retry.
set -euo pipefail
cmd=${1:?usage: rabbitmq-cluster.sh up|kill|start|leader|down DIR [N|QUEUE]}
dir=${2:?a state directory}
base=${RABBITMQ_CLUSTER_BASE:-21670}
sbin=$(ls -d /usr/lib/rabbitmq/lib/rabbitmq_server-*/sbin | tail -1)
export ERL_EPMD_PORT=$((base + 20)) ERL_EPMD_ADDRESS=127.0.0.1 HOME=$dir/home
export RABBITMQ_CONF_ENV_FILE=$dir/empty.env RABBITMQ_ENABLED_PLUGINS_FILE=$dir/enabled_plugins
# A node or CLI that fails to start writes its crash dump here, not into the caller's
# working directory.
export ERL_CRASH_DUMP=$dir/erl_crash.dump

node_env() {
  local n=$1
  export RABBITMQ_NODENAME=tq$n@localhost RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
  export RABBITMQ_NODE_PORT=$((base + n)) RABBITMQ_DIST_PORT=$((base + 10 + n))
  export RABBITMQ_MNESIA_BASE=$dir/mnesia RABBITMQ_LOG_BASE=$dir/log
  export RABBITMQ_CONFIG_FILE=$dir/tq$n RABBITMQ_PID_FILE=$dir/tq$n.pid
  export ERL_FLAGS="-kernel inet_dist_use_interface {127,0,0,1}"
}

# SIGKILLs the process of pid file $1 if it is still ours: after a kill the file names a
# dead process, and its PID may have gone to another process since (pid_max is 32768 on
# machines of CI's kind, and a test run starts thousands).
kill_ours() {
  local pid
  pid=$(cat "$1" 2>/dev/null || true)
  [ -n "$pid" ] || return 0
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "${2:-$dir}" || return 0
  kill -9 "$pid" 2>/dev/null || true
}

ctl() { local n=$1; shift; node_env "$n"; "$sbin/rabbitmqctl" -n "tq$n@localhost" "$@"; }
queues() { local n=$1; shift; node_env "$n"; "$sbin/rabbitmq-queues" -n "tq$n@localhost" "$@"; }

# A node other than $1 that answers.
other_live() {
  for m in 1 2 3; do
    [ "$m" = "$1" ] && continue
    ctl "$m" -q ping >/dev/null 2>&1 && { echo "$m"; return 0; }
  done
  echo "rabbitmq-cluster.sh: no live node besides tq$1" >&2
  return 1
}

await() {
  for _ in $(seq 1 120); do
    ctl "$1" await_startup --timeout 5 >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "rabbitmq-cluster.sh: node tq$1 did not start; see $dir/log" >&2
  tail -20 "$dir/log/tq$1@localhost.log" >&2 || true
  return 1
}

start_node() {
  local n=$1
  node_env "$n"
  printf 'listeners.tcp.local = 127.0.0.1:%s\nloopback_users = none\n' "$((base + n))" > "$dir/tq$n.conf"
  setsid "$sbin/rabbitmq-server" > "$dir/log/tq$n.out" 2>&1 < /dev/null &
  echo $! > "$dir/tq$n.server-pid"
}

case "$cmd" in
  up)
    mkdir -p "$dir/home" "$dir/log" "$dir/mnesia"
    : > "$dir/empty.env"
    echo '[].' > "$dir/enabled_plugins"
    [ -f "$dir/home/.erlang.cookie" ] || { head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z' > "$dir/home/.erlang.cookie"; chmod 400 "$dir/home/.erlang.cookie"; }
    setsid epmd -port "$ERL_EPMD_PORT" -address 127.0.0.1 > "$dir/log/epmd.out" 2>&1 < /dev/null &
    echo $! > "$dir/epmd.pid"
    for n in 1 2 3; do start_node "$n"; done
    for n in 1 2 3; do await "$n"; done
    for n in 2 3; do
      ctl "$n" stop_app >/dev/null
      ctl "$n" join_cluster tq1@localhost >/dev/null
      ctl "$n" start_app >/dev/null
    done
    echo "amqp://guest:guest@127.0.0.1:$((base + 1))/%2f,amqp://guest:guest@127.0.0.1:$((base + 2))/%2f,amqp://guest:guest@127.0.0.1:$((base + 3))/%2f"
    ;;
  kill)
    n=${3:?N}
    kill_ours "$dir/tq$n.pid"
    kill_ours "$dir/tq$n.server-pid"
    ;;
  start)
    n=${3:?N}
    start_node "$n"
    await "$n"
    ;;
  wipe)
    n=${3:?N}
    kill_ours "$dir/tq$n.pid"
    kill_ours "$dir/tq$n.server-pid"
    rm -rf "$dir/mnesia/tq$n@localhost" "$dir/mnesia/tq$n@localhost-feature_flags" \
      "$dir/mnesia/tq$n@localhost-plugins-expand"
    ;;
  rejoin)
    n=${3:?N}
    m=$(other_live "$n")
    ctl "$m" forget_cluster_node "tq$n@localhost" >/dev/null
    start_node "$n"
    await "$n"
    ctl "$n" stop_app >/dev/null
    ctl "$n" join_cluster "tq$m@localhost" >/dev/null
    ctl "$n" start_app >/dev/null
    queues "$n" grow "tq$n@localhost" all >/dev/null
    ;;
  members)
    q=${3:?QUEUE}
    m=$(other_live 0)
    ctl "$m" list_queues -q --no-table-headers name members \
      | awk -v q="$q" '$1 == q { $1 = ""; print }' | grep -o 'tq[0-9]' | tr -d tq | sort | xargs
    ;;
  leader)
    q=${3:?QUEUE}
    for n in 1 2 3; do
      out=$(ctl "$n" list_queues -q --no-table-headers name leader 2>/dev/null) || continue
      awk -v q="$q" '$1 == q { sub(/^tq/, "", $2); sub(/@.*/, "", $2); print $2; exit }' <<<"$out"
      exit 0
    done
    exit 1
    ;;
  down)
    for n in 1 2 3; do
      kill_ours "$dir/tq$n.pid"
      kill_ours "$dir/tq$n.server-pid"
    done
    kill_ours "$dir/epmd.pid" "-port $ERL_EPMD_PORT"
    ;;
  *) echo "rabbitmq-cluster.sh: unknown command $cmd" >&2; exit 2 ;;
esac
