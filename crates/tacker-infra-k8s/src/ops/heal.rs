//! Heal. SOL002 (`vnfcInstanceId` given): only the Pods of those VNFCs are re-created: a
//! bare Pod is deleted and created again from its manifest, a workload's Pod is deleted
//! and its controller's replacement awaited. SOL003 (none given): the VNF's resources
//! are deleted and created again, keeping the volumes of StatefulSets.

use std::collections::HashSet;

use serde_json::{Map, Value};
use tacker_domain::lcm::OperationParams;
use tacker_domain::lcm::driver::Outcome;

use super::{
    Claims, Stored, Work, counts_of, create_all, delete_all, stored, wait_ready, wait_vdus,
};
use crate::cluster::Deletion;
use crate::error::{Error, Result};
use crate::manifest::VduResource;
use crate::{observe, vnfc, wait};

/// One VNFC to heal.
#[derive(Debug, Clone)]
struct Target {
    vnfc_id: String,
    pod: String,
    vdu: VduResource,
}

fn targets(s: &Stored, ids: &[String]) -> Result<Vec<Target>> {
    let mut out = Vec::new();
    for id in ids {
        let c = s
            .info
            .vnfc_info
            .iter()
            .find(|c| c.id == *id)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "vnfcInstanceId {id} is not a VNFC of this instance"
                ))
            })?;
        let r = s
            .info
            .vnfc_resource_info
            .iter()
            .find(|r| r.id == c.vnfc_resource_info_id)
            .ok_or_else(|| Error::Invalid(format!("VNFC {id} has no resource")))?;
        let vdu = s
            .vdus
            .iter()
            .find(|v| v.vdu_id == c.vdu_id)
            .ok_or_else(|| {
                Error::Manifest(format!("VDU {} has no Kubernetes resource", c.vdu_id))
            })?;
        out.push(Target {
            vnfc_id: id.clone(),
            pod: r.compute_resource.resource_id.clone(),
            vdu: vdu.clone(),
        });
    }
    Ok(out)
}

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let ids = match &w.octx.op.request {
        OperationParams::Heal(h) => h.vnfc_instance_id.clone(),
        _ => Vec::new(),
    };
    let s = stored(w.octx)?;
    super::refuse_stopped(&s)?;
    if ids.is_empty() {
        sol003(w, &s).await
    } else {
        sol002(w, &s, &ids).await
    }
}

