#!/usr/bin/env bash
# Runs every benchmark; see benches/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || {
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq wrk >&2
}
command -v bc >/dev/null || {
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq bc >&2
}
cargo build --release -p tacker -p kube-sim -p heat-sim >&2
export TACKER_BIN=$PWD/target/release/tacker KUBE_SIM_BIN=$PWD/target/release/kube-sim \
  HEAT_SIM_BIN=$PWD/target/release/heat-sim
# BENCH_ONLY="alert cnf": only those.
for b in api auth scale csar onboard onboard_many cnf alert vm mgmt ha; do
  if [ -n "${BENCH_ONLY:-}" ] && [[ " $BENCH_ONLY " != *" $b "* ]]; then continue; fi
  "benches/$b.sh"
done
