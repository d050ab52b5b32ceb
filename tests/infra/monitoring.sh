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
    tail -5 "$dir"/*.log >&2 || true
    exit 1
  fi
  echo "prometheus $prom"
  echo "alertmanager $am"
}

case "${1:-install}" in
  install) install ;;
  start) shift; start "$@" ;;
  *) echo "usage: monitoring.sh [install | start DIR PROMETHEUS_PORT ALERTMANAGER_PORT [PROMETHEUS_FLAG...]]" >&2; exit 2 ;;
esac
