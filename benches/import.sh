#!/usr/bin/env bash
# Import from Tacker: a Tacker 16 database (upstream's own schema, on the MariaDB of
# tests/infra/tacker-upstream.sh) holding BENCH_IMPORT_PACKAGES (default 1,000) ONBOARDED
# packages, each with its CSAR in a glance_store directory and a line of user-defined
# data, and BENCH_IMPORT_INSTANCES (default 1,000) v2 instances not instantiated, spread
# over them; `tacker import tacker` into PostgreSQL and local storage. Prints the wall
# time of the import (goal: under a minute), and of a second run (nothing new: every
# object found unchanged).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
BIN=${TACKER_BIN:?}
PACKAGES=${BENCH_IMPORT_PACKAGES:-1000}
INSTANCES=${BENCH_IMPORT_INSTANCES:-1000}
PG=${TACKER_TEST_PG:-postgres://postgres@127.0.0.1:5432}
root=$(cd "$(dirname "$0")/.." && pwd)
upstream=$("$root/tests/infra/tacker-upstream.sh" up)
upstream_dir=${TACKER_UPSTREAM_DIR:-$root/.tacker-upstream}
# mysql://tacker:<password>@127.0.0.1:<port>/tacker, on another database.
tacker_db=$(awk '$1 == "db" {print $2}' <<<"$upstream")
src=tacker_bench_import_$$
src_url=${tacker_db%/*}/$src
db=tacker_bench_import_$$
work=$(mktemp -d)
mdb() { mariadb --no-defaults -S "$upstream_dir/mysqld.sock" -uroot "$@"; }
cleanup() {
  mdb -e "DROP DATABASE IF EXISTS $src" >/dev/null 2>&1 || true
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
# Tacker's schema as its migrations left it, empty.
mdb -e "CREATE DATABASE $src CHARACTER SET utf8; GRANT ALL ON $src.* TO 'tacker'@'127.0.0.1'"
mariadb-dump --no-defaults -S "$upstream_dir/mysqld.sock" -uroot --no-data tacker | mdb "$src"
mkdir -p "$work/csars" "$work/keys"
python3 - "$work" "$PACKAGES" "$INSTANCES" <<'PY'
import hashlib, io, os, sys, uuid, zipfile
work, packages, instances = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
image = os.urandom(4096)
digest = hashlib.sha256(image).hexdigest()
sql = open(os.path.join(work, "rows.sql"), "w")
sql.write("SET autocommit = 0;\n")
ids = []
for n in range(packages):
    pid, vnfd = str(uuid.uuid4()), str(uuid.uuid4())
    ids.append((pid, vnfd))
    vnfd_yaml = f"""tosca_definitions_version: tosca_simple_yaml_1_2
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
      properties: {{descriptor_id: {vnfd}, provider: Bench, product_name: Bench, software_version: '1', descriptor_version: '1', vnfm_info: [Tacker]}}
    VDU1:
      type: tosca.nodes.nfv.Vdu.Compute
      properties:
        name: vdu1
        vdu_profile: {{min_number_of_instances: 1, max_number_of_instances: 1}}
        sw_image_data: {{name: image, version: '1', container_format: bare, disk_format: qcow2, min_disk: 1 GB, size: 1 GB}}
      artifacts:
        sw_image: {{type: tosca.artifacts.nfv.SwImage, file: ../Files/images/image.img}}
"""
    mf = ("metadata:\nvnf_provider_id: Bench\nvnf_product_name: Bench\n"
          "vnf_release_date_time: 2026-11-30T00:00:00Z\nvnf_package_version: 1\n\n"
          f"Source: Files/images/image.img\nAlgorithm: SHA-256\nHash: {digest}\n")
    meta = ("TOSCA-Meta-File-Version: 1.0\nCSAR-Version: 1.1\nCreated-By: bench\n"
            "Entry-Definitions: Definitions/top.yaml\nETSI-Entry-Manifest: top.mf\n")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("TOSCA-Metadata/TOSCA.meta", meta)
        z.writestr("Definitions/top.yaml", vnfd_yaml)
        z.writestr("top.mf", mf)
        z.writestr("Files/images/image.img", image)
    data = buf.getvalue()
    with open(os.path.join(work, "csars", pid), "wb") as f:
        f.write(data)
    sha = hashlib.sha512(data).hexdigest()
    tenant = f"project{n % 10}"
    sql.write(
        "INSERT INTO vnf_packages (id, onboarding_state, operational_state, usage_state, tenant_id, "
        "algorithm, hash, location_glance_store, created_at, deleted, size, downloading) VALUES "
        f"('{pid}', 'ONBOARDED', 'ENABLED', 'NOT_IN_USE', '{tenant}', 'sha512', '{sha}', "
        f"'file:///var/lib/glance/images/{pid}', NOW(), 0, {len(data)}, 0);\n")
    sql.write(
        "INSERT INTO vnf_package_vnfd (id, package_uuid, vnfd_id, vnf_provider, vnf_product_name, "
        "vnf_software_version, vnfd_version, created_at, deleted) VALUES "
        f"('{uuid.uuid4()}', '{pid}', '{vnfd}', 'Bench', 'Bench', '1', '1', NOW(), '0');\n")
    sql.write(
        "INSERT INTO vnf_packages_user_data (package_uuid, `key`, `value`, created_at, deleted) "
        f"VALUES ('{pid}', 'n', '{n}', NOW(), 0);\n")
for n in range(instances):
    _, vnfd = ids[n % len(ids)]
    sql.write(
        "INSERT INTO VnfInstanceV2 (id, vnfInstanceName, vnfdId, vnfProvider, vnfProductName, "
        "vnfSoftwareVersion, vnfdVersion, instantiationState, metadata) VALUES "
        f"('{uuid.uuid4()}', 'bench-{n}', '{vnfd}', 'Bench', 'Bench', '1', '1', 'NOT_INSTANTIATED', "
        f"'{{\"n\": {n}}}');\n")
sql.write("COMMIT;\n")
PY
mdb "$src" < "$work/rows.sql"
psql "$PG/postgres" -qc "CREATE DATABASE $db" >/dev/null
export TACKER__SECRETS__KEYS="$("$BIN" secrets generate-key bench)" TACKER__DATABASE__URL=$PG/$db \
  TACKER__STORAGE__URL=file://$work/store TACKER__LOG__FILTER=warn
"$BIN" db migrate >/dev/null
run() {
  local t0 t1
  t0=$(date +%s.%N)
  "$BIN" import tacker --db "$src_url" --vim-keys "$work/keys" --csar-dir "$work/csars" \
    >"$work/out.txt" 2>"$work/err.txt" || { cat "$work/out.txt" "$work/err.txt" >&2; exit 1; }
  t1=$(date +%s.%N)
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$t0" "$t1"
}
echo "== import: tacker import tacker, $PACKAGES packages + $INSTANCES v2 instances from Tacker 16's MariaDB into PostgreSQL"
first=$(run)
sed 's/^/  /' "$work/out.txt"
again=$(run)
imported=$(awk '$1 == "package" || $1 == "instance" {n += $2} END {print n + 0}' "$work/out.txt")
echo "import of $PACKAGES packages and $INSTANCES instances: $first s (goal < 60 s)"
echo "import again (nothing new, $imported imported): $again s"
