#!/usr/bin/env bash
# services.sh: makes sure the tests' PostgreSQL (127.0.0.1:5432, user postgres, trust on
# loopback) and RabbitMQ (127.0.0.1:5672, guest/guest) answer. Uses running ones; else
# starts installed ones; else installs them with apt and starts them. Never stops a
# service. Override the targets with TACKER_TEST_PG / TACKER_TEST_AMQP (then this script
# only checks them).
set -euo pipefail
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo

tcp_up() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
wait_tcp() { for _ in $(seq 1 "${3:-300}"); do tcp_up "$1" "$2" && return 0; sleep 0.2; done; return 1; }
apt_install() {
  echo "services.sh: installing $*" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >&2
}

postgres() {
  tcp_up 127.0.0.1 5432 && return 0
  if ! command -v pg_ctlcluster >/dev/null; then
    apt_install postgresql
    fresh=1
  fi
  ver=$(ls /etc/postgresql | sort -V | tail -1)
  if [ "${fresh:-0}" = 1 ]; then
    # Our own fresh install: trust loopback connections, as the tests expect.
    hba=/etc/postgresql/$ver/main/pg_hba.conf
    $sudo sed -i -E 's/^(host\s+all\s+all\s+127\.0\.0\.1\/32\s+)\S+/\1trust/; s/^(local\s+all\s+all\s+)\S+/\1trust/' "$hba"
  fi
  echo "services.sh: starting PostgreSQL $ver" >&2
  $sudo pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
  wait_tcp 127.0.0.1 5432 || { echo "PostgreSQL did not come up on 127.0.0.1:5432" >&2; exit 1; }
}

rabbitmq() {
  tcp_up 127.0.0.1 5672 && return 0
  command -v rabbitmq-server >/dev/null || apt_install rabbitmq-server
  echo "services.sh: starting RabbitMQ" >&2
  $sudo rabbitmq-server -detached || true
  wait_tcp 127.0.0.1 5672 600 || { echo "RabbitMQ did not come up on 127.0.0.1:5672" >&2; exit 1; }
}

if [ -z "${TACKER_TEST_PG:-}" ]; then postgres; fi
if [ -z "${TACKER_TEST_AMQP:-}" ]; then rabbitmq; fi
# RabbitMQ accepts TCP before AMQP logins work; wait until the guest login succeeds.
if [ -z "${TACKER_TEST_AMQP:-}" ] && command -v rabbitmqctl >/dev/null; then
  for _ in $(seq 1 150); do
    $sudo rabbitmqctl -q authenticate_user guest guest >/dev/null 2>&1 && break
    sleep 0.4
  done
fi
# Test buses use the prefix t-<12 hex>, and a test that fails before its teardown leaves
# its durable queues behind. On Debian's RabbitMQ 3.10 every quorum queue holds one of
# the broker's file handles (927 under the service's 1024 descriptors): past that, new
# connections hang in the AMQP handshake and every later test waits on the bus. A policy
# expires the tests' queues 15 minutes after their last use (one with consumers never
# expires); what earlier runs left goes now (expiry 1 s, waited for, then 15 minutes).
if [ -z "${TACKER_TEST_AMQP:-}" ] && command -v rabbitmqctl >/dev/null; then
  policy() {
    $sudo rabbitmqctl -q set_policy --apply-to queues --priority 10 tacker-tests '^t-[0-9a-f]{12}[.]' "{\"expires\": $1}" >/dev/null \
      || echo "services.sh: warning: the tests' queue expiry policy could not be set; test runs' leftover queues stay on the broker" >&2
  }
  left=$($sudo rabbitmqctl -q list_queues --no-table-headers name consumers 2>/dev/null \
    | awk '$1 ~ /^t-[0-9a-f]{12}[.]/ && $2 == 0' | wc -l || true)
  if [ "${left:-0}" -gt 0 ]; then
    echo "services.sh: removing $left queues earlier test runs left on RabbitMQ" >&2
    policy 1000
    sleep 3
  fi
  policy 900000
fi
echo "services.sh: PostgreSQL and RabbitMQ are up" >&2
