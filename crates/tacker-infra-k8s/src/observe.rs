//! What runs: the instance's Pods mapped to VDUs through owner references, and whether
//! each resource is ready.

use std::collections::HashMap;

use k8s_openapi::api::core::v1::Pod;
use serde_json::Value;

use crate::cluster::Cluster;
use crate::error::Result;
use crate::manifest::{Doc, VduResource};

/// A Pod of a VDU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VnfcPod {
    /// The VDU.
    pub vdu_id: String,
    /// The owning kind (`Pod` for a bare Pod).
    pub kind: String,
    /// Pod name.
    pub name: String,
    /// Pod uid.
    pub uid: String,
    /// Running and Ready.
    pub ready: bool,
    /// Being deleted.
    pub terminating: bool,
}

/// Whether a Pod is Running and Ready.
pub fn pod_ready(p: &Pod) -> bool {
    let Some(s) = &p.status else { return false };
    s.phase.as_deref() == Some("Running")
        && s.conditions
            .as_ref()
            .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

fn controller(
    p: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
) -> Option<(String, String)> {
    p.owner_references
        .as_ref()?
        .iter()
        .find(|o| o.controller == Some(true))
        .map(|o| (o.kind.clone(), o.name.clone()))
}

/// The instance's Pods, each with its VDU (Pods of no VDU are left out). `selector`
/// narrows the Pods and ReplicaSets listed (the instance label for manifests; a Helm
/// release's Pods are found through their owners alone).
pub async fn vnfc_pods(
    cluster: &Cluster,
    ns: &str,
    selector: &str,
    vdus: &[VduResource],
) -> Result<Vec<VnfcPod>> {
    let pods = cluster.pods(ns, selector).await?;
    // ReplicaSet -> Deployment, for Deployments' Pods.
    let mut rs_owner: HashMap<String, String> = HashMap::new();
    if vdus.iter().any(|v| v.kind == "Deployment") {
        let t = cluster.resolve("apps/v1", "ReplicaSet").await?;
        for rs in cluster.list(&t, ns, selector).await? {
            let owner = rs
                .pointer("/metadata/ownerReferences")
                .and_then(Value::as_array)
                .and_then(|a| {
                    a.iter().find(|o| {
                        o.get("controller").and_then(Value::as_bool) == Some(true)
                            && o.get("kind").and_then(Value::as_str) == Some("Deployment")
                    })
                })
                .and_then(|o| o.get("name").and_then(Value::as_str));
            if let (Some(name), Some(owner)) =
                (rs.pointer("/metadata/name").and_then(Value::as_str), owner)
            {
                rs_owner.insert(name.to_owned(), owner.to_owned());
            }
        }
    }
    let mut out = Vec::new();
    for p in &pods {
        let name = p.metadata.name.clone().unwrap_or_default();
        let (kind, owner) = match controller(&p.metadata) {
            None => ("Pod".to_owned(), name.clone()),
            Some((k, o)) if k == "ReplicaSet" => match rs_owner.get(&o) {
                Some(d) => ("Deployment".to_owned(), d.clone()),
                None => (k, o),
            },
            Some(ko) => ko,
        };
        let Some(v) = vdus.iter().find(|v| v.kind == kind && v.name == owner) else {
            continue;
        };
        out.push(VnfcPod {
            vdu_id: v.vdu_id.clone(),
            kind,
            name,
            uid: p.metadata.uid.clone().unwrap_or_default(),
            ready: pod_ready(p),
            terminating: p.metadata.deletion_timestamp.is_some(),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn int(v: &Value, p: &str) -> i64 {
    v.pointer(p).and_then(Value::as_i64).unwrap_or(0)
}

/// Whether an object is ready (`Err(state)` if not), by kind.
pub fn object_ready(kind: &str, v: &Value) -> std::result::Result<(), String> {
    let generation_seen = int(v, "/status/observedGeneration") >= int(v, "/metadata/generation");
    let want = v
        .pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .unwrap_or(1);
    let ok = match kind {
        "Pod" => {
            v.pointer("/status/phase").and_then(Value::as_str) == Some("Running")
                && v.pointer("/status/conditions")
                    .and_then(Value::as_array)
                    .is_some_and(|c| {
                        c.iter()
                            .any(|c| c["type"] == "Ready" && c["status"] == "True")
                    })
        }
        "Deployment" => {
            generation_seen
                && int(v, "/status/readyReplicas") >= want
                && int(v, "/status/updatedReplicas") >= want
                && int(v, "/status/replicas") == want
        }
        "ReplicaSet" => {
            generation_seen
                && int(v, "/status/readyReplicas") == want
                && int(v, "/status/replicas") == want
        }
        // Rolled out too: every Pod of the current revision.
        "StatefulSet" => {
            generation_seen
                && int(v, "/status/readyReplicas") == want
                && int(v, "/status/replicas") == want
                && v.pointer("/status/updatedReplicas")
                    .and_then(Value::as_i64)
                    .is_none_or(|u| u == want)
        }
        "DaemonSet" => {
            let desired = int(v, "/status/desiredNumberScheduled");
            generation_seen
                && int(v, "/status/numberReady") == desired
                && int(v, "/status/currentNumberScheduled") == desired
                && v.pointer("/status/updatedNumberScheduled")
                    .and_then(Value::as_i64)
                    .is_none_or(|u| u == desired)
        }
        "PersistentVolumeClaim" => {
            v.pointer("/status/phase").and_then(Value::as_str) == Some("Bound")
        }
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        let status = v.get("status").map(Value::to_string).unwrap_or_default();
        Err(format!(
            "{kind} {}: {status}",
            v.pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or_default()
        ))
    }
}

/// Whether readiness of `kind` is more than being there (created is enough otherwise).
pub fn has_readiness(kind: &str) -> bool {
    matches!(
        kind,
        "Pod" | "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" | "PersistentVolumeClaim"
    )
}

/// Whether every document with a readiness rule is ready (`Err(state)` names the first
/// that is not). Documents found ready are recorded in `done` and not asked again.
pub async fn docs_ready(
    cluster: &Cluster,
    ns: &str,
    docs: &[&Doc],
    done: &std::sync::Mutex<std::collections::HashSet<usize>>,
) -> Result<std::result::Result<(), String>> {
    for (i, d) in docs.iter().enumerate() {
        if !d.ty.persisted
            || !has_readiness(&d.kind)
            || done
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .contains(&i)
        {
            continue;
        }
        match cluster.get(&d.ty, ns, &d.name).await? {
            None => return Ok(Err(format!("{} {} does not exist", d.kind, d.name))),
            Some(v) => {
                if let Err(state) = object_ready(&d.kind, &v) {
                    return Ok(Err(state));
                }
                done.lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(i);
            }
        }
    }
    Ok(Ok(()))
}

/// Whether every VDU's Pods are exactly its desired number, all ready, none going.
pub fn settled(
    pods: &[VnfcPod],
    desired: &HashMap<String, i64>,
) -> std::result::Result<(), String> {
    for (vdu, want) in desired {
        let mine: Vec<&VnfcPod> = pods.iter().filter(|p| p.vdu_id == *vdu).collect();
        let ready = mine.iter().filter(|p| p.ready && !p.terminating).count() as i64;
        let going = mine.iter().filter(|p| p.terminating).count();
        if ready != *want || going > 0 || mine.len() as i64 != *want {
            return Err(format!(
                "VDU {vdu}: {ready}/{want} Pods ready, {going} terminating"
            ));
        }
    }
    Ok(())
}

/// How many Pods each VDU should have now: 1 for a bare Pod, `spec.replicas` of a
/// Deployment, ReplicaSet or StatefulSet, the nodes a DaemonSet covers.
pub async fn desired(
    cluster: &Cluster,
    ns: &str,
    vdus: &[VduResource],
) -> Result<std::result::Result<HashMap<String, i64>, String>> {
    let mut out = HashMap::new();
    for v in vdus {
        let n = match v.kind.as_str() {
            "Pod" => 1,
            kind => {
                let t = cluster.resolve("apps/v1", kind).await?;
                let Some(obj) = cluster.get(&t, ns, &v.name).await? else {
                    return Ok(Err(format!("{kind} {} does not exist", v.name)));
                };
                if kind == "DaemonSet" {
                    if int(&obj, "/status/observedGeneration") < int(&obj, "/metadata/generation") {
                        return Ok(Err(format!("DaemonSet {} not observed yet", v.name)));
                    }
                    int(&obj, "/status/desiredNumberScheduled")
                } else {
                    obj.pointer("/spec/replicas")
                        .and_then(Value::as_i64)
                        .unwrap_or(1)
                }
            }
        };
        out.insert(v.vdu_id.clone(), n);
    }
    Ok(Ok(out))
}
