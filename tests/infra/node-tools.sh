#!/usr/bin/env bash
# node-tools.sh: the Node.js programs the tests run (oidc-provider, an external OAuth 2.0
# server), installed from the npm registry as tests/infra/oidc/package-lock.json pins
# them. Idempotent; installs Node.js and npm with apt when missing.
set -euo pipefail
cd "$(dirname "$0")/oidc"
if [ -f node_modules/oidc-provider/package.json ] && command -v node >/dev/null; then exit 0; fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "node-tools.sh: installing nodejs and npm" >&2
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >&2
fi
echo "node-tools.sh: installing oidc-provider (npm ci)" >&2
npm ci --no-audit --no-fund --silent >&2
