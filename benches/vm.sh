#!/usr/bin/env bash
# VM benchmark: BENCH_VM_INSTANCES (default 20) VNFs of the example VM package (2 VMs
# each), each instantiated, scaled out and in, healed (SOL002, one VNFC) and terminated,
# BENCH_VM_CONCURRENCY (default 5) at a time, on heat-sim whose VMs are SSH test hosts
# (needs root); `tacker server` with 1, then 3 `tacker conductor` processes on
# PostgreSQL + RabbitMQ. Prints, per operation, the control overhead p50/p99 (the
# occurrence's startTime -> COMPLETED, VM start-up included), then CPU seconds per
# operation of the control plane (server + conductors) beside heat-sim's own and its
# test hosts' start-up (the host scripts heat-sim runs).
set -euo pipefail
BIN=${TACKER_BIN:?}
SIM=${HEAT_SIM_BIN:?}
N=${BENCH_VM_INSTANCES:-20}
C=${BENCH_VM_CONCURRENCY:-5}
PG=${TACKER_TEST_PG:-postgres://postgres@127.0.0.1:5432}
AMQP=${TACKER_TEST_AMQP:-amqp://guest:guest@127.0.0.1:5672/%2f}
[ "$(id -u)" -eq 0 ] || { echo "== vm: skipped: heat-sim's VMs are network namespaces (run as root)"; exit 0; }
work=$(mktemp -d)
pids=()
dbs=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  for d in "${dbs[@]}"; do psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu() { awk '{print ($14+$15)/100}' "/proc/$1/stat"; }
children_cpu() { awk '{print ($16+$17)/100}' "/proc/$1/stat"; }
"$BIN" csar pack docs/examples/vm -o "$work/vm.zip" >/dev/null
echo "== vm: $N VNFs x (instantiate, scale out, scale in, SOL002 heal, terminate), $C at a time, heat-sim with SSH test hosts"
for conductors in 1 3; do
  sim_port=$(free_port)
  "$SIM" --bind 127.0.0.1:$sim_port --user bench --password bench-pw 2>"$work/sim-$conductors.log" >/dev/null & sim=$!; pids+=("$sim")
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$sim_port/v3" >/dev/null 2>&1 && break; sleep 0.1; done
  db=tacker_bench_vm_${conductors}_$$; dbs+=("$db")
  psql "$PG/postgres" -qc "CREATE DATABASE $db" >/dev/null
  port=$(free_port)
  export TACKER__SECRETS__KEYS="$("$BIN" secrets generate-key bench)" TACKER__DATABASE__URL=$PG/$db TACKER__BUS__URL=$AMQP \
    TACKER__BUS__PREFIX=bench-vm-$conductors-$$ TACKER__STORAGE__URL=file://$work/store-$conductors \
    TACKER__LOG__FILTER=${BENCH_LOG:-warn} TACKER__SERVER__BIND=127.0.0.1:$port TACKER__OUTBOUND__ALLOWED_NETWORKS=127.0.0.1/32 TACKER__LCM__SYNC_INTERVAL=0s \
    TACKER__OPENSTACK__POLL_INTERVAL=100ms
  "$BIN" db migrate >/dev/null
  "$BIN" server >"$work/server-$conductors.log" 2>&1 & run=("$!"); pids+=("$!")
  for n in $(seq 1 "$conductors"); do
    TACKER__CONDUCTOR__ID=bench-$conductors-c$n TACKER__CONDUCTOR__CACHE_DIR=$work/cache-$conductors/c$n \
      TACKER__CONDUCTOR__HEALTH_BIND=127.0.0.1:$(free_port) "$BIN" conductor >"$work/c$conductors-$n.log" 2>&1 &
    run+=("$!"); pids+=("$!")
  done
  for _ in $(seq 1 300); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  sleep 1
  before=0; for p in "${run[@]}"; do before=$(echo "$before + $(cpu "$p")" | bc); done
  sim_before=$(cpu "$sim"); hosts_before=$(children_cpu "$sim")
  PYTHONPATH=benches python3 - "http://127.0.0.1:$port" "http://127.0.0.1:$sim_port" "$work/vm.zip" "$N" "$C" "$conductors" "$work/ops" <<'PY'
import sys
from lcmload import Api
api, sim, pkg, n, c, conductors = Api(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
api.onboard(pkg)
_, _, v = api.call("POST", f"{api.base}/v1.0/vims", {"vim": {"name": "heat-sim", "type": "openstack",
    "auth_url": f"{sim}/v3", "auth_cred": {"username": "bench", "password": "bench-pw"},
    "vim_project": {"name": "nfv"}, "is_default": True}})
def one(k):
    i = api.create("c0ffee00-0000-4000-8000-0000000076d0")
    api.task(i, "instantiate", {"flavourId": "simple"})
    api.task(i, "scale", {"type": "SCALE_OUT", "aspectId": "VDU1_scale"}, "SCALE_OUT")
    api.task(i, "scale", {"type": "SCALE_IN", "aspectId": "VDU1_scale"}, "SCALE_IN")
    v = api.instance(i)
    vnfc = next(x["id"] for x in v["instantiatedVnfInfo"]["vnfcInfo"] if x["vduId"] == "VDU2")
    api.task(i, "heal", {"vnfcInstanceId": [vnfc]})
    api.task(i, "terminate", {"terminationType": "FORCEFUL"})
    api.delete(i)
done = api.phase(f"{n} VNFs, {c} at a time", n, c, one, f"{conductors} conductor(s)")
open(sys.argv[7], "w").write(str(done))
PY
  ops=$(cat "$work/ops" 2>/dev/null || echo 0)
  after=0; for p in "${run[@]}"; do after=$(echo "$after + $(cpu "$p")" | bc); done
  if [ "$ops" -gt 0 ]; then
    printf '    CPU ms per operation: control plane %.0f (server + %s conductor(s)), heat-sim %.0f, test hosts start-up %.0f\n' \
      "$(echo "($after - $before) * 1000 / $ops" | bc -l)" "$conductors" \
      "$(echo "($(cpu "$sim") - $sim_before) * 1000 / $ops" | bc -l)" \
      "$(echo "($(children_cpu "$sim") - $hosts_before) * 1000 / $ops" | bc -l)"
  fi
  for p in "${run[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${run[@]}"; do wait "$p" 2>/dev/null || true; done
  kill "$sim" 2>/dev/null || true; wait "$sim" 2>/dev/null || true
done
