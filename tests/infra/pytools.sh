#!/usr/bin/env bash
# pytools.sh: a Python virtualenv with the real clients and tools the tests use
# (python-openstackclient + python-tackerclient + python-heatclient, moto[server],
# kubernetes-validate), and schemathesis in a venv of its own (.tools/schemathesis: its
# dependencies must not move the clients').
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
st=$root/.tools/schemathesis
if [ ! -x "$st/bin/st" ]; then
  python3 -m venv "$st" >&2
  "$st/bin/pip" install --quiet --disable-pip-version-check 'schemathesis==4.32.5' >&2
fi
echo "$venv"
