#!/usr/bin/env bash
# No crate declares a dependency it does not use (cargo-machete, installed into
# .tools/cargo-machete on first use). Part of `make lint`. A dependency used only in a
# way it cannot see (generated code, a linked-in feature) is listed under
# [package.metadata.cargo-machete] ignored, with the reason, in that crate's Cargo.toml.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=.tools/cargo-machete/bin/cargo-machete
if [ ! -x "$bin" ]; then
  echo "unused-deps.sh: installing cargo-machete into .tools/cargo-machete" >&2
  cargo install --locked --quiet cargo-machete --version 0.9.2 --root .tools/cargo-machete
fi
"$bin" --skip-target-dir >/dev/null 2>&1 || { "$bin" --skip-target-dir; exit 1; }
echo "cargo machete: no unused dependencies"
