#!/usr/bin/env bash
# The dependency tree's licenses, banned crates and sources (deny.toml), with cargo-deny
# installed into .tools/cargo-deny on first use. Part of `make lint`. Advisories are
# `make audit`: their database is fetched from GitHub, which CI machines cannot reach.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=.tools/cargo-deny/bin/cargo-deny
if [ ! -x "$bin" ]; then
  echo "deny.sh: installing cargo-deny into .tools/cargo-deny" >&2
  cargo install --locked --quiet cargo-deny --version 0.20.2 --root .tools/cargo-deny
fi
"$bin" --log-level error check licenses bans sources
echo "cargo deny: licenses, bans, sources: ok"
