#!/usr/bin/env bash
# registry-image.sh OUT.tar [NAME:TAG]: a docker-save archive of an image named NAME:TAG
# (default registry:latest), built offline with umoci (one small layer) and exported
# with skopeo: what `docker load` takes, without any network. The docker shim runs
# Debian's docker-registry for an image named registry, whatever its layers hold.
set -euo pipefail
out=${1:?OUT.tar}; ref=${2:-registry:latest}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
umoci init --layout "$work/oci"
umoci new --image "$work/oci:img"
mkdir -p "$work/rootfs/etc/docker/registry"
printf 'version: 0.1\n' > "$work/rootfs/etc/docker/registry/config.yml"
umoci insert --image "$work/oci:img" "$work/rootfs/etc" /etc
umoci config --image "$work/oci:img" --config.cmd /bin/registry --config.cmd serve \
  --config.cmd /etc/docker/registry/config.yml --config.exposedports 5000/tcp
rm -f "$out"
skopeo copy --quiet "oci:$work/oci:img" "docker-archive:$out:$ref"
