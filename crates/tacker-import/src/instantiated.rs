//! What Tacker's v2 API recorded of an instance it instantiated, made ours, so that our
//! drivers act on the resources Tacker made:
//! - a CNF deployed from manifests: Tacker's record (`instantiatedVnfInfo.metadata`:
//!   `namespace`, `lcm-kubernetes-def-files`, and `vdu_reses`, each VDU's manifest)
//!   becomes our Kubernetes driver's, which then finds the CNF's objects by Tacker's label
//!   and its Pods through their owners;
//! - a VM VNF on Heat: Tacker's stack (`stack_id`, in stack `vnf-<instance id>`) and the
//!   `nfv` parameter it ran with become our OpenStack driver's record, each VNFC's stack
//!   and autoscaling group member in our keys. A VM VNF Tacker laid out per VNFC
//!   (StandardUserData: each VNFC a copy `VDU1-<vdu_idx>` of the VDU's nested template in
//!   the top stack) is recorded in that layout, each copy's place in the top stack named,
//!   and `nfv` given the VDUs' own entries Tacker keeps only per copy, which copies added
//!   here by a scale out start from.
//! - a CNF Tacker installed as a Helm release: the release (its name, namespace, chart
//!   in the package, `helm_value_names` and revision) and each VDU's workload become our
//!   Helm driver's record, which then finds the Pods through their owners; the values
//!   Tacker installed it with stay the release's (our upgrades start from them).
//!
//! What our drivers could not heal, scale or terminate is refused with the reason: an
//! instance must not look imported when it is not.

use serde_json::{Map, Value};
use tacker_domain::lcm::InstantiatedVnfInfo;
use tacker_domain::lcm::vim_type;
use tacker_domain::vim::VimConnections;
use tacker_infra_k8s::{HelmRecord, Maker, ManifestRecord, VduResource};

use crate::json::unquoted;

/// Tacker's `instantiatedVnfInfo` of instance `id`, whose VIM connections are `vims`, as
/// ours; `Err` says why it cannot come over.
pub fn instantiated(
    info: Value,
    vims: &VimConnections,
    id: &str,
) -> Result<InstantiatedVnfInfo, String> {
    let mut info: InstantiatedVnfInfo = serde_json::from_value(info).map_err(|e| {
        format!(
            "its instantiatedVnfInfo is not one ours takes: {}",
            unquoted(&e.to_string())
        )
    })?;
    let (key, vim) = match vims.iter().collect::<Vec<_>>().as_slice() {
        [one] => *one,
        [] => return Err("it is instantiated but names no VIM connection".into()),
        _ => {
            return Err(format!(
                "it is instantiated with {} VIM connections; one is imported",
                vims.len()
            ));
        }
    };
    let kind = vim_type::canonical(vim.vim_type.as_deref().unwrap_or_default());
    let meta = info.driver_metadata().cloned().unwrap_or_default();
    for r in &mut info.vnfc_resource_info {
        r.compute_resource
            .vim_connection_id
            .get_or_insert_with(|| key.clone());
    }
    match kind.as_str() {
        vim_type::HELM => {
            let record = helm_record(&meta)?;
            for r in &mut info.vnfc_resource_info {
                r.metadata
                    .entry("namespace")
                    .or_insert_with(|| Value::String(record.namespace.clone()));
            }
            record.write_to(&mut info);
        }
        _ if meta.contains_key("release_name") => {
            return Err(format!(
                "it is a Helm release on a VIM of type {kind:?}, not {}",
                vim_type::HELM
            ));
        }
        vim_type::KUBERNETES => {
            let record = record(&meta)?;
            for r in &mut info.vnfc_resource_info {
                r.metadata
                    .entry("namespace")
                    .or_insert_with(|| Value::String(record.namespace.clone()));
            }
            record.write_to(&mut info);
        }
        vim_type::OPENSTACK => vm(&mut info, meta, id)?,
        other => return Err(format!("its VIM type {other:?} is not one ours drives")),
    }
    Ok(info)
}

