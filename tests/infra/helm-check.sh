#!/usr/bin/env bash
# helm-check.sh: lints the chart (--strict), renders it with the default and the HA
# values, validates every rendered object against Kubernetes 1.32 (kubernetes-validate
# --strict), and checks that the tacker.toml and the token signing key the chart renders
# are accepted by tacker.
set -euo pipefail
cd "$(dirname "$0")/../.."
tests/infra/k8s-tools.sh
venv=$(tests/infra/pytools.sh)
helm=.tools/bin/helm
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for values in "" helm/tacker/values-ha.yaml; do
  name=${values:+ha}; name=${name:-default}
  args=(); [ -n "$values" ] && args=(-f "$values")
  "$helm" lint --strict helm/tacker "${args[@]}" >/dev/null
  "$helm" template tacker helm/tacker "${args[@]}" >"$out/$name.yaml"
  "$venv/bin/kubernetes-validate" -k 1.32.0 --strict --quiet --no-warn "$out/$name.yaml"
  "$venv/bin/python" - "$out/$name.yaml" "$out/$name.toml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
cm = next(d for d in docs if d["kind"] == "ConfigMap" and "tacker.toml" in d.get("data", {}))
open(sys.argv[2], "w").write(cm["data"]["tacker.toml"])
# The dashboard ConfigMap (HA profile): the sidecar's label and a dashboard that parses.
for d in docs:
    if d["kind"] == "ConfigMap" and "tacker.json" in d.get("data", {}):
        assert d["metadata"]["labels"].get("grafana_dashboard") == "1", d["metadata"]
        import json
        assert json.loads(d["data"]["tacker.json"])["panels"], "empty dashboard"
# The generated token signing key, for tacker to read below.
sec = next(d for d in docs if d["kind"] == "Secret")
# The HA profile names the three broker nodes and PostgreSQL's read-write Service.
if sys.argv[1].endswith("ha.yaml"):
    assert len(sec["stringData"]["bus-url"].split(",")) == 3, sec["stringData"]["bus-url"]
    assert "target_session_attrs=read-write" in sec["stringData"]["database-url"]
open(sys.argv[2] + ".pem", "w").write(sec["stringData"]["auth-signing-key"])
PY
  cargo run -q -p tacker -- --config "$out/$name.toml" config show >/dev/null
  # With the Secret's URLs as the pods get them.
  "$venv/bin/python" - "$out/$name.yaml" > "$out/$name.env" <<'PY'
import sys, yaml, shlex
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
sec = next(d for d in docs if d["kind"] == "Secret")["stringData"]
print("TACKER__BUS__URL=" + shlex.quote(sec["bus-url"]))
print("TACKER__DATABASE__URL=" + shlex.quote(sec["database-url"]))
PY
  env $(cat "$out/$name.env" | tr -d "'") cargo run -q -p tacker -- --config "$out/$name.toml" config show >/dev/null
  # An existing file is checked, not replaced.
  cargo run -q -p tacker -- auth generate-key --out "$out/$name.toml.pem" | grep -q kept
done
# Keystone's tokens as the values comment shows them: tacker accepts the rendered file
# with the password the Secret passes as environment.
"$helm" template tacker helm/tacker --set config.auth.mode=keystone \
  --set config.auth.keystone_url=http://keystone.openstack.svc:5000/v3 \
  --set config.auth.keystone_username=tacker --set config.auth.keystone_project=service \
  --set secrets.keystonePassword=pw >"$out/keystone.yaml"
"$venv/bin/python" - "$out/keystone.yaml" "$out/keystone.toml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
cm = next(d for d in docs if d["kind"] == "ConfigMap" and "tacker.toml" in d.get("data", {}))
open(sys.argv[2], "w").write(cm["data"]["tacker.toml"])
sec = next(d for d in docs if d["kind"] == "Secret")
assert sec["stringData"]["keystone-password"] == "pw", sec["stringData"].keys()
PY
TACKER__AUTH__KEYSTONE_PASSWORD=pw cargo run -q -p tacker -- --config "$out/keystone.toml" config show | grep -q 'mode = "keystone"'

echo "helm chart: lint, render (default, HA), validate: ok"
