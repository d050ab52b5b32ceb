//! The Prometheus rules of a PM job or threshold: one alerting rule per metric and
//! object (or sub-object), its expression from the PromQL table (Tacker's
//! `prometheus-plugin.yaml` templates: `{pod}`, `{namespace}`, `{sub_object_instance_id}`,
//! `{collection_period}`, `{reporting_period}`), firing all the time (no comparison) so
//! that Alertmanager posts its value (`annotations.value`) to `/pm_event` or
//! `/pm_threshold` with the labels naming what it is.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};
use uuid::Uuid;

use super::Metric;
use super::job::PmJob;
use super::threshold::Threshold;
use crate::lcm::{InstantiatedVnfInfo, VnfInstance};

/// Upstream Tacker's PromQL table (`etc/tacker/prometheus-plugin.yaml`), the default of
/// `pm.promql`.
pub fn default_promql() -> BTreeMap<String, String> {
    let cpu = |agg: &str| {
        format!(
            "{agg}(sum(rate(pod_cpu_usage_seconds_total{{{{namespace=\"{{namespace}}\",pod=~\"{{pod}}\"}}}}[{{reporting_period}}s])))"
        )
    };
    let mem = |agg: &str| {
        format!(
            "{agg}(pod_memory_working_set_bytes{{{{namespace=\"{{namespace}}\",pod=~\"{{pod}}\"}}}} / on(pod) (kube_node_status_capacity{{{{resource=\"memory\"}}}} * on(node) group_right kube_pod_info{{{{pod=~\"{{pod}}\"}}}}))"
        )
    };
    let disk = |agg: &str| {
        format!(
            "{agg}(max(container_fs_usage_bytes{{{{namespace=\"{{namespace}}\",pod=~\"{{pod}}\"}}}}/container_fs_limit_bytes{{{{namespace=\"{{namespace}}\",pod=~\"{{pod}}\"}}}}))"
        )
    };
    let net = |series: &str| {
        format!(
            "sum({series}{{{{namespace=\"{{namespace}}\",interface=\"{{sub_object_instance_id}}\",pod=~\"{{pod}}\"}}}})"
        )
    };
    let mut t = BTreeMap::new();
    t.insert("VCpuUsageMeanVnf".to_owned(), cpu("avg"));
    t.insert("VCpuUsagePeakVnf".to_owned(), cpu("max"));
    t.insert("VMemoryUsageMeanVnf".to_owned(), mem("avg"));
    t.insert("VMemoryUsagePeakVnf".to_owned(), mem("max"));
    t.insert("VDiskUsageMeanVnf".to_owned(), disk("avg"));
    t.insert("VDiskUsagePeakVnf".to_owned(), disk("max"));
    for cp in ["Int", "Ext"] {
        for (m, series) in [
            ("ByteIncoming", "container_network_receive_bytes_total"),
            ("ByteOutgoing", "container_network_transmit_bytes_total"),
            ("PacketIncoming", "container_network_receive_packets_total"),
            ("PacketOutgoing", "container_network_transmit_packets_total"),
        ] {
            t.insert(format!("{m}Vnf{cp}Cp"), net(series));
        }
    }
    t
}

/// The names a template may use.
pub const TEMPLATE_NAMES: &[&str] = &[
    "pod",
    "namespace",
    "sub_object_instance_id",
    "collection_period",
    "reporting_period",
];

