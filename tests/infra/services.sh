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
echo "services.sh: PostgreSQL and RabbitMQ are up" >&2
