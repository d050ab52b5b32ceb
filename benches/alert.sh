#!/usr/bin/env bash
# Alert path benchmark: `tacker server` and 3 `tacker conductor` processes (PostgreSQL,
# RabbitMQ), BENCH_ALERT_INSTANCES (default 20) instances of the example CNF on kube-sim
# (ready delay 0), opted in to auto-heal, fm.auto_heal_window = 0s and fm.cooldown = 0s.
#  1. latency: BENCH_ALERT_ROUNDS (default 3) rounds of one auto-heal alert per instance,
#     one webhook call each: the alert posted -> its HEAL occurrence created (the
#     occurrence's startTime), p50/p99; and -> HEAL COMPLETED on kube-sim, p50/p99.
#  2. ingestion: BENCH_ALERTS (default 20000) alerts in calls of 100 from 4 clients, a mix
#     of FM alerts (`/alert`, 1 in 4 a repeat of an earlier fingerprint) and auto-heal
#     alerts (`/alert/auto_healing`, each instance's first VNFC named again and again):
#     alerts/s, the server's peak RSS, and that exactly one heal per instance ran and one
#     alarm per distinct fingerprint was raised (none lost, none duplicated).
set -euo pipefail
BIN=${TACKER_BIN:?}
SIM=${KUBE_SIM_BIN:?}
N=${BENCH_ALERT_INSTANCES:-20}
ROUNDS=${BENCH_ALERT_ROUNDS:-3}
ALERTS=${BENCH_ALERTS:-20000}
PG=${TACKER_TEST_PG:-postgres://postgres@127.0.0.1:5432}
AMQP=${TACKER_TEST_AMQP:-amqp://guest:guest@127.0.0.1:5672/%2f}
work=$(mktemp -d)
pids=()
db=tacker_bench_alert_$$
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
sim_port=$(free_port)
"$SIM" --bind 127.0.0.1:$sim_port --ready-delay 0 --terminate-delay 0 --nodes 2 2>"$work/sim.log" & pids+=("$!")
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$sim_port/version" >/dev/null 2>&1 && break; sleep 0.1; done
for i in $(seq 1 "$N"); do
  curl -fsS -H 'Content-Type: application/json' -d "{\"metadata\":{\"name\":\"bench-$i\"}}" \
    "http://127.0.0.1:$sim_port/api/v1/namespaces" >/dev/null
done
"$BIN" csar pack docs/examples/cnf -o "$work/cnf.zip" >/dev/null
psql "$PG/postgres" -qc "CREATE DATABASE $db" >/dev/null
port=$(free_port)
export TACKER__SECRETS__KEYS="$("$BIN" secrets generate-key bench)" TACKER__DATABASE__URL=$PG/$db TACKER__BUS__URL=$AMQP \
  TACKER__BUS__PREFIX=bench-alert-$$ TACKER__STORAGE__URL=file://$work/store TACKER__LOG__FILTER=${BENCH_LOG:-warn} \
  TACKER__SERVER__BIND=127.0.0.1:$port TACKER__OUTBOUND__ALLOWED_NETWORKS=127.0.0.1/32 TACKER__LCM__SYNC_INTERVAL=0s \
  TACKER__FM__AUTO_HEAL_WINDOW=0s TACKER__FM__COOLDOWN=0s
"$BIN" db migrate >/dev/null
"$BIN" server >"$work/server.log" 2>&1 & server=$!; pids+=("$!")
for n in 1 2 3; do
  TACKER__CONDUCTOR__ID=bench-alert-c$n TACKER__CONDUCTOR__CACHE_DIR=$work/cache/c$n \
    TACKER__CONDUCTOR__HEALTH_BIND=127.0.0.1:$(free_port) "$BIN" conductor >"$work/c$n.log" 2>&1 & pids+=("$!")
done
for _ in $(seq 1 300); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
sleep 1
echo "== alert: $N CNFs on kube-sim, 3 conductors, auto_heal_window 0s, cooldown 0s"
PYTHONPATH=benches python3 - "http://127.0.0.1:$port" "http://127.0.0.1:$sim_port" "$work/cnf.zip" "$N" "$ROUNDS" "$ALERTS" "$server" "$PG/$db" <<'PY'
import json, subprocess, sys, threading, time
lock = threading.Lock()
from datetime import datetime
from lcmload import Api
api, sim, pkg, n, rounds, total, server, dburl = (Api(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]),
                                                 int(sys.argv[5]), int(sys.argv[6]), sys.argv[7], sys.argv[8])
api.onboard(pkg)
files = ["Files/kubernetes/config.yaml", "Files/kubernetes/pod.yaml", "Files/kubernetes/deployment.yaml",
         "Files/kubernetes/replicaset.yaml", "Files/kubernetes/statefulset.yaml", "Files/kubernetes/daemonset.yaml"]
vim = {"k8s": {"vimType": "ETSINFV.KUBERNETES.V_1", "interfaceInfo": {"endpoint": sim}, "accessInfo": {"bearer_token": "bench"}}}
ts = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
instances = []
for k in range(1, n + 1):
    i = api.create("c0ffee00-0000-4000-8000-00000000c4f0")
    api.task(i, "instantiate", {"flavourId": "simple", "vimConnectionInfo": vim,
                                "additionalParams": {"lcm-kubernetes-def-files": files, "namespace": f"bench-{k}"}})
    api.call("PATCH", f"{api.lcm}/vnf_instances/{i}", {"vnfConfigurableProperties": {"isAutohealEnabled": True}},
             ctype="application/merge-patch+json", lcm=True)
    instances.append(i)
time.sleep(2)  # the modifications done

def vnfc_of(i, vdu="VDU2"):
    v = api.instance(i)["instantiatedVnfInfo"]
    return next(x["id"] for x in v["vnfcInfo"] if x["vduId"] == vdu)

def alert(fn, fp, i, vnfc=None):
    labels = {"alertname": "Bench", "receiver_type": "tacker", "function_type": fn, "vnf_instance_id": i,
              "perceived_severity": "MAJOR", "event_type": "EQUIPMENT_ALARM"}
    if vnfc:
        labels["vnfc_info_id"] = vnfc
    return {"status": "firing", "labels": labels, "annotations": {"probable_cause": "bench"},
            "startsAt": "2026-12-03T10:00:00Z", "endsAt": "0001-01-01T00:00:00Z", "fingerprint": fp}

outcomes = {}
def post(path, alerts):
    body = api.call("POST", f"{api.base}{path}", {"version": "4", "status": "firing", "receiver": "tacker", "alerts": alerts})[2]
    with lock:
        for k, v in (body or {}).get("outcomes", {}).items():
            outcomes[k] = outcomes.get(k, 0) + v
        if body and body.get("skipped") and "skipped" not in outcomes.get("_first", {}):
            outcomes["_first"] = {"skipped": body["skipped"][0]}

def heals(i):
    return api.call("GET", f"{api.lcm}/vnf_lcm_op_occs?filter=(eq,operation,HEAL);(eq,vnfInstanceId,{i})", lcm=True)[2]

def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))] * 1000 if v else float("nan")

