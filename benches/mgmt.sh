#!/usr/bin/env bash
# Management-driver benchmark: the example Kubernetes cluster VNF with 1 master and 2, 5
# and 10 workers (instantiation levels 1-3) on heat-sim (VMs are SSH test hosts with the
# Docker/systemctl shims; needs root), every node connected to two private registries
# (HTTP, and HTTPS with a CA and a hosts line). Prints the wall time of instantiate_end
# (install + registries on every node, nodes in parallel) beside scale_end of one new
# worker (one node alone), and the conductor's peak RSS. `tacker server` and one
# `tacker conductor` on PostgreSQL + RabbitMQ.
set -euo pipefail
BIN=${TACKER_BIN:?}
SIM=${HEAT_SIM_BIN:?}
KSIM=${KUBE_SIM_BIN:?}
PG=${TACKER_TEST_PG:-postgres://postgres@127.0.0.1:5432}
AMQP=${TACKER_TEST_AMQP:-amqp://guest:guest@127.0.0.1:5672/%2f}
[ "$(id -u)" -eq 0 ] || { echo "== mgmt: skipped: heat-sim's VMs are network namespaces (run as root)"; exit 0; }
work=$(mktemp -d)
pids=()
db=tacker_bench_mgmt_$$
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mkdir -p "$work/shims" "$work/pkg"
cp tests/infra/shims/* "$work/shims/"
printf '#!/bin/sh\nexec %s "$@"\n' "$KSIM" > "$work/shims/kube-sim"; chmod +x "$work/shims/"*
cp -r docs/examples/k8s-cluster/. "$work/pkg/"
mkdir -p "$work/pkg/Files/registries"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=bench-ca -keyout "$work/ca.key" \
  -out "$work/pkg/Files/registries/ca.crt" 2>/dev/null
"$BIN" csar pack "$work/pkg" -o "$work/k8s.zip" >/dev/null
sim_port=$(free_port)
"$SIM" --bind 127.0.0.1:$sim_port --user bench --password bench-pw --image-user ubuntu:bench-vm \
  --shims "$work/shims" 2>"$work/sim.log" >/dev/null & pids+=("$!")
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$sim_port/v3" >/dev/null 2>&1 && break; sleep 0.1; done
psql "$PG/postgres" -qc "CREATE DATABASE $db" >/dev/null
port=$(free_port); health=$(free_port)
export TACKER__SECRETS__KEYS="$("$BIN" secrets generate-key bench)" TACKER__DATABASE__URL=$PG/$db TACKER__BUS__URL=$AMQP \
  TACKER__BUS__PREFIX=bench-mgmt-$$ TACKER__STORAGE__URL=file://$work/store \
  TACKER__LOG__FILTER=${BENCH_LOG:-warn} TACKER__SERVER__BIND=127.0.0.1:$port TACKER__OUTBOUND__ALLOWED_NETWORKS=127.0.0.1/32 TACKER__LCM__SYNC_INTERVAL=0s \
  TACKER__OPENSTACK__POLL_INTERVAL=100ms
"$BIN" db migrate >/dev/null
"$BIN" server >"$work/server.log" 2>&1 & pids+=("$!")
TACKER__CONDUCTOR__ID=bench-mgmt-c1 TACKER__CONDUCTOR__CACHE_DIR=$work/cache \
  TACKER__CONDUCTOR__HEALTH_BIND=127.0.0.1:$health "$BIN" conductor >"$work/conductor.log" 2>&1 & conductor=$!; pids+=("$!")
for _ in $(seq 1 300); do curl -fsS "http://127.0.0.1:$health/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
echo "== mgmt: Kubernetes cluster VNF (1 master + N workers), every node connected to 2 registries, heat-sim SSH test hosts"
PYTHONPATH=benches python3 - "http://127.0.0.1:$port" "http://127.0.0.1:$sim_port" "$work/k8s.zip" "http://127.0.0.1:$health/metrics" <<'PY'
import re, sys, urllib.request
from lcmload import Api
api, sim, pkg, metrics = Api(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
api.onboard(pkg)
api.call("POST", f"{api.base}/v1.0/vims", {"vim": {"name": "heat-sim", "type": "openstack",
    "auth_url": f"{sim}/v3", "auth_cred": {"username": "bench", "password": "bench-pw"},
    "vim_project": {"name": "nfv"}, "is_default": True}})

def hook_sum(hook):
    text = urllib.request.urlopen(metrics).read().decode()
    m = re.search(r'tacker_mgmt_hook_duration_seconds_sum\{driver="kubernetes-cluster",hook="%s",outcome="ok"\} (\S+)' % hook, text)
    return float(m.group(1)) if m else 0.0

def node(cp):
    return {"ssh_cp_name": cp, "nic_cp_name": cp, "username": "ubuntu", "password": "bench-vm"}

params = {"k8s_cluster_installation_param": {
    "script_path": "Scripts/install_k8s_cluster.sh", "vim_name": "bench-cluster",
    "master_node": dict(node("masterNode_CP1"), aspect_id="master_instance", cluster_cp_name="masterNode_CP1"),
    "worker_node": dict(node("workerNode_CP2"), aspect_id="worker_instance"),
    "private_registry_connection_info": [
        {"connection_type": "0", "server": "10.250.250.10:5000"},
        {"connection_type": "1", "server": "registry.bench.test:5443",
         "certificate_path": "Files/registries/ca.crt", "hosts_string": "10.250.250.11 registry.bench.test"}]}}
ext = [{"id": f"net-{cp}", "resourceId": "net0", "extCps": [{"cpdId": cp, "cpConfig": {f"{cp}_1": {"cpProtocolData": [
    {"layerProtocol": "IP_OVER_ETHERNET", "ipOverEthernet": {"ipAddresses": [{"type": "IPV4", "numDynamicAddresses": 1}]}}]}}}]}
    for cp in ("masterNode_CP1", "workerNode_CP2")]
print(f"    {'workers':>7}  {'instantiate_end':>15}  {'one node (scale_end)':>20}  {'ratio':>5}  operation wall")
for level, workers in (("instantiation_level_1", 2), ("instantiation_level_2", 5), ("instantiation_level_3", 10)):
    i = api.create("c0ffee00-0000-4000-8000-000000c1a57e")
    before = hook_sum("instantiate_end")
    o = api.task(i, "instantiate", {"flavourId": "simple", "instantiationLevelId": level,
        "additionalParams": params, "extVirtualLinks": ext})
    if o["operationState"] != "COMPLETED":
        print("    instantiate failed:", o.get("error")); break
    inst = hook_sum("instantiate_end") - before
    before = hook_sum("scale_end")
    o = api.task(i, "scale", {"type": "SCALE_OUT", "aspectId": "worker_instance"})
    one = hook_sum("scale_end") - before
    print(f"    {workers:>7}  {inst:>14.2f}s  {one:>19.2f}s  {inst / one if one else float('nan'):>5.1f}  "
          f"instantiate {api.durations['INSTANTIATE'][-1]:.1f}s")
    api.task(i, "terminate", {"terminationType": "FORCEFUL"})
    api.delete(i)
PY
printf '    conductor peak RSS %.1f MiB\n' "$(awk '/VmHWM/ {print $2/1024}' /proc/$conductor/status)"