/// Tacker's record of a VM VNF as our OpenStack driver's.
fn vm(
    info: &mut InstantiatedVnfInfo,
    mut meta: Map<String, Value>,
    id: &str,
) -> Result<(), String> {
    let per_vnfc = info
        .vnfc_resource_info
        .iter()
        .any(|r| r.metadata.contains_key(INDEX));
    let stack = meta
        .get("stack_id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or("Tacker recorded no stack_id of the VM VNF")?;
    // Tacker keeps the id alone; the stack is `vnf-<instance id>`.
    let stack = if stack.contains('/') {
        stack.to_owned()
    } else {
        format!("vnf-{id}/{stack}")
    };
    let Some(Value::Object(nfv)) = meta.get_mut("nfv") else {
        return Err("Tacker recorded no nfv parameter of the VM VNF".into());
    };
    if per_vnfc {
        with_base_entries(nfv);
        meta.insert("userDataClass".into(), Value::String(STANDARD.into()));
    }
    // Tacker uploaded its images for it alone (tagged with its id): they go with it.
    meta.insert("made_by".into(), Value::String("tacker".into()));
    // The project Tacker's enhanced policy read; ours owns the instance by its tenant.
    meta.remove("tenant");
    for r in &mut info.vnfc_resource_info {
        for (theirs, ours) in [("stack_id", "stack"), ("parent_stack_id", "parent_stack")] {
            if let Some(v) = r.metadata.remove(theirs) {
                r.metadata.insert(ours.into(), v);
            }
        }
        // A copy's place: resource `<VDU>-<vdu_idx>` of the top stack.
        if let Some(index) = r.metadata.get(INDEX) {
            let index = index
                .as_u64()
                .ok_or_else(|| format!("VNFC {} has vdu_idx {index}, not a copy's number", r.id))?;
            let copy = format!("{}-{index}", r.vdu_id);
            r.metadata
                .insert("parent_stack".into(), Value::String(stack.clone()));
            r.metadata
                .insert("parent_resource_name".into(), Value::String(copy));
        } else if per_vnfc {
            return Err(format!(
                "VNFC {} of a VM VNF laid out per VNFC has no vdu_idx",
                r.id
            ));
        }
    }
    meta.insert("stack_id".into(), Value::String(stack));
    info.other.insert("metadata".into(), Value::Object(meta));
    Ok(())
}

/// Tacker's user-data class of the per-VNFC layout.
const STANDARD: &str = "StandardUserData";
/// A VNFC's index among its VDU's copies.
const INDEX: &str = "vdu_idx";

/// `nfv.VDU` and `nfv.CP` given an entry of each name Tacker keeps only per copy
/// (`VDU1-0`, `VDU1_CP1-0`): the lowest copy's, which our driver starts new copies from.
/// Of a CP's, only what a new copy may share: its network and subnets, not the port or
/// the fixed addresses of the copy it came from.
fn with_base_entries(nfv: &mut Map<String, Value>) {
    for section in ["VDU", "CP"] {
        let Some(Value::Object(entries)) = nfv.get_mut(section) else {
            continue;
        };
        let mut lowest: std::collections::BTreeMap<String, (u64, Value)> = Default::default();
        for (key, v) in entries.iter() {
            let Some((name, index)) = key.rsplit_once('-') else {
                continue;
            };
            let Ok(index) = index.parse::<u64>() else {
                continue;
            };
            if lowest.get(name).is_none_or(|(i, _)| index < *i) {
                lowest.insert(name.to_owned(), (index, v.clone()));
            }
        }
        for (name, (_, v)) in lowest {
            let v = if section == "CP" { shared_cp(&v) } else { v };
            entries.entry(name).or_insert(v);
        }
    }
}

/// The namespace Tacker recorded of a CNF.
fn namespace(meta: &Map<String, Value>) -> Result<&str, String> {
    meta.get("namespace")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| "Tacker recorded no namespace of the CNF".to_owned())
}

