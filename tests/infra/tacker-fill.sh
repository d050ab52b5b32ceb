#!/usr/bin/env bash
# tacker-fill.sh DB CSAR_DIR PACKAGES INSTANCES: a database DB on the MariaDB of
# tacker-upstream.sh (made, with Tacker's schema as its migrations left it, and granted to
# its user) holding PACKAGES ONBOARDED packages of 10 projects, each with a small CSAR in
# CSAR_DIR (glance_store's layout: the file named after the package), a line of
# user-defined data and its VNFD row, and INSTANCES v2 instances not instantiated,
# spread over them. For the import's benchmark and tests; DB must not exist yet.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
upstream_dir=${TACKER_UPSTREAM_DIR:-$root/.tacker-upstream}
src=$1 csars=$2 packages=$3 instances=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mdb() { mariadb --no-defaults -S "$upstream_dir/mysqld.sock" -uroot "$@"; }
mdb -e "CREATE DATABASE $src CHARACTER SET utf8; GRANT ALL ON $src.* TO 'tacker'@'127.0.0.1'"
mariadb-dump --no-defaults -S "$upstream_dir/mysqld.sock" -uroot --no-data tacker | mdb "$src"
mkdir -p "$csars"
python3 - "$work" "$csars" "$packages" "$instances" <<'PY'
import hashlib, io, os, sys, uuid, zipfile
work, csars, packages, instances = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
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
    with open(os.path.join(csars, pid), "wb") as f:
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
