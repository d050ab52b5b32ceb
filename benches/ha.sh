#!/usr/bin/env bash
# HA benchmark: recovery times from the failover tests, run once each and their
# measurements printed: a three-node RabbitMQ cluster losing the node that leads the
# conductors' quorum queue (fault -> first cast handled), and a PostgreSQL primary
# SIGKILLed with its synchronous replica promoted a second later (fault -> first request
# served). Needs root (the brokers' and PostgreSQL's scripts), like the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== ha: recovery after a broker node and after the database primary are lost"
cargo nextest run -p tacker-rpc -p tacker --no-capture \
  -E 'test(casts_survive_the_loss_of_the_node_leading_the_shared_queue) | test(a_database_failover_is_503_during_the_switch)' 2>&1 |
  grep -E "^node .* killed|^answers " | sed 's/^/  /'
