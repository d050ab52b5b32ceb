#!/usr/bin/env bash
# grafana-check.sh: the Grafana dashboard (helm/tacker/dashboards/tacker.json, linked
# from deploy/grafana/) parses, and every metric its PromQL expressions name is one the
# code registers (a metric name literal in a crate's sources). The integration test
# `readme::the_readme_quickstart_runs_as_written` checks them against a live scrape.
set -euo pipefail
cd "$(dirname "$0")/../.."
dash=deploy/grafana/tacker.json
cmp -s "$dash" helm/tacker/dashboards/tacker.json || { echo "grafana: $dash differs from the chart's" >&2; exit 1; }
jq -e '.panels | length > 0' "$dash" >/dev/null || { echo "grafana: $dash has no panels" >&2; exit 1; }
missing=()
for m in $(jq -r '.panels[].targets[].expr' "$dash" | grep -o 'tacker_[a-z_]*' | sed -E 's/_(bucket|sum|count)$//' | sort -u); do
  grep -rqF "\"${m#tacker_}\"" crates/*/src || missing+=("$m")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "grafana: $dash names metrics the code does not export: ${missing[*]}" >&2
  exit 1
fi
echo "grafana dashboard: parses, every metric exported: ok"
