#!/usr/bin/env bash
# CNF benchmark: BENCH_CNF_INSTANCES (default 100) instances of the example CNF, each
# instantiated, healed (SOL002, one Deployment Pod) and terminated, BENCH_CNF_CONCURRENCY
# (default 10) at a time, against kube-sim with a zero readiness delay; `tacker server`
# with 1, then 3 `tacker conductor` processes on PostgreSQL + RabbitMQ. Prints, per
# operation, the control overhead (the occurrence's startTime -> COMPLETED, as the server
# records it) p50/p99, and completed operations per minute; then the same for 10
# instances one at a time (the overhead without contention for the 2 cores). Then
# BENCH_CNF_UPGRADES (default 50) instances upgraded (change_vnfpkg to a v2 package with
# new images: every workload rolled), BENCH_CNF_CONCURRENCY at a time. Then
# BENCH_HELM_INSTANCES (default 20) instances of the Helm example (ETSINFV.HELM.V_3, the
# helm binary of HELM_BIN or PATH) instantiated, scaled out, upgraded to a v2 chart and
# terminated: the same figures, helm's own run time included.
set -euo pipefail
BIN=${TACKER_BIN:?}
SIM=${KUBE_SIM_BIN:?}
N=${BENCH_CNF_INSTANCES:-100}
U=${BENCH_CNF_UPGRADES:-50}
H=${BENCH_HELM_INSTANCES:-20}
HELM=${HELM_BIN:-$(command -v helm || echo "$PWD/.tools/bin/helm")}
C=${BENCH_CNF_CONCURRENCY:-10}
PG=${TACKER_TEST_PG:-postgres://postgres@127.0.0.1:5432}
AMQP=${TACKER_TEST_AMQP:-amqp://guest:guest@127.0.0.1:5672/%2f}
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
sim_port=$(free_port)
"$SIM" --bind 127.0.0.1:$sim_port --ready-delay 0 --terminate-delay 0 --nodes 2 2>"$work/sim.log" & pids+=("$!")
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$sim_port/version" >/dev/null 2>&1 && break; sleep 0.1; done
most=$(( N > U ? N : U )); most=$(( most > H ? most : H ))
for i in $(seq 1 "$most"); do
  curl -fsS -H 'Content-Type: application/json' -d "{\"metadata\":{\"name\":\"bench-$i\"}}" \
    "http://127.0.0.1:$sim_port/api/v1/namespaces" >/dev/null
done
"$BIN" csar pack docs/examples/cnf -o "$work/cnf.zip" >/dev/null
# v2: another vnfdId, new images.
cp -r docs/examples/cnf "$work/cnf-v2"
sed -i 's/00000000c4f0/0000000002f0/' "$work/cnf-v2/Definitions/cnf_types.yaml"
for f in pod deployment statefulset daemonset; do
  sed -i 's/^\(\s*image: [a-z]*\)$/\1:v2/' "$work/cnf-v2/Files/kubernetes/$f.yaml"
done
"$BIN" csar pack "$work/cnf-v2" -o "$work/cnf-v2.zip" >/dev/null
"$BIN" csar pack docs/examples/helm-cnf -o "$work/helm.zip" >/dev/null
cp -r docs/examples/helm-cnf "$work/helm-v2"
sed -i 's/000000004e10/000000004e20/' "$work/helm-v2/Definitions/helm_types.yaml"
sed -i 's/^  vdu1: nginx$/  vdu1: nginx:v2/; s/^  vdu2: postgres$/  vdu2: postgres:v2/' "$work/helm-v2/Files/kubernetes/test-chart/values.yaml"
"$BIN" csar pack "$work/helm-v2" -o "$work/helm-v2.zip" >/dev/null
echo "== cnf: $N instances x (instantiate, SOL002 heal, terminate), $C at a time, kube-sim (ready delay 0)"
for conductors in 1 3; do
  db=tacker_bench_cnf_${conductors}_$$; dbs+=("$db")
  psql "$PG/postgres" -qc "CREATE DATABASE $db" >/dev/null
  port=$(free_port)
  export TACKER__SECRETS__KEYS="$("$BIN" secrets generate-key bench)" TACKER__DATABASE__URL=$PG/$db TACKER__BUS__URL=$AMQP TACKER__BUS__PREFIX=bench-cnf-$conductors-$$ \
    TACKER__STORAGE__URL=file://$work/store-$conductors TACKER__LOG__FILTER=${BENCH_LOG:-warn} \
    TACKER__SERVER__BIND=127.0.0.1:$port TACKER__OUTBOUND__ALLOWED_NETWORKS=127.0.0.1/32 TACKER__LCM__SYNC_INTERVAL=0s \
    TACKER__HELM__BINARY=$HELM
  "$BIN" db migrate >/dev/null
  "$BIN" server >"$work/server-$conductors.log" 2>&1 & run=("$!"); pids+=("$!")
  for n in $(seq 1 "$conductors"); do
    TACKER__CONDUCTOR__ID=bench-$conductors-c$n TACKER__CONDUCTOR__CACHE_DIR=$work/cache-$conductors/c$n \
      TACKER__CONDUCTOR__HEALTH_BIND=127.0.0.1:$(free_port) "$BIN" conductor >"$work/c$conductors-$n.log" 2>&1 &
    run+=("$!"); pids+=("$!")
  done
  for _ in $(seq 1 300); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
  sleep 1
  PYTHONPATH=benches python3 - "http://127.0.0.1:$port" "http://127.0.0.1:$sim_port" "$work/cnf.zip" "$N" "$C" "$conductors" <<'PY'
import sys
from lcmload import Api
api, sim, pkg, n, c, conductors = Api(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
api.onboard(pkg)
files = ["Files/kubernetes/config.yaml", "Files/kubernetes/pod.yaml", "Files/kubernetes/deployment.yaml",
         "Files/kubernetes/replicaset.yaml", "Files/kubernetes/statefulset.yaml", "Files/kubernetes/daemonset.yaml"]
vim = {"k8s": {"vimType": "ETSINFV.KUBERNETES.V_1", "interfaceInfo": {"endpoint": sim}, "accessInfo": {"bearer_token": "bench"}}}
def one(k):
    i = api.create("c0ffee00-0000-4000-8000-00000000c4f0")
    api.task(i, "instantiate", {"flavourId": "simple", "vimConnectionInfo": vim,
                                "additionalParams": {"lcm-kubernetes-def-files": files, "namespace": f"bench-{k}"}})
    v = api.instance(i)
    vnfc = next(x["id"] for x in v["instantiatedVnfInfo"]["vnfcInfo"] if x["vduId"] == "VDU2")
    api.task(i, "heal", {"vnfcInstanceId": [vnfc]})
    api.task(i, "terminate", {"terminationType": "FORCEFUL"})
    api.delete(i)
who = f"{conductors} conductor(s)"
api.phase(f"{n} instances, {c} at a time", n, c, one, who)
api.phase(f"{min(n, 10)} instances one at a time", min(n, 10), 1, one, who)
PY
  PYTHONPATH=benches python3 - "http://127.0.0.1:$port" "http://127.0.0.1:$sim_port" "$work/cnf-v2.zip" "$U" "$C" "$conductors" <<'PY'
import sys
from lcmload import Api
api, sim, pkg, n, c, conductors = Api(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
api.onboard(pkg)
files = ["Files/kubernetes/config.yaml", "Files/kubernetes/pod.yaml", "Files/kubernetes/deployment.yaml",
         "Files/kubernetes/replicaset.yaml", "Files/kubernetes/statefulset.yaml", "Files/kubernetes/daemonset.yaml"]
vim = {"k8s": {"vimType": "ETSINFV.KUBERNETES.V_1", "interfaceInfo": {"endpoint": sim}, "accessInfo": {"bearer_token": "bench"}}}
def one(k):
    i = api.create("c0ffee00-0000-4000-8000-00000000c4f0")
    api.task(i, "instantiate", {"flavourId": "simple", "vimConnectionInfo": vim,
                                "additionalParams": {"lcm-kubernetes-def-files": files, "namespace": f"bench-{k}"}})
    api.task(i, "change_vnfpkg", {"vnfdId": "c0ffee00-0000-4000-8000-0000000002f0",
                                  "additionalParams": {"upgrade_type": "RollingUpdate", "lcm-kubernetes-def-files": files}})
    api.task(i, "terminate", {"terminationType": "FORCEFUL"})
    api.delete(i)
api.phase(f"{n} upgrades (change_vnfpkg), {c} at a time", n, c, one, f"{conductors} conductor(s)")
PY
  PYTHONPATH=benches python3 - "http://127.0.0.1:$port" "http://127.0.0.1:$sim_port" "$work/helm.zip" "$work/helm-v2.zip" "$H" "$C" "$conductors" <<'PY'
import sys
from lcmload import Api
api, sim, n, c, conductors = Api(sys.argv[1]), sys.argv[2], int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
api.onboard(sys.argv[3])
api.onboard(sys.argv[4])
vim = {"helm": {"vimType": "ETSINFV.HELM.V_3", "interfaceInfo": {"endpoint": sim}, "accessInfo": {"bearer_token": "bench"}}}
chart = "Files/kubernetes/test-chart"
names = {"VDU1": {"replica": "replicaCountVdu1"}, "VDU2": {"replica": "replicaCountVdu2"}}
def one(k):
    i = api.create("c0ffee00-0000-4000-8000-000000004e10")
    api.task(i, "instantiate", {"flavourId": "simple", "vimConnectionInfo": vim,
                                "additionalParams": {"helm_chart_path": chart, "helm_value_names": names, "namespace": f"bench-{k}"}})
    api.task(i, "scale", {"type": "SCALE_OUT", "aspectId": "vdu1_aspect"})
    api.task(i, "change_vnfpkg", {"vnfdId": "c0ffee00-0000-4000-8000-000000004e20",
                                  "additionalParams": {"upgrade_type": "RollingUpdate", "helm_chart_path": chart}})
    api.task(i, "terminate", {"terminationType": "FORCEFUL"})
    api.delete(i)
api.phase(f"{n} Helm CNFs (instantiate, scale, change_vnfpkg, terminate), {c} at a time", n, c, one, f"{conductors} conductor(s)")
PY
  for p in "${pids[0]}" "${run[@]}"; do echo "    CPU seconds: $(awk "{print (\$14+\$15)/100}" /proc/$p/stat) $(tr "\\0" " " < /proc/$p/cmdline | cut -d" " -f1-2 | sed "s|.*/||")"; done
  for p in "${run[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${run[@]}"; do wait "$p" 2>/dev/null || true; done
done