/// Each VDU's object (kind and name) of Tacker's `vdu_reses`.
fn vdus(meta: &Map<String, Value>) -> Result<Vec<VduResource>, String> {
    let reses = meta
        .get("vdu_reses")
        .and_then(Value::as_object)
        .ok_or("Tacker recorded no vdu_reses of the CNF")?;
    let mut vdus = Vec::new();
    for (vdu, body) in reses {
        let text = |p: &str| body.pointer(p).and_then(Value::as_str).map(str::to_owned);
        let (Some(kind), Some(name)) = (text("/kind"), text("/metadata/name")) else {
            return Err(format!(
                "Tacker's manifest of VDU {vdu} has no kind or name"
            ));
        };
        vdus.push(VduResource {
            vdu_id: vdu.clone(),
            kind,
            name,
        });
    }
    Ok(vdus)
}

/// Our Helm driver's record of the release Tacker installed, as `meta` records it: its
/// name (Tacker's `vnf<id without dashes>`), namespace, chart in the package, the
/// values naming each VDU's replicas, the revision of Tacker's last operation (which a
/// failed operation here rolls back to) and each VDU's workload.
fn helm_record(meta: &Map<String, Value>) -> Result<HelmRecord, String> {
    let text = |k: &str| {
        meta.get(k)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| format!("Tacker recorded no {k} of the Helm release"))
    };
    // Tacker keeps the revision `helm status` printed, as text.
    let revision = match meta.get("revision") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    }
    .ok_or("Tacker recorded no revision of the Helm release")?;
    let names = match meta.get("helm_value_names") {
        None | Some(Value::Null) => Default::default(),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|e| format!("Tacker's helm_value_names are not ones ours takes: {e}"))?,
    };
    Ok(HelmRecord {
        release: text("release_name")?,
        namespace: namespace(meta)?.to_owned(),
        chart: text("helm_chart_path")?,
        names,
        revision,
        vdus: vdus(meta)?,
        stopped_replicas: Default::default(),
    })
}

/// What of a copy's CP entry another copy may share: `network`, and the subnets of its
/// `fixed_ips` (without their addresses).
fn shared_cp(cp: &Value) -> Value {
    let mut out = Map::new();
    if let Some(n) = cp.get("network") {
        out.insert("network".into(), n.clone());
    }
    let subnets: Vec<Value> = cp
        .get("fixed_ips")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|f| f.get("subnet"))
        .map(|s| serde_json::json!({ "subnet": s }))
        .collect();
    if !subnets.is_empty() {
        out.insert("fixed_ips".into(), Value::Array(subnets));
    }
    Value::Object(out)
}

