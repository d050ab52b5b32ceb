//! `vnfcResourceInfo` / `vnfcInfo` from Pods, and `affectedVnfcs` from what changed.

use std::collections::HashSet;

use serde_json::{Map, Value, json};
use tacker_domain::lcm::{ResourceHandle, VnfcInfo, VnfcResourceInfo};

use crate::observe::VnfcPod;

/// The VNFC resource of a Pod (its id is the Pod name, as Tacker does).
pub fn resource(p: &VnfcPod, ns: &str, vim_id: Option<&str>) -> VnfcResourceInfo {
    VnfcResourceInfo {
        id: p.name.clone(),
        vdu_id: p.vdu_id.clone(),
        compute_resource: ResourceHandle {
            vim_connection_id: vim_id.map(str::to_owned),
            resource_id: p.name.clone(),
            vim_level_resource_type: Some(p.kind.clone()),
        },
        vnfc_cp_info: Vec::new(),
        metadata: Map::from_iter([("namespace".to_owned(), Value::String(ns.to_owned()))]),
    }
}

/// The VNFC of a resource: id `<vduId>-<Pod name>` (what heal's `vnfcInstanceId` names).
pub fn info(r: &VnfcResourceInfo) -> VnfcInfo {
    VnfcInfo {
        id: format!("{}-{}", r.vdu_id, r.id),
        vdu_id: r.vdu_id.clone(),
        vnfc_resource_info_id: r.id.clone(),
        vnfc_state: "STARTED".into(),
        vnfc_configurable_properties: Default::default(),
    }
}

/// One `affectedVnfcs` entry.
pub fn affected(r: &VnfcResourceInfo, change: &str) -> Value {
    json!({
        "id": r.id,
        "vduId": r.vdu_id,
        "changeType": change,
        "computeResource": r.compute_resource,
    })
}

/// The new lists after a change, and `affectedVnfcs`.
#[derive(Debug, Clone, Default)]
pub struct Reconciled {
    /// `vnfcResourceInfo`.
    pub resources: Vec<VnfcResourceInfo>,
    /// `vnfcInfo`.
    pub infos: Vec<VnfcInfo>,
    /// `affectedVnfcs`.
    pub affected: Vec<Value>,
}

/// Reconciles the stored resources of the VDUs in `scope` (all when `None`) with the
/// Pods that run (terminating ones excluded). Entries of Pods still there stay as they
/// are (in `recreated`: reported MODIFIED); a gone Pod's place goes to a new Pod of the
/// same VDU; other new Pods are appended.
pub fn reconcile(
    old: &[VnfcResourceInfo],
    pods: &[VnfcPod],
    scope: Option<&HashSet<String>>,
    recreated: &HashSet<String>,
    ns: &str,
    vim_id: Option<&str>,
) -> Reconciled {
    let in_scope = |vdu: &str| scope.is_none_or(|s| s.contains(vdu));
    let live: Vec<&VnfcPod> = pods
        .iter()
        .filter(|p| !p.terminating && in_scope(&p.vdu_id))
        .collect();
    let known: HashSet<&str> = old
        .iter()
        .map(|r| r.compute_resource.resource_id.as_str())
        .collect();
    let mut fresh: Vec<&VnfcPod> = live
        .iter()
        .copied()
        .filter(|p| !known.contains(p.name.as_str()))
        .collect();
    let mut out = Reconciled::default();
    for r in old {
        if !in_scope(&r.vdu_id) {
            out.resources.push(r.clone());
            continue;
        }
        let still = live
            .iter()
            .any(|p| p.name == r.compute_resource.resource_id && p.vdu_id == r.vdu_id);
        if still {
            if recreated.contains(&r.compute_resource.resource_id) {
                out.affected.push(affected(r, "MODIFIED"));
            }
            out.resources.push(r.clone());
            continue;
        }
        out.affected.push(affected(r, "REMOVED"));
        if let Some(i) = fresh.iter().position(|p| p.vdu_id == r.vdu_id) {
            let p = fresh.remove(i);
            let n = resource(p, ns, vim_id);
            out.affected.push(affected(&n, "ADDED"));
            out.resources.push(n);
        }
    }
    for p in fresh {
        let n = resource(p, ns, vim_id);
        out.affected.push(affected(&n, "ADDED"));
        out.resources.push(n);
    }
    out.infos = out.resources.iter().map(info).collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(vdu: &str, name: &str) -> VnfcPod {
        VnfcPod {
            vdu_id: vdu.into(),
            kind: "Deployment".into(),
            name: name.into(),
            uid: name.into(),
            ready: true,
            terminating: false,
        }
    }

    #[test]
    fn replaced_pods_take_the_place_of_the_gone_ones() {
        let first = reconcile(
            &[],
            &[pod("A", "a-1"), pod("A", "a-2"), pod("B", "b-0")],
            None,
            &HashSet::new(),
            "ns",
            Some("vim"),
        );
        assert_eq!(first.resources.len(), 3);
        assert_eq!(first.infos[0].id, "A-a-1");
        assert_eq!(first.affected.len(), 3);
        let next = reconcile(
            &first.resources,
            &[pod("A", "a-3"), pod("A", "a-2"), pod("B", "b-0")],
            Some(&HashSet::from(["A".to_owned()])),
            &HashSet::new(),
            "ns",
            Some("vim"),
        );
        let ids: Vec<&str> = next.resources.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["a-3", "a-2", "b-0"]);
        let changes: Vec<(String, String)> = next
            .affected
            .iter()
            .map(|a| {
                (
                    a["id"].as_str().unwrap().to_owned(),
                    a["changeType"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        assert_eq!(
            changes,
            [
                ("a-1".into(), "REMOVED".into()),
                ("a-3".into(), "ADDED".into())
            ]
        );
    }

    #[test]
    fn recreated_pods_under_the_same_name_are_modified() {
        let first = reconcile(&[], &[pod("S", "s-0")], None, &HashSet::new(), "ns", None);
        let next = reconcile(
            &first.resources,
            &[pod("S", "s-0")],
            None,
            &HashSet::from(["s-0".to_owned()]),
            "ns",
            None,
        );
        assert_eq!(next.affected[0]["changeType"], "MODIFIED");
        assert_eq!(next.resources, first.resources);
    }
}
