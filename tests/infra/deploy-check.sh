#!/usr/bin/env bash
# deploy-check.sh: checks what can be checked without a container engine or systemd.
# - deploy/Dockerfile builds the packages `make build` builds (but the simulators, which
#   `make build` adds for `make kube-sim` / `make heat-sim`), with the pinned toolchain
#   and the lockfile (cargo metadata --locked).
# - deploy/compose/compose.yaml parses; every tacker service's environment is a valid
#   configuration (`tacker config show` with it) and its command a tacker subcommand;
#   conductors have distinct ids.
# - deploy/systemd units pass `systemd-analyze verify` without a warning (when present).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=$(tests/infra/pytools.sh)
cargo build -q -p tacker
bin=$PWD/target/debug/tacker

docker_pkgs=$(grep -E '^RUN cargo build' deploy/Dockerfile | grep -oE -- '-p [a-z-]+' | sort | tr '\n' ' ')
make_pkgs=$(grep -E '^\s+\$\(CARGO\) build -p' Makefile | grep -oE -- '-p [a-z-]+' | grep -v -- '-sim$' | sort | tr '\n' ' ')
[ "$docker_pkgs" = "$make_pkgs" ] || { echo "Dockerfile builds [$docker_pkgs], make build [$make_pkgs]"; exit 1; }
toolchain=$(grep -oE '[0-9]+\.[0-9]+' rust-toolchain.toml | head -1)
grep -qE "^FROM rust:$toolchain" deploy/Dockerfile || { echo "Dockerfile's rust image is not $toolchain"; exit 1; }
cargo metadata --locked --format-version 1 --no-deps >/dev/null
for b in tacker tackerctl; do
  grep -q "target/release/$b" deploy/Dockerfile || { echo "the image lacks $b"; exit 1; }
done
grep -q "COPY --from=helm /helm/helm /usr/local/bin/helm" deploy/Dockerfile \
  && grep -q "TACKER__HELM__BINARY=/usr/local/bin/helm" deploy/Dockerfile \
  || { echo "the image lacks helm for ETSINFV.HELM.V_3 VIMs"; exit 1; }

"$venv/bin/python" - "$bin" <<'PY'
import os, subprocess, sys, yaml
tacker = sys.argv[1]
c = yaml.safe_load(open("deploy/compose/compose.yaml"))
services = c["services"]
for need in ("postgres", "rabbitmq", "s3", "migrate", "server"):
    assert need in services, f"compose has no {need}"
conductors = [n for n in services if n.startswith("conductor")]
assert len(conductors) == 3, conductors
ids = {services[n]["environment"]["TACKER__CONDUCTOR__ID"] for n in conductors}
assert len(ids) == 3, f"conductor ids are not distinct: {ids}"
for name, s in services.items():
    if s.get("image", "").startswith("tacker"):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TACKER__")}
        env.update({k: str(v) for k, v in s["environment"].items()})
        r = subprocess.run([tacker, "config", "show"], env=env, capture_output=True, text=True)
        assert r.returncode == 0, f"{name}: {r.stderr}"
        r = subprocess.run([tacker, *s["command"], "--help"], capture_output=True, text=True)
        assert r.returncode == 0, f"{name}: tacker {s['command']} is not a command: {r.stderr}"
PY

if command -v systemd-analyze >/dev/null; then
  units=$(mktemp -d)
  trap 'rm -rf "$units"' EXIT
  for f in deploy/systemd/*; do
    sed "s|/usr/local/bin/tacker|$bin|" "$f" >"$units/$(basename "$f")"
  done
  cp "$units/tacker-conductor@.service" "$units/tacker-conductor@1.service"
  report=$(cd "$units" && systemd-analyze verify --man=no ./tacker-server.service ./tacker-migrate.service ./tacker-conductor@1.service 2>&1)
  [ -z "$report" ] || { echo "systemd units: $report"; exit 1; }
fi
echo "deploy: Dockerfile, compose, systemd units: ok"
