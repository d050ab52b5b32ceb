//! Operate, the whole VNF: STOPPED scales every Deployment, ReplicaSet and StatefulSet
//! to zero (its replica count kept in the instance's record) and deletes bare Pods and
//! DaemonSets (FORCEFUL: every Pod at once; GRACEFUL: within `gracefulStopTimeout`,
//! else the Pods' own grace period); STARTED brings the counts back and creates the
//! bare Pods and DaemonSets again from the manifests. A stopped CNF keeps its
//! VNFCs (`vnfcState` STOPPED) and is left alone by the resource sync.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Map, Value};
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::operate::{OperateRequest, OperationalState, StopType};
use tacker_domain::lcm::{InstantiatedVnfInfo, OperationParams};

use super::{Stored, Work, counts_of, stored, wait_vdus};
use crate::cluster::Deletion;
use crate::error::{Error, Result};
use crate::record::ManifestRecord;
use crate::{observe, vnfc, wait};

/// The `vnfState` of a stopped VNF.
pub const STOPPED: &str = "STOPPED";

/// Whether the stored instance is stopped.
pub fn is_stopped(info: &InstantiatedVnfInfo) -> bool {
    info.vnf_state == STOPPED
}

/// Whether a VDU of `kind` stops by scaling to zero (else it is deleted and created
/// again from its manifest).
fn scaled(kind: &str) -> bool {
    matches!(kind, "Deployment" | "ReplicaSet" | "StatefulSet")
}

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let OperationParams::Operate(req) = &w.octx.op.request else {
        return Err(Error::Invalid("not an operate request".into()));
    };
    if !req.vnfc_instance_id.is_empty() {
        return Err(Error::Invalid(
            "operate on named VNFCs is not supported for Kubernetes VIMs (a workload's Pods \
             start and stop together): operate the whole VNF"
                .into(),
        ));
    }
    let s = stored(w.octx)?;
    let mut rec = ManifestRecord::of(&s.info)?;
    match (req.change_state_to, is_stopped(&s.info)) {
        (OperationalState::Stopped, false) => stop(w, &s, &mut rec, req).await,
        (OperationalState::Started, true) => start(w, &s, &mut rec).await,
        // Already as asked: nothing to do.
        _ => Ok(Outcome {
            instantiated_vnf_info: Some(s.info),
            resource_changes: Map::new(),
        }),
    }
}

/// The outcome of an operate: `info`, and `affected` as its `affectedVnfcs`.
pub(crate) fn outcome(info: InstantiatedVnfInfo, affected: Vec<Value>) -> Outcome {
    Outcome {
        instantiated_vnf_info: Some(info),
        resource_changes: Map::from_iter([("affectedVnfcs".to_owned(), Value::Array(affected))]),
    }
}

/// `info` with the VNF and every VNFC in `state`; the VNFCs that changed, MODIFIED.
pub(crate) fn with_state(
    mut info: InstantiatedVnfInfo,
    state: &str,
) -> (InstantiatedVnfInfo, Vec<Value>) {
    info.vnf_state = state.to_owned();
    let mut affected = Vec::new();
    for c in &mut info.vnfc_info {
        if c.vnfc_state != state {
            c.vnfc_state = state.to_owned();
            if let Some(r) = info
                .vnfc_resource_info
                .iter()
                .find(|r| r.id == c.vnfc_resource_info_id)
            {
                affected.push(vnfc::affected(r, "MODIFIED"));
            }
        }
    }
    (info, affected)
}

async fn stop(
    w: &Work<'_>,
    s: &Stored,
    rec: &mut ManifestRecord,
    req: &OperateRequest,
) -> Result<Outcome> {
    let grace = match req.stop_type {
        Some(StopType::Forceful) => Some(0),
        Some(StopType::Graceful) => req.graceful_stop_timeout,
        None => None,
    };
    let ns = &s.namespace;
    let mut kept = BTreeMap::new();
    let how = Deletion {
        grace,
        foreground: false,
    };
    for v in &s.vdus {
        if v.kind == "Pod" {
            continue;
        }
        let t = w.cluster.resolve("apps/v1", &v.kind).await?;
        if scaled(&v.kind) {
            kept.insert(v.vdu_id.clone(), w.cluster.replicas(&t, ns, &v.name).await?);
            w.cluster.scale(&t, ns, &v.name, 0).await?;
        } else {
            // A DaemonSet has no count to lower: it goes, and comes back from its manifest.
            w.cluster.delete(&t, ns, &v.name, how).await?;
        }
    }
    let pod = w.cluster.resolve("v1", "Pod").await?;
    // Bare Pods go; with a stop type the workloads' Pods go within it too.
    for p in observe::vnfc_pods(&w.cluster, ns, &w.selector, &s.vdus).await? {
        let bare = s
            .vdus
            .iter()
            .any(|v| v.vdu_id == p.vdu_id && v.kind == "Pod");
        if bare || grace.is_some() {
            w.cluster.delete(&pod, ns, &p.name, how).await?;
        }
    }
    tracing::info!(instance = %w.instance, namespace = %ns, "stopping the CNF");
    let timeout =
        w.settings.delete_timeout + std::time::Duration::from_secs(u64::from(grace.unwrap_or(0)));
    wait::until(
        "the CNF's Pods to stop",
        timeout,
        w.settings.poll_interval,
        || async {
            let left = observe::vnfc_pods(&w.cluster, ns, &w.selector, &s.vdus).await?;
            Ok(match left.first() {
                Some(p) => Err(format!("Pod {} still there", p.name)),
                None => Ok(()),
            })
        },
    )
    .await?;
    let (mut info, affected) = with_state(s.info.clone(), STOPPED);
    rec.stopped_replicas = kept;
    rec.write_to(&mut info);
    Ok(outcome(info, affected))
}

async fn start(w: &Work<'_>, s: &Stored, rec: &mut ManifestRecord) -> Result<Outcome> {
    let ns = &s.namespace;
    let plan = if s.vdus.iter().all(|v| scaled(&v.kind)) {
        None
    } else {
        Some(super::plan(w, &s.files, Some(ns), &counts_of(&s.info)).await?)
    };
    for v in &s.vdus {
        if scaled(&v.kind) {
            let n = rec.stopped_replicas.get(&v.vdu_id).copied().unwrap_or(1);
            let t = w.cluster.resolve("apps/v1", &v.kind).await?;
            w.cluster.scale(&t, ns, &v.name, n).await?;
        } else {
            let doc = plan
                .as_ref()
                .and_then(|p| p.doc_of(v))
                .ok_or_else(|| Error::Manifest(format!("no manifest for {} {}", v.kind, v.name)))?;
            w.cluster.create(&doc.ty, ns, &doc.body).await?;
        }
    }
    tracing::info!(instance = %w.instance, namespace = %ns, "starting the CNF");
    wait::until(
        "the CNF's Pods to start",
        w.settings.ready_timeout,
        w.settings.poll_interval,
        || wait_vdus(w, ns, &s.vdus),
    )
    .await?;
    let pods = observe::vnfc_pods(&w.cluster, ns, &w.selector, &s.vdus).await?;
    let r = vnfc::reconcile(
        &s.info.vnfc_resource_info,
        &pods,
        None,
        &HashSet::new(),
        ns,
        w.vim_id(),
    );
    let mut info = s.info.clone();
    info.vnfc_resource_info = r.resources;
    info.vnfc_info = r.infos;
    let (mut info, mut affected) = with_state(info, "STARTED");
    affected.extend(r.affected);
    rec.stopped_replicas.clear();
    rec.write_to(&mut info);
    Ok(outcome(info, affected))
}
