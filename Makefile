# Tacker (Rust). `make run` starts the system on its embedded default; `make test` sets up
# what the tests need (system packages, PostgreSQL, RabbitMQ, the Python clients) and runs
# every check and test.

CARGO ?= cargo
SHELL := /bin/bash

.PHONY: kube-sim heat-sim monitoring run build test test-only lint fmt doc bench chaos setup services pytools clean-test-dbs fuzz audit

# Helm VIMs use the helm that tests/infra/k8s-tools.sh puts in .tools/bin (without it,
# everything else runs and Helm VIMs are refused).
run: build
	@tests/infra/k8s-tools.sh || echo "make run: no helm; ETSINFV.HELM.V_3 VIMs are refused" >&2
	PATH="$(CURDIR)/.tools/bin:$$PATH" ./target/debug/tacker all-in-one

# A Kubernetes API simulator on 127.0.0.1:6443 for trying CNFs with `make run`.
kube-sim: build
	./target/debug/kube-sim --bind 127.0.0.1:6443

# An OpenStack (Keystone + Heat) simulator on 127.0.0.1:5000 whose servers are SSH test
# hosts (needs root), for trying VM-based VNFs with `make run`.
heat-sim: build
	./target/debug/heat-sim --bind 127.0.0.1:5000 --user tacker --password tacker-password

# Prometheus (127.0.0.1:9090) and Alertmanager (127.0.0.1:9093) for trying the closed loop
# with `make run` and `make kube-sim`: configuration and rules in .monitoring/.
monitoring:
	@tests/infra/monitoring.sh demo .monitoring

# One build for everything `make run`, `make kube-sim` and `make heat-sim` start.
build: setup-deps
	$(CARGO) build -p tacker -p tackerctl -p kube-sim -p heat-sim

setup-deps:
	@tests/infra/deps.sh

setup: setup-deps
	@tests/infra/services.sh
	@tests/infra/pytools.sh >/dev/null
	@tests/infra/k8s-tools.sh
	@tests/infra/node-tools.sh
	@tests/infra/monitoring.sh
	@tests/infra/openstack.sh >/dev/null
	@tests/infra/tacker-upstream.sh >/dev/null

test: setup lint test-only

# `build` first: the README walkthroughs run ./target/debug/tacker and tackerctl.
test-only: build
	@if $(CARGO) nextest --version >/dev/null 2>&1; then \
		$(CARGO) nextest run --workspace --no-fail-fast; \
	else \
		$(CARGO) test --workspace --no-fail-fast; \
	fi

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps --quiet
	@tests/infra/domain-has-no-io.sh
	@tests/infra/deny.sh
	@tests/infra/unused-deps.sh
	@tests/infra/helm-check.sh
	@tests/infra/deploy-check.sh
	@tests/infra/grafana-check.sh

fmt:
	$(CARGO) fmt --all

doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps

bench: setup
	@benches/run.sh

# Cargo.lock against the RustSec advisories (fetched from GitHub, or ADVISORY_DB=<a local
# checkout of rustsec/advisory-db>); not in `make test`, which runs offline.
audit:
	@tests/infra/audit.sh

# The fault-injection suite's long profile: 10 minutes of rounds (conductors killed and
# restarted, bus cuts, broker restarts, database stops under load). The seed is printed;
# TACKER_CHAOS_SEED=<seed> make chaos replays a run.
chaos: setup
	TACKER_CHAOS_PROFILE=long $(CARGO) nextest run -p tacker --no-capture -E 'test(/chaos::/)'

# Drops leftover per-test PostgreSQL databases (tests drop their own when they end).
clean-test-dbs:
	@psql -h 127.0.0.1 -U postgres -Atc "SELECT datname FROM pg_database WHERE datname LIKE 'tacker_t\_%' OR datname LIKE 'tacker_tpl\_%'" postgres \
		| while read -r db; do psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $$db WITH (FORCE)" postgres; done

# Fuzzes the CSAR reader for FUZZ_SECONDS (default 60) per target.
fuzz:
	@tests/infra/fuzz.sh
