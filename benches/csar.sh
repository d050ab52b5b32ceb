#!/usr/bin/env bash
# CSAR validation benchmark: a package carrying a 1 GiB artifact listed in the manifest
# (BENCH_CSAR_MB to change the size), validated by `tacker csar validate`, against
# `sha256sum` of the same artifact in the same run. Prints throughput and peak RSS.
set -euo pipefail
BIN=${TACKER_BIN:?}
MB=${BENCH_CSAR_MB:-1024}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$MB" <<'PY'
import hashlib, os, sys, zipfile
work, mb = sys.argv[1], int(sys.argv[2])
img = os.path.join(work, "image.img")
h = hashlib.sha256()
with open(img, "wb") as f:
    chunk = os.urandom(1 << 20)
    for i in range(mb):
        # Vary each MiB cheaply so the file is not one repeated block.
        block = i.to_bytes(8, "little") + chunk[8:]
        f.write(block); h.update(block)
top = """tosca_definitions_version: tosca_simple_yaml_1_2
node_types:
  bench.VNF:
    derived_from: tosca.nodes.nfv.VNF
topology_template:
  substitution_mappings:
    node_type: bench.VNF
    properties: {flavour_id: simple}
  node_templates:
    VNF:
      type: bench.VNF
      properties: {descriptor_id: bench-vnfd, provider: Bench, product_name: Bench, software_version: '1', descriptor_version: '1', vnfm_info: [Tacker]}
    VDU1:
      type: tosca.nodes.nfv.Vdu.Compute
      properties:
        name: vdu1
        vdu_profile: {min_number_of_instances: 1, max_number_of_instances: 1}
        sw_image_data: {name: image, version: '1', container_format: bare, disk_format: qcow2, min_disk: 1 GB, size: 1 GB}
      artifacts:
        sw_image: {type: tosca.artifacts.nfv.SwImage, file: ../Files/images/image.img}
"""
mf = ("metadata:\nvnf_provider_id: Bench\nvnf_product_name: Bench\nvnf_release_date_time: 2026-11-30T00:00:00Z\n"
      "vnf_package_version: 1\n\nSource: Files/images/image.img\nAlgorithm: SHA-256\nHash: %s\n" % h.hexdigest())
meta = ("TOSCA-Meta-File-Version: 1.0\nCSAR-Version: 1.1\nCreated-By: bench\n"
        "Entry-Definitions: Definitions/top.yaml\nETSI-Entry-Manifest: top.mf\n")
with zipfile.ZipFile(os.path.join(work, "bench.zip"), "w", zipfile.ZIP_STORED, allowZip64=True) as z:
    z.writestr("TOSCA-Metadata/TOSCA.meta", meta)
    z.writestr("Definitions/top.yaml", top)
    z.writestr("top.mf", mf)
    z.write(img, "Files/images/image.img")
PY
measure() {  # prints "seconds maxrss_kb"
  /usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null
  cat "$work/t"
}
# Warm the page cache once so both runs read from memory.
cat "$work/bench.zip" >/dev/null
read -r s_sec s_rss < <(measure sha256sum "$work/image.img")
read -r t_sec t_rss < <(measure "$BIN" csar validate "$work/bench.zip")
echo "== csar: validate a CSAR with a ${MB} MiB artifact"
python3 - "$MB" "$s_sec" "$s_rss" "$t_sec" "$t_rss" <<'PY'
import sys
mb, ss, sr, ts, tr = int(sys.argv[1]), *map(float, sys.argv[2:])
print(f"sha256sum:             {ss:6.2f} s  {mb/ss:7.1f} MB/s  peak RSS {sr/1024:5.1f} MiB")
print(f"tacker csar validate:  {ts:6.2f} s  {mb/ts:7.1f} MB/s  peak RSS {tr/1024:5.1f} MiB")
print(f"time ratio validate/sha256sum: {ts/ss:.2f} (goal <= 1.2); RSS goal < 32 MiB")
PY
