#!/usr/bin/env bash
# `make audit`: Cargo.lock against the RustSec advisory database with cargo-audit
# (installed into .tools/cargo-audit on first use). The database is fetched from GitHub,
# or read from a local checkout named by ADVISORY_DB (offline machines). Accepted
# advisories, each with its reason, are in .cargo/audit.toml. Not part of `make test`:
# it needs the database, which CI machines cannot fetch.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=.tools/cargo-audit/bin/cargo-audit
if [ ! -x "$bin" ]; then
  echo "audit.sh: installing cargo-audit into .tools/cargo-audit" >&2
  cargo install --locked --quiet cargo-audit --version 0.22.2 --root .tools/cargo-audit
fi
if [ -n "${ADVISORY_DB:-}" ]; then
  exec "$bin" audit --db "$ADVISORY_DB" --no-fetch --stale
fi
exec "$bin" audit
