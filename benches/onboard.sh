#!/usr/bin/env bash
# Onboarding benchmark: a 200 MB and a 1 GiB CSAR (BENCH_ONBOARD_MB, space separated)
# onboarded through `tacker server` with three `tacker conductor` processes on
# PostgreSQL + RabbitMQ and local package storage. Prints PUT -> ONBOARDED wall time,
# the time of plain file copies of the same bytes (once into storage, once into each
# of the three caches) in the same run, their ratio, and peak RSS of every process.
# Each size runs BENCH_ONBOARD_RUNS times (default 3), copies and onboarding alternating,
# and the median ratio is the figure (the copies' time depends on what the page cache
# holds at that moment).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
BIN=${TACKER_BIN:?}
SIZES=${BENCH_ONBOARD_MB:-200 1024}
RUNS=${BENCH_ONBOARD_RUNS:-3}
PG=${TACKER_TEST_PG:-postgres://postgres@127.0.0.1:5432}
AMQP=${TACKER_TEST_AMQP:-amqp://guest:guest@127.0.0.1:5672/%2f}
work=$(mktemp -d)
db=tacker_bench_onb_$$
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
[ -n "${BENCH_KEEP_LOGS:-}" ] && trap "cp $work/*.log ${BENCH_KEEP_LOGS}/ 2>/dev/null; cleanup" EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
psql "$PG/postgres" -qc "CREATE DATABASE $db" >/dev/null
port=$(free_port)
export TACKER__SECRETS__KEYS="$("$BIN" secrets generate-key bench)" TACKER__DATABASE__URL=$PG/$db TACKER__BUS__URL=$AMQP TACKER__BUS__PREFIX=bench-onb-$$ \
  TACKER__STORAGE__URL=file://$work/store TACKER__LOG__FILTER=${BENCH_LOG:-warn} ${BENCH_SPANS:+TACKER__LOG__FORMAT=json TACKER__LOG__SPAN_TIMINGS=true} \
  TACKER__ONBOARDING__MAX_PACKAGE_SIZE=$((4 * 1024 * 1024 * 1024)) TACKER__SERVER__BIND=127.0.0.1:$port TACKER__OUTBOUND__ALLOWED_NETWORKS=127.0.0.1/32
"$BIN" db migrate >/dev/null
"$BIN" server >"$work/server.log" 2>&1 & server=$!; pids+=("$server")
conductors=()
for n in 1 2 3; do
  TACKER__CONDUCTOR__ID=bench-c$n TACKER__CONDUCTOR__CACHE_DIR=$work/cache/c$n \
    TACKER__CONDUCTOR__HEALTH_BIND=127.0.0.1:$(free_port) "$BIN" conductor >"$work/c$n.log" 2>&1 &
  conductors+=("$!"); pids+=("$!")
done
base=http://127.0.0.1:$port/vnfpkgm/v1/vnf_packages
for _ in $(seq 1 300); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
sleep 1
peak() { awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }
echo "== onboard: 3 conductors, PostgreSQL + RabbitMQ, local storage"
for mb in $SIZES; do
  python3 - "$work" "$mb" <<'PY'
import hashlib, os, sys, zipfile
work, mb = sys.argv[1], int(sys.argv[2])
img = os.path.join(work, "image.img")
h = hashlib.sha256()
chunk = os.urandom(1 << 20)
with open(img, "wb") as f:
    for i in range(mb):
        b = i.to_bytes(8, "little") + chunk[8:]
        f.write(b); h.update(b)
vnfd = f"""tosca_definitions_version: tosca_simple_yaml_1_2
node_types:
  bench.VNF:
    derived_from: tosca.nodes.nfv.VNF
topology_template:
  substitution_mappings:
    node_type: bench.VNF
    properties: {{flavour_id: simple}}
  node_templates:
    VNF:
      type: bench.VNF
      properties: {{descriptor_id: bench-{mb}-{os.getpid()}, provider: Bench, product_name: Bench, software_version: '1', descriptor_version: '1', vnfm_info: [Tacker]}}
    VDU1:
      type: tosca.nodes.nfv.Vdu.Compute
      properties:
        name: vdu1
        vdu_profile: {{min_number_of_instances: 1, max_number_of_instances: 1}}
        sw_image_data: {{name: image, version: '1', container_format: bare, disk_format: qcow2, min_disk: 1 GB, size: 1 GB}}
      artifacts:
        sw_image: {{type: tosca.artifacts.nfv.SwImage, file: ../Files/images/image.img}}
"""
mf = ("metadata:\nvnf_provider_id: Bench\nvnf_product_name: Bench\nvnf_release_date_time: 2026-11-30T00:00:00Z\n"
      "vnf_package_version: 1\n\nSource: Files/images/image.img\nAlgorithm: SHA-256\nHash: %s\n" % h.hexdigest())
meta = ("TOSCA-Meta-File-Version: 1.0\nCSAR-Version: 1.1\nCreated-By: bench\n"
        "Entry-Definitions: Definitions/top.yaml\nETSI-Entry-Manifest: top.mf\n")
with zipfile.ZipFile(os.path.join(work, "pkg.zip"), "w", zipfile.ZIP_STORED, allowZip64=True) as z:
    z.writestr("TOSCA-Metadata/TOSCA.meta", meta)
    z.writestr("Definitions/top.yaml", vnfd)
    z.writestr("top.mf", mf)
    z.write(img, "Files/images/image.img")
os.remove(img)
PY
  pkg=$work/pkg.zip
  ratios=()
  for r in $(seq 1 "$RUNS"); do
    # Baseline: the same bytes copied once into storage and once into each cache.
    mkdir -p "$work/copies"
    t0=$(date +%s.%N)
    for d in store c1 c2 c3; do cp "$pkg" "$work/copies/$d.zip"; done
    sync -f "$work/copies"
    t1=$(date +%s.%N)
    rm -rf "$work/copies"
    id=$(curl -fsS -H 'Content-Type: application/json' -d '{}' "$base" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
    t2=$(date +%s.%N)
    curl -fsS -X PUT -H 'Content-Type: application/zip' -H 'Expect:' -T "$pkg" "$base/$id/package_content" >/dev/null
    state=
    for _ in $(seq 1 60000); do
      state=$(curl -fsS "$base/$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["onboardingState"])')
      [ "$state" = ONBOARDED ] || [ "$state" = CREATED ] && break
      sleep 0.05
    done
    t3=$(date +%s.%N)
    [ "$state" = ONBOARDED ] || { echo "onboarding ended in $state"; curl -s "$base/$id"; exit 1; }
    ratios+=("$(python3 - "$mb" "$r" "$t0" "$t1" "$t2" "$t3" <<'PY'
import sys
mb, run = int(sys.argv[1]), int(sys.argv[2])
t0, t1, t2, t3 = map(float, sys.argv[3:])
copy, onb = t1 - t0, t3 - t2
print(f"{onb/copy:.2f}")
print(f"{mb:5d} MiB package, run {run}: PUT -> ONBOARDED {onb:6.2f} s; plain copies (storage + 3 caches) {copy:6.2f} s; ratio {onb/copy:.2f}", file=sys.stderr)
PY
)")
    # Make room for the next run: disable and delete (removes storage and caches).
    curl -fsS -X PATCH -H 'Content-Type: application/merge-patch+json' -d '{"operationalState":"DISABLED"}' "$base/$id" >/dev/null
    curl -fsS -X DELETE "$base/$id" >/dev/null
    sleep 1
  done 2>&1
  printf '%5d MiB package: median ratio of %s runs %s (%s) (goal <= 1.1)\n' "$mb" "$RUNS" \
    "$(printf '%s\n' "${ratios[@]}" | median)" "$(printf '%s\n' "${ratios[@]}" | range)"
  echo "      peak RSS MiB: server $(peak "$server"), conductors $(peak "${conductors[0]}") $(peak "${conductors[1]}") $(peak "${conductors[2]}") (goal <= 64 each)"
  rm -f "$pkg"
done
