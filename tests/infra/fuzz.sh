#!/usr/bin/env bash
# fuzz.sh: runs the tacker-csar fuzz targets for a bounded time each
# (FUZZ_SECONDS, default 60). Installs cargo-fuzz (crates.io) when missing; needs the
# nightly toolchain. Crashes land in crates/tacker-csar/fuzz/artifacts/<target>/; turn
# each into a regression test in crates/tacker-csar/tests/it/hostile.rs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${FUZZ_SECONDS:-60}
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
rustup toolchain list | grep -q nightly || { echo "fuzz.sh: needs the nightly toolchain (rustup toolchain install nightly)" >&2; exit 1; }
cd "$root/crates/tacker-csar/fuzz"
# Seed the corpora with the test suite's packages (valid and broken).
mkdir -p corpus/csar corpus/vnfd
( cd "$root" && TACKER_FUZZ_SEEDS="$root/crates/tacker-csar/fuzz/corpus" \
    cargo test -q -p tacker-csar --test it -- --ignored write_fuzz_seeds >/dev/null )
for target in csar vnfd; do
  echo "== fuzzing $target for ${secs}s"
  cargo +nightly fuzz run "$target" "corpus/$target" -- -max_total_time="$secs" -rss_limit_mb=1024 -timeout=10
done
