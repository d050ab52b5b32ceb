#!/usr/bin/env bash
# pytools.sh: a Python virtualenv with the real clients and tools the tests use
# (python-openstackclient + python-tackerclient + python-heatclient, moto[server],
# kubernetes-validate).
# Idempotent; prints the venv path. Location: $TACKER_PYVENV or <repo>/.venv.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=${TACKER_PYVENV:-$root/.venv}
stamp=$venv/.tacker-tools-v4
if [ ! -f "$stamp" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    'python-openstackclient' 'python-tackerclient' 'python-heatclient' 'moto[server]' 'kubernetes-validate' 'PyYAML' >&2
  touch "$stamp"
fi
echo "$venv"
