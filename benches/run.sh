#!/usr/bin/env bash
# Runs every benchmark; see benches/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# need COMMAND PACKAGE: installs Debian's PACKAGE when COMMAND is missing.
need() {
  command -v "$1" >/dev/null && return
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  [ -n "${updated:-}" ] || { $sudo apt-get update -qq; updated=1; }
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$2" >&2
}
need wrk wrk
need bc bc
# perf: the api benchmark's profiles of where the time goes.
need perf linux-perf
cargo build --release -p tacker -p kube-sim -p heat-sim >&2
export TACKER_BIN=$PWD/target/release/tacker KUBE_SIM_BIN=$PWD/target/release/kube-sim \
  HEAT_SIM_BIN=$PWD/target/release/heat-sim
# Each run's output is kept (target/bench/latest.txt, the one before as previous.txt):
# the goals are read off it and compared with the previous run.
out=target/bench
mkdir -p "$out"
[ -f "$out/latest.txt" ] && mv "$out/latest.txt" "$out/previous.txt"
# BENCH_ONLY="alert cnf": only those.
for b in api tacker auth scale csar onboard onboard_many cnf alert vm mgmt ha import; do
  if [ -n "${BENCH_ONLY:-}" ] && [[ " $BENCH_ONLY " != *" $b "* ]]; then continue; fi
  "benches/$b.sh"
done | tee "$out/latest.txt"
previous=()
[ -f "$out/previous.txt" ] && previous=("$out/previous.txt")
benches/goals.py "$out/latest.txt" "${previous[@]}"
if [ -f "$out/previous.txt" ]; then
  echo "== against the previous run (benches/compare.py)"
  benches/compare.py "$out/previous.txt" "$out/latest.txt" || true
fi
