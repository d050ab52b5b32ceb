#!/usr/bin/env bash
# The domain crate must not depend on anything that does I/O (ARCHITECTURE.md).
set -uo pipefail
fail=0
for c in diesel lapin actix-web kube russh russh-sftp tonic object_store reqwest tokio; do
  out=$(cargo tree -p tacker-domain -e normal -i "$c" 2>&1); rc=$?
  if [ $rc -eq 0 ]; then
    echo "tacker-domain depends on $c (it must stay free of I/O):" >&2; echo "$out" >&2; fail=1
  elif ! grep -q "did not match any packages" <<<"$out"; then
    echo "cargo tree failed: $out" >&2; fail=1
  fi
done
[ $fail -eq 0 ] && echo "tacker-domain: no I/O dependencies"
exit $fail