pub async fn sol002(w: &Work<'_>, s: &Stored, ids: &[String]) -> Result<Outcome> {
    let ns = s.namespace.as_str();
    let targets = targets(s, ids)?;
    // Every Pod must still be the one stored: Kubernetes may have replaced it.
    let mut old_uids = Vec::new();
    let mut stale = Vec::new();
    for t in &targets {
        match w.cluster.pod(ns, &t.pod).await? {
            Some(p) if p.metadata.deletion_timestamp.is_none() => {
                old_uids.push(p.metadata.uid.unwrap_or_default());
            }
            _ => stale.push(format!("{} (Pod {})", t.vnfc_id, t.pod)),
        }
    }
    if !stale.is_empty() {
        return Err(Error::Stale(format!(
            "vnfcInstanceId {} no longer match a Pod in the cluster: Kubernetes replaced or rescaled them. Fail this operation, sync the instance (POST /vnflcm/v2/vnf_instances/{}/sync) and heal with the new vnfcInstanceId",
            stale.join(", "),
            w.instance
        )));
    }
    let bare: Vec<&Target> = targets.iter().filter(|t| t.vdu.kind == "Pod").collect();
    let plan = if bare.is_empty() {
        None
    } else {
        Some(super::plan(w, &s.files, Some(ns), &counts_of(&s.info)).await?)
    };
    for t in &targets {
        tracing::info!(instance = %w.instance, pod = %t.pod, kind = %t.vdu.kind, "healing: deleting the Pod");
        w.cluster.delete_pod(ns, &t.pod).await?;
    }
    if let Some(plan) = &plan {
        for t in &bare {
            let doc = plan
                .doc_of(&t.vdu)
                .ok_or_else(|| Error::Manifest(format!("no manifest for Pod {}", t.pod)))?;
            let pod = t.pod.clone();
            wait::until(
                &format!("Pod {pod} to be deleted"),
                w.settings.delete_timeout,
                w.settings.poll_interval,
                || async {
                    Ok(match w.cluster.pod(ns, &pod).await? {
                        Some(_) => Err("still there".to_owned()),
                        None => Ok(()),
                    })
                },
            )
            .await?;
            w.cluster.create(&doc.ty, ns, &doc.body).await?;
        }
    }
    let vdus: Vec<VduResource> = {
        let mut seen = HashSet::new();
        targets
            .iter()
            .filter(|t| seen.insert(t.vdu.vdu_id.clone()))
            .map(|t| t.vdu.clone())
            .collect()
    };
    // Same-name kinds (bare Pods, StatefulSets) must be back under a new uid; the
    // others' old Pods must be gone; every VDU touched settled.
    let same_name: Vec<(&Target, &String)> = targets
        .iter()
        .zip(&old_uids)
        .filter(|(t, _)| matches!(t.vdu.kind.as_str(), "Pod" | "StatefulSet"))
        .collect();
    wait::until(
        "the healed Pods to be ready",
        w.settings.ready_timeout,
        w.settings.poll_interval,
        || async {
            let pods = observe::vnfc_pods(&w.cluster, ns, &w.selector, &vdus).await?;
            for (t, old) in &same_name {
                let back = pods
                    .iter()
                    .any(|p| p.name == t.pod && p.uid != **old && p.ready && !p.terminating);
                if !back {
                    return Ok(Err(format!("Pod {} not re-created and ready yet", t.pod)));
                }
            }
            for t in targets
                .iter()
                .filter(|t| !matches!(t.vdu.kind.as_str(), "Pod" | "StatefulSet"))
            {
                if pods.iter().any(|p| p.name == t.pod) {
                    return Ok(Err(format!("Pod {} not gone yet", t.pod)));
                }
            }
            wait_vdus(w, ns, &vdus).await
        },
    )
    .await?;
    let pods = observe::vnfc_pods(&w.cluster, ns, &w.selector, &vdus).await?;
    let scope: HashSet<String> = vdus.iter().map(|v| v.vdu_id.clone()).collect();
    let recreated: HashSet<String> = same_name.iter().map(|(t, _)| t.pod.clone()).collect();
    let r = vnfc::reconcile(
        &s.info.vnfc_resource_info,
        &pods,
        Some(&scope),
        &recreated,
        ns,
        w.vim_id(),
    );
    Ok(outcome(s, r))
}

async fn sol003(w: &Work<'_>, s: &Stored) -> Result<Outcome> {
    let ns = s.namespace.as_str();
    let plan = super::plan(w, &s.files, Some(ns), &counts_of(&s.info)).await?;
    tracing::info!(instance = %w.instance, "healing the whole VNF: re-creating its resources");
    delete_all(
        w,
        &plan,
        Deletion {
            grace: None,
            foreground: true,
        },
        Claims::Keep,
    )
    .await?;
    create_all(w, &plan).await?;
    wait_ready(w, &plan).await?;
    let pods = observe::vnfc_pods(&w.cluster, ns, &w.selector, &plan.vdus).await?;
    // Everything was re-created: Pods under a stored name are the same VNFC, modified.
    let recreated: HashSet<String> = s
        .info
        .vnfc_resource_info
        .iter()
        .map(|r| r.compute_resource.resource_id.clone())
        .collect();
    let r = vnfc::reconcile(
        &s.info.vnfc_resource_info,
        &pods,
        None,
        &recreated,
        ns,
        w.vim_id(),
    );
    Ok(outcome(s, r))
}

fn outcome(s: &Stored, r: vnfc::Reconciled) -> Outcome {
    let mut info = s.info.clone();
    info.vnfc_resource_info = r.resources;
    info.vnfc_info = r.infos;
    Outcome {
        instantiated_vnf_info: Some(info),
        resource_changes: Map::from_iter([("affectedVnfcs".to_owned(), Value::Array(r.affected))]),
    }
}
