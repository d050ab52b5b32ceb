#!/usr/bin/env bash
# deps.sh: system packages the build needs (pkg-config, libpq). Installs only what is
# missing, with apt, as root (or via sudo). Idempotent.
set -euo pipefail
missing=()
command -v pkg-config >/dev/null || missing+=(pkg-config)
pkg-config --exists libpq 2>/dev/null || missing+=(libpq-dev)
command -v cc >/dev/null || missing+=(gcc)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
echo "deps.sh: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