created, completed, failed = [], [], 0
for r in range(rounds):
    before = {i: {h["id"] for h in heals(i)} for i in instances}
    sent = {}
    for i in instances:
        vnfc = vnfc_of(i)
        sent[i] = time.time()
        post("/alert/auto_healing", [alert("auto_heal", f"lat-{r}-{i}", i, vnfc)])
    pending = set(instances)
    deadline = time.time() + 300
    while pending and time.time() < deadline:
        for i in list(pending):
            new = [h for h in heals(i) if h["id"] not in before[i]]
            if new and new[0]["operationState"] in ("COMPLETED", "FAILED_TEMP"):
                h = new[0]
                created.append(ts(h["startTime"]) - sent[i])
                if h["operationState"] == "COMPLETED":
                    completed.append(ts(h["stateEnteredTime"]) - sent[i])
                else:
                    failed += 1
                pending.discard(i)
        time.sleep(0.05)
    failed += len(pending)
print(f"  latency, {len(created)} alerts one at a time: posted -> HEAL created p50 {pct(created, .5):.1f} ms "
      f"p99 {pct(created, .99):.1f} ms; -> HEAL COMPLETED p50 {pct(completed, .5):.0f} ms p99 {pct(completed, .99):.0f} ms"
      f"{'' if not failed else f', {failed} not completed'}")

# Ingestion: calls of 100 alerts from 4 clients.
vnfcs = {i: vnfc_of(i) for i in instances}
pods = {i: vnfc_of(i, "VDU1") for i in instances}  # FM alerts are about the bare Pod
before = {i: len(heals(i)) for i in instances}
calls, fps = [], set()
outcomes.clear()
k = 0
while k < total:
    batch, path = [], ("/alert" if (k // 100) % 2 == 0 else "/alert/auto_healing")
    for j in range(100):
        m = k + j
        i = instances[m % n]
        if path == "/alert":
            if m % 4 == 3:  # 1 in 4 repeats the previous alert (same instance, same fingerprint)
                m -= 1
                i = instances[m % n]
            fps.add((i, m))
            batch.append(alert("vnffm", f"fm-{m}", i, pods[i]))
        else:
            batch.append(alert("auto_heal", f"heal-{i}", i, vnfcs[i]))
    calls.append((path, batch))
    k += 100
def rss_peak():
    for line in open(f"/proc/{server}/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
errors = []
def worker():
    while True:
        with lock:
            if not calls:
                return
            path, batch = calls.pop()
        try:
            post(path, batch)
        except Exception as e:
            errors.append(str(e))
t0 = time.time()
threads = [threading.Thread(target=worker) for _ in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
wall = time.time() - t0
print(f"  ingestion: {total} alerts in {wall:.2f} s = {total / wall:.0f} alerts/s, {len(errors)} calls failed; "
      f"server peak RSS {rss_peak():.1f} MiB")
print(f"    what came of them: {outcomes}")
time.sleep(3)
deadline = time.time() + 300
while time.time() < deadline and any(h["operationState"] not in ("COMPLETED", "FAILED_TEMP") for i in instances for h in heals(i)):
    time.sleep(0.2)
extra = [len(heals(i)) - before[i] for i in instances]
alarms = int(subprocess.check_output(["psql", dburl, "-Atc",
    "SELECT count(*) FROM alarms WHERE fingerprint LIKE 'fm-%'"]).decode().strip())
print(f"  after it: heals per instance {min(extra)}..{max(extra)} (1 expected), alarms {alarms} for {len(fps)} distinct fingerprints"
      f" -> {'OK' if min(extra) == 1 == max(extra) and alarms == len(fps) else 'MISMATCH'}")
PY