/// Fills `template` (`{name}` replaced, `{{` and `}}` are braces).
pub fn fill(template: &str, vars: &BTreeMap<&str, String>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(after) = tail.strip_prefix("{{") {
            out.push('{');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("}}") {
            out.push('}');
            rest = after;
        } else if let Some(stripped) = tail.strip_prefix('{') {
            let end = stripped
                .find('}')
                .ok_or_else(|| format!("unclosed {{ in {template:?}"))?;
            let name = &stripped[..end];
            let v = vars
                .get(name)
                .ok_or_else(|| format!("unknown name {{{name}}} in {template:?}"))?;
            out.push_str(v);
            rest = &stripped[end + 1..];
        } else {
            return Err(format!("unmatched }} in {template:?}"));
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// Checks every template of `table` (for the configuration).
pub fn check_table(table: &BTreeMap<String, String>) -> Result<(), String> {
    let vars: BTreeMap<&str, String> = TEMPLATE_NAMES
        .iter()
        .map(|n| (*n, "x".to_owned()))
        .collect();
    for (k, t) in table {
        fill(t, &vars).map_err(|e| format!("pm.promql.{k}: {e}"))?;
    }
    Ok(())
}

/// The namespace of the instance's Pods (`default` when none says).
fn namespace(i: &VnfInstance) -> String {
    let info = i.instantiated_vnf_info.as_ref();
    info.and_then(InstantiatedVnfInfo::cnf_namespace)
        .or_else(|| {
            info.and_then(|x| x.vnfc_resource_info.first())
                .and_then(|r| r.metadata.get("namespace"))
                .and_then(Value::as_str)
        })
        .unwrap_or("default")
        .to_owned()
}

fn strip(name: &str, parts: usize) -> &str {
    let mut s = name;
    for _ in 0..parts {
        s = s.rsplit_once('-').map_or(s, |(a, _)| a);
    }
    s
}

/// A pattern of the instance's Pods now and after scaling or healing: by the name
/// scheme of each VNFC's controller.
pub fn pod_pattern(i: &VnfInstance) -> String {
    let mut alts = BTreeSet::new();
    for r in i
        .instantiated_vnf_info
        .iter()
        .flat_map(|x| &x.vnfc_resource_info)
    {
        let name = r.compute_resource.resource_id.as_str();
        let alt = match r.compute_resource.vim_level_resource_type.as_deref() {
            Some("Deployment") => format!("{}-[0-9a-z]{{1,10}}-[0-9a-z]{{5}}", strip(name, 2)),
            Some("ReplicaSet" | "DaemonSet") => format!("{}-[0-9a-z]{{5}}", strip(name, 1)),
            Some("StatefulSet") => format!("{}-[0-9]+", strip(name, 1)),
            _ => name.to_owned(),
        };
        alts.insert(alt.replace('.', "[.]"));
    }
    format!("({})", alts.into_iter().collect::<Vec<_>>().join("|"))
}

/// The exact Pod of VNFC `vnfc` (a `vnfcInfo` id) of `i`, if it has it.
fn pod_of(i: &VnfInstance, vnfc: &str) -> Option<String> {
    let info = i.instantiated_vnf_info.as_ref()?;
    let c = info.vnfc_info.iter().find(|c| c.id == vnfc)?;
    info.vnfc_resource_info
        .iter()
        .find(|r| r.id == c.vnfc_resource_info_id)
        .map(|r| r.compute_resource.resource_id.replace('.', "[.]"))
}

/// What the rules are for.
#[derive(Debug, Clone, Copy)]
pub enum Owner<'a> {
    /// A PM job (`function_type: vnfpm`).
    Job(&'a PmJob),
    /// A threshold (`function_type: vnfpm_threshold`).
    Threshold(&'a Threshold, u32, u32),
}

impl Owner<'_> {
    fn id(&self) -> Uuid {
        match self {
            Owner::Job(j) => j.id,
            Owner::Threshold(t, ..) => t.id,
        }
    }

    /// `(collection, reporting)` periods in seconds.
    fn periods(&self) -> (u32, u32) {
        match self {
            Owner::Job(j) => (j.criteria.collection_period, j.criteria.reporting_period),
            Owner::Threshold(_, c, r) => (*c, *r),
        }
    }
}

/// The name of the rule group (and file, and PrometheusRule) of `id`.
pub fn group_name(id: Uuid) -> String {
    format!("tacker-{id}")
}

/// The rule group of `owner` over `instances` (its objects; `only`: of that one
/// object), its expressions from `table`; why not when a metric has no template or an
/// object is not instantiated.
pub fn group(
    owner: Owner<'_>,
    instances: &BTreeMap<Uuid, VnfInstance>,
    table: &BTreeMap<String, String>,
    only: Option<Uuid>,
) -> Result<Value, String> {
    let (collection, reporting) = owner.periods();
    let (function, id_label, metrics, objects, subs): (
        &str,
        &str,
        Vec<Metric>,
        Vec<Uuid>,
        Vec<String>,
    ) = match owner {
        Owner::Job(j) => (
            "vnfpm",
            "job_id",
            j.metrics(),
            j.object_instance_ids.clone(),
            j.sub_object_instance_ids.clone(),
        ),
        Owner::Threshold(t, ..) => (
            "vnfpm_threshold",
            "threshold_id",
            vec![super::metric(
                t.object_type,
                &t.criteria.performance_metric,
            )?],
            vec![t.object_instance_id],
            t.sub_object_instance_ids.clone(),
        ),
    };
    let object_type = match owner {
        Owner::Job(j) => j.object_type,
        Owner::Threshold(t, ..) => t.object_type,
    };
    let mut rules = Vec::new();
    for m in &metrics {
        let template = table
            .get(&m.name)
            .ok_or_else(|| format!("pm.promql has no template for {}", m.name))?;
        for o in &objects {
            if m.object.as_deref().is_some_and(|x| *x != o.to_string())
                || only.is_some_and(|x| x != *o)
            {
                continue;
            }
            let i = instances
                .get(o)
                .filter(|i| i.instantiated_vnf_info.is_some())
                .ok_or_else(|| format!("VNF instance {o} is not instantiated"))?;
            let targets: Vec<Option<&String>> = if subs.is_empty() {
                vec![None]
            } else {
                subs.iter().map(Some).collect()
            };
            for sub in targets {
                let pod = match (object_type, sub) {
                    (super::ObjectType::Vnfc, Some(v)) => pod_of(i, v).ok_or_else(|| {
                        format!("subObjectInstanceId {v} is not a VNFC of VNF instance {o}")
                    })?,
                    _ => pod_pattern(i),
                };
                let vars = BTreeMap::from([
                    ("pod", pod),
                    ("namespace", namespace(i)),
                    (
                        "sub_object_instance_id",
                        sub.cloned().unwrap_or_else(|| "*".into()),
                    ),
                    ("collection_period", collection.to_string()),
                    ("reporting_period", reporting.to_string()),
                ]);
                let mut labels = json!({
                    "receiver_type": "tacker",
                    "function_type": function,
                    id_label: owner.id(),
                    "object_instance_id": o,
                    "metric": m.full,
                });
                if let Some(s) = sub {
                    labels["sub_object_instance_id"] = json!(s);
                }
                rules.push(json!({
                    "alert": format!("tacker_{}_{}", function, rules.len()),
                    "expr": fill(template, &vars)?,
                    "for": format!("{collection}s"),
                    "labels": labels,
                    "annotations": {"value": "{{ $value }}"},
                }));
            }
        }
    }
    Ok(json!({"name": group_name(owner.id()), "rules": rules}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_fill_names_and_keep_doubled_braces() {
        let vars = BTreeMap::from([("pod", "a".to_owned()), ("namespace", "ns".to_owned())]);
        assert_eq!(
            fill("x{{ns=\"{namespace}\",pod=~\"{pod}\"}}", &vars).unwrap(),
            "x{ns=\"ns\",pod=~\"a\"}"
        );
        assert!(fill("{nope}", &vars).is_err());
        assert!(fill("{pod", &vars).is_err());
        check_table(&default_promql()).unwrap();
        let cpu = &default_promql()["VCpuUsageMeanVnf"];
        let vars: BTreeMap<&str, String> = TEMPLATE_NAMES
            .iter()
            .map(|n| (*n, "V".to_owned()))
            .collect();
        assert_eq!(
            fill(cpu, &vars).unwrap(),
            "avg(sum(rate(pod_cpu_usage_seconds_total{namespace=\"V\",pod=~\"V\"}[Vs])))"
        );
    }
}
