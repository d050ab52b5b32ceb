#!/usr/bin/env bash
# monitoring.sh: Prometheus and Alertmanager for the closed-loop tests and walkthrough.
#
#   monitoring.sh install
#       Installs Debian's prometheus and prometheus-alertmanager when missing, without
#       starting their system services (a policy-rc.d forbids it while apt runs).
#   monitoring.sh start DIR PROMETHEUS_PORT ALERTMANAGER_PORT [PROMETHEUS_FLAG...]
#       Starts both on 127.0.0.1 with DIR/prometheus.yml (rule files in DIR/rules) and
#       DIR/alertmanager.yml, data in DIR; prints "prometheus <pid>" and
#       "alertmanager <pid>" once both answer (logs: DIR/*.log). The caller ends them.
#   monitoring.sh config DIR
#       Writes DIR/prometheus.yml and DIR/alertmanager.yml from docs/examples/monitoring,
#       for the VNFM at $TACKER_URL (http://127.0.0.1:9890), the cluster metrics at
#       $KUBERNETES (127.0.0.1:6443) and Alertmanager on $ALERTMANAGER_PORT (9093); makes
#       DIR/rules. Files already there are kept.
#   monitoring.sh demo DIR
#       config, then start on $PROMETHEUS_PORT (9090) and $ALERTMANAGER_PORT (9093) in the
#       foreground until interrupted (`make monitoring`).
set -euo pipefail
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo

install() {
  if command -v prometheus >/dev/null && command -v prometheus-alertmanager >/dev/null \
    && command -v promtool >/dev/null && command -v curl >/dev/null; then
    return 0
  fi
  echo "monitoring.sh: installing prometheus and prometheus-alertmanager" >&2
  policy=/usr/sbin/policy-rc.d
  had_policy=0; [ -e "$policy" ] && had_policy=1
  if [ "$had_policy" = 0 ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 0755 "$policy"
  fi
  trap '[ "$had_policy" = 0 ] && $sudo rm -f "$policy"' EXIT
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    prometheus prometheus-alertmanager curl >&2
}

wait_http() {
  for _ in $(seq 1 150); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}

start() {
  local dir=$1 pport=$2 aport=$3
  shift 3
  mkdir -p "$dir/rules" "$dir/prometheus-data" "$dir/alertmanager-data"
  prometheus-alertmanager --config.file="$dir/alertmanager.yml" \
    --storage.path="$dir/alertmanager-data" \
    --web.listen-address="127.0.0.1:$aport" \
    --cluster.listen-address="" >"$dir/alertmanager.log" 2>&1 &
  local am=$!
  prometheus --config.file="$dir/prometheus.yml" \
    --storage.tsdb.path="$dir/prometheus-data" \
    --web.listen-address="127.0.0.1:$pport" \
    --web.enable-lifecycle "$@" >"$dir/prometheus.log" 2>&1 &
  local prom=$!
  if ! wait_http "http://127.0.0.1:$aport/-/ready" || ! wait_http "http://127.0.0.1:$pport/-/ready"; then
    kill "$am" "$prom" 2>/dev/null || true
    echo "monitoring.sh: Prometheus or Alertmanager did not come up (see $dir/*.log)" >&2
    tail -n 5 "$dir"/*.log >&2 || true
    exit 1
  fi
  echo "prometheus $prom"
  echo "alertmanager $am"
}

config() {
  local dir=$1 examples
  examples="$(cd "$(dirname "$0")/../.." && pwd)/docs/examples/monitoring"
  mkdir -p "$dir/rules"
  local tacker=${TACKER_URL:-http://127.0.0.1:9890} kubernetes=${KUBERNETES:-127.0.0.1:6443}
  local am="127.0.0.1:${ALERTMANAGER_PORT:-9093}"
  for f in prometheus.yml alertmanager.yml; do
    [ -e "$dir/$f" ] && continue
    sed -e "s|@TACKER@|$tacker|g" -e "s|@KUBERNETES@|$kubernetes|g" \
      -e "s|@ALERTMANAGER@|$am|g" "$examples/$f" >"$dir/$f"
  done
}

demo() {
  local dir=$1
  install
  config "$dir"
  # Global: the EXIT trap runs after this function returned.
  pids=$(start "$dir" "${PROMETHEUS_PORT:-9090}" "${ALERTMANAGER_PORT:-9093}" | awk '{print $2}')
  # shellcheck disable=SC2086
  trap 'kill $pids 2>/dev/null || true' EXIT INT TERM
  echo "Prometheus http://127.0.0.1:${PROMETHEUS_PORT:-9090}, Alertmanager" \
    "http://127.0.0.1:${ALERTMANAGER_PORT:-9093}; rules in $dir/rules (Ctrl-C ends both)" >&2
  # shellcheck disable=SC2086
  while kill -0 $pids 2>/dev/null; do sleep 1; done
}

case "${1:-install}" in
  install) install ;;
  start) shift; start "$@" ;;
  config) config "$2" ;;
  demo) demo "$2" ;;
  *) echo "usage: monitoring.sh [install | start DIR PROMETHEUS_PORT ALERTMANAGER_PORT [PROMETHEUS_FLAG...] | config DIR | demo DIR]" >&2; exit 2 ;;
esac
