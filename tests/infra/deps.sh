#!/usr/bin/env bash
# deps.sh: system packages the build and the tests need (pkg-config, gcc and the OpenSSL
# headers for the libpq built into the binary; sshd, sudo and sshpass for the SSH test
# hosts heat-sim makes; a Docker distribution registry, skopeo, umoci, containerd,
# htpasswd and openssl for the management-driver tests' shims and registries). Installs
# only what is missing, with apt, as root (or via sudo). Idempotent.
set -euo pipefail
missing=()
command -v pkg-config >/dev/null || missing+=(pkg-config)
pkg-config --exists openssl 2>/dev/null || missing+=(libssl-dev)
command -v cc >/dev/null || missing+=(gcc)
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
command -v sudo >/dev/null || missing+=(sudo)
command -v sshpass >/dev/null || missing+=(sshpass)
command -v ssh >/dev/null || missing+=(openssh-client)
command -v jq >/dev/null || missing+=(jq)
command -v curl >/dev/null || missing+=(curl)
command -v docker-registry >/dev/null || missing+=(docker-registry)
command -v skopeo >/dev/null || missing+=(skopeo)
command -v umoci >/dev/null || missing+=(umoci)
command -v ctr >/dev/null || missing+=(containerd)
command -v htpasswd >/dev/null || missing+=(apache2-utils)
command -v openssl >/dev/null || missing+=(openssl)
command -v nsenter >/dev/null || missing+=(util-linux)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
echo "deps.sh: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