/// Our Kubernetes driver's record of the CNF Tacker recorded in `meta`.
fn record(meta: &Map<String, Value>) -> Result<ManifestRecord, String> {
    let namespace = namespace(meta)?;
    let files: Vec<String> = meta
        .get("lcm-kubernetes-def-files")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .filter(|f: &Vec<String>| !f.is_empty())
        .ok_or("Tacker recorded no lcm-kubernetes-def-files of the CNF")?;
    Ok(ManifestRecord {
        namespace: namespace.to_owned(),
        files,
        vdus: vdus(meta)?,
        stopped_replicas: Default::default(),
        made_by: Maker::Tacker,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vims(vim_type: &str) -> VimConnections {
        serde_json::from_value(json!({"vim1": {"vimId": "v-1", "vimType": vim_type}})).unwrap()
    }

    fn tackers(meta: Value) -> Value {
        json!({"flavourId": "simple", "vnfState": "STARTED",
            "scaleStatus": [{"aspectId": "vdu2_aspect", "scaleLevel": 0}],
            "vnfcResourceInfo": [{"id": "vdu2-5d8b6f7c9-abcde", "vduId": "VDU2",
                "computeResource": {"resourceId": "vdu2-5d8b6f7c9-abcde",
                    "vimLevelResourceType": "Deployment"}, "metadata": {}}],
            "metadata": meta})
    }

    #[test]
    fn a_cnf_from_manifests_is_recorded_as_ours_made_by_tacker() {
        let meta = json!({"namespace": "default", "tenant": "default",
            "lcm-kubernetes-def-files": ["Files/kubernetes/deployment.yaml"],
            "vdu_reses": {"VDU2": {"kind": "Deployment", "metadata": {"name": "vdu2"},
                "spec": {"replicas": 1}}}});
        let info = instantiated(tackers(meta), &vims("ETSINFV.KUBERNETES.V_1"), "i-1").unwrap();
        let rec = ManifestRecord::of(&info).unwrap();
        assert_eq!(rec.made_by, Maker::Tacker);
        assert_eq!(rec.namespace, "default");
        assert_eq!(rec.files, ["Files/kubernetes/deployment.yaml"]);
        assert_eq!(
            (
                rec.vdus[0].vdu_id.as_str(),
                rec.vdus[0].kind.as_str(),
                rec.vdus[0].name.as_str()
            ),
            ("VDU2", "Deployment", "vdu2")
        );
        assert_eq!(Maker::of(Some(&info)), Maker::Tacker);
        let r = &info.vnfc_resource_info[0];
        assert_eq!(
            r.compute_resource.vim_connection_id.as_deref(),
            Some("vim1")
        );
        assert_eq!(r.metadata["namespace"], "default");
        assert_eq!(info.scale_status[0].aspect_id, "vdu2_aspect");
        // Tacker's manifests do not stay in the record.
        assert!(!info.driver_metadata().unwrap().contains_key("vdu_reses"));
    }

    #[test]
    fn what_our_drivers_cannot_act_on_is_refused_with_the_reason() {
        let helm = json!({"namespace": "default", "release_name": "r"});
        let why = instantiated(tackers(helm.clone()), &vims("ETSINFV.HELM.V_3"), "i").unwrap_err();
        assert!(why.contains("of the Helm release"), "{why}");
        let why = instantiated(tackers(helm), &vims("kubernetes"), "i").unwrap_err();
        assert!(why.contains("Helm release on a VIM"), "{why}");
        let os = vims("ETSINFV.OPENSTACK_KEYSTONE.V_3");
        let why = instantiated(tackers(json!({"nfv": {}})), &os, "i").unwrap_err();
        assert!(why.contains("stack_id"), "{why}");
        let partial = json!({"namespace": "default", "vdu_reses": {}});
        let why = instantiated(tackers(partial), &vims("kubernetes"), "i").unwrap_err();
        assert!(why.contains("lcm-kubernetes-def-files"), "{why}");
        let why = instantiated(tackers(json!({})), &VimConnections::new(), "i").unwrap_err();
        assert!(why.contains("no VIM connection"), "{why}");
    }

    #[test]
    fn a_vm_vnf_keeps_its_stack_and_nfv_in_our_keys() {
        let meta = json!({"stack_id": "5a1e", "tenant": "p",
            "nfv": {"VDU": {"VDU1": {"computeFlavourId": "m1.tiny", "desired_capacity": 1}}}});
        let mut t = tackers(meta);
        t["vnfcResourceInfo"][0]["metadata"] = json!({"stack_id": "vnf-i-VDU1-x/1",
            "parent_stack_id": "vnf-i-VDU1_scale_group-y/2", "parent_resource_name": "m1",
            "flavor": "m1.tiny"});
        let info = instantiated(t, &vims("ETSINFV.OPENSTACK_KEYSTONE.V_3"), "i").unwrap();
        let m = info.driver_metadata().unwrap();
        assert_eq!(m["stack_id"], "vnf-i/5a1e");
        assert_eq!(m["nfv"]["VDU"]["VDU1"]["desired_capacity"], 1);
        assert!(!m.contains_key("tenant"));
        assert_eq!(m["made_by"], "tacker");
        let r = &info.vnfc_resource_info[0].metadata;
        assert_eq!(
            (&r["stack"], &r["parent_stack"], &r["parent_resource_name"]),
            (
                &json!("vnf-i-VDU1-x/1"),
                &json!("vnf-i-VDU1_scale_group-y/2"),
                &json!("m1")
            )
        );
    }

    #[test]
    fn a_vm_vnf_laid_out_per_vnfc_keeps_its_copies_in_our_keys() {
        let meta = json!({"stack_id": "5a1e", "nfv": {
            "VDU": {"VDU1-0": {"computeFlavourId": "m1.tiny", "vcImageId": "img-1"},
                    "VDU1-1": {"computeFlavourId": "m1.tiny", "vcImageId": "img-1"}},
            "CP": {"VDU1_CP1-0": {"network": "net-1", "port": "port-of-copy-0"},
                   "VDU1_CP1-1": {"network": "net-1"}}}});
        let mut t = tackers(meta);
        t["vnfcResourceInfo"][0]["vduId"] = json!("VDU1");
        t["vnfcResourceInfo"][0]["metadata"] =
            json!({"stack_id": "vnf-i-VDU1-1-x/3", "vdu_idx": 1, "flavor": "m1.tiny"});
        let os = vims("ETSINFV.OPENSTACK_KEYSTONE.V_3");
        let info = instantiated(t.clone(), &os, "i").unwrap();
        let m = info.driver_metadata().unwrap();
        assert_eq!(m["userDataClass"], "StandardUserData");
        assert_eq!(m["nfv"]["VDU"]["VDU1"]["vcImageId"], "img-1");
        assert_eq!(m["nfv"]["CP"]["VDU1_CP1"], json!({"network": "net-1"}));
        let r = &info.vnfc_resource_info[0].metadata;
        assert_eq!(
            (
                &r["stack"],
                &r["parent_stack"],
                &r["parent_resource_name"],
                &r["vdu_idx"]
            ),
            (
                &json!("vnf-i-VDU1-1-x/3"),
                &json!("vnf-i/5a1e"),
                &json!("VDU1-1"),
                &json!(1)
            )
        );
        // A VNFC of no copy among copies: refused, not guessed.
        let mut mixed = t;
        let other = json!({"id": "s-2", "vduId": "VDU2", "metadata": {"stack_id": "x/1"},
            "computeResource": {"resourceId": "s-2"}});
        mixed["vnfcResourceInfo"]
            .as_array_mut()
            .unwrap()
            .push(other);
        let why = instantiated(mixed, &os, "i").unwrap_err();
        assert!(why.contains("no vdu_idx"), "{why}");
    }

    #[test]
    fn a_helm_release_is_recorded_as_our_helm_drivers() {
        let meta = json!({"namespace": "cnf", "tenant": "cnf", "release_name": "vnf1a2b",
            "helm_chart_path": "Files/kubernetes/test-chart", "revision": "2",
            "helm_value_names": {"VDU2": {"replica": "replicaCountVdu2"}},
            "vdu_reses": {"VDU2": {"kind": "Deployment", "metadata": {"name": "vdu2"}}}});
        let info = instantiated(tackers(meta), &vims("ETSINFV.HELM.V_3"), "i").unwrap();
        let rec = HelmRecord::of(&info).unwrap();
        assert_eq!(
            (
                rec.release.as_str(),
                rec.namespace.as_str(),
                rec.chart.as_str(),
                rec.revision
            ),
            ("vnf1a2b", "cnf", "Files/kubernetes/test-chart", 2)
        );
        assert_eq!(
            rec.names["VDU2"].replica.as_deref(),
            Some("replicaCountVdu2")
        );
        assert_eq!(
            (rec.vdus[0].kind.as_str(), rec.vdus[0].name.as_str()),
            ("Deployment", "vdu2")
        );
        assert_eq!(info.vnfc_resource_info[0].metadata["namespace"], "cnf");
    }
}
