//! The steps operations share: building the plan, creating, waiting, deleting.

pub mod change_flavour;
pub mod change_vnfpkg;
pub mod heal;
pub mod instantiate;
pub mod operate;
pub mod rollback;
pub mod rules;
pub mod scale;
pub mod sync;
pub mod terminate;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;
use tacker_domain::lcm::InstantiatedVnfInfo;
use tacker_domain::lcm::driver::OpContext;
use tacker_domain::vnfd::Flavour;

use crate::cluster::{Cluster, Deletion};
use crate::error::{Error, Result};
use crate::manifest::{self, Plan, Request, VduResource};
use crate::observe;
use crate::record::{Maker, ManifestRecord};
use crate::settings::K8sSettings;
use crate::wait;

/// One operation's view of the cluster.
pub struct Work<'a> {
    /// The cluster.
    pub cluster: Arc<Cluster>,
    /// Timeouts.
    pub settings: K8sSettings,
    /// The operation.
    pub octx: &'a OpContext,
    /// The VNF instance id (the label value).
    pub instance: String,
    /// The label selector of the instance's Pods and ReplicaSets (empty: every one in
    /// the namespace, each then tied to a VDU through its owners).
    pub selector: String,
    /// Who made the instance's objects (their label).
    pub made_by: Maker,
}

impl Work<'_> {
    /// The VIM connection id VNFC resources name.
    pub fn vim_id(&self) -> Option<&str> {
        self.octx.vim.as_ref().map(|v| v.id.as_str())
    }

    /// The flavour in use.
    pub fn flavour(&self) -> Result<&Flavour> {
        self.octx
            .vnfd
            .flavour(&self.octx.flavour_id)
            .ok_or_else(|| {
                Error::Manifest(format!(
                    "flavour {} is not in the VNFD",
                    self.octx.flavour_id
                ))
            })
    }
}

/// What an instantiated CNF keeps in `instantiatedVnfInfo.metadata`.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The instance's resources as stored.
    pub info: InstantiatedVnfInfo,
    /// Its namespace.
    pub namespace: String,
    /// Its manifests.
    pub files: Vec<String>,
    /// Its VDU bindings.
    pub vdus: Vec<VduResource>,
}

/// Reads what the instance stored at instantiation.
pub fn stored(octx: &OpContext) -> Result<Stored> {
    let info = octx
        .instance
        .instantiated_vnf_info
        .clone()
        .ok_or_else(|| Error::Invalid("the VNF instance is not instantiated".into()))?;
    let ManifestRecord {
        namespace,
        files,
        vdus,
        ..
    } = ManifestRecord::of(&info)?;
    Ok(Stored {
        info,
        namespace,
        files,
        vdus,
    })
}

/// Scale and heal need the VNF running: a stopped one is refused (start it first).
pub fn refuse_stopped(s: &Stored) -> Result<()> {
    if operate::is_stopped(&s.info) {
        return Err(Error::Invalid(
            "the VNF is STOPPED: operate it to STARTED first".into(),
        ));
    }
    Ok(())
}

/// Instances per VDU in the stored VNFC list.
pub fn counts_of(info: &InstantiatedVnfInfo) -> HashMap<String, u32> {
    let mut out = HashMap::new();
    for r in &info.vnfc_resource_info {
        *out.entry(r.vdu_id.clone()).or_insert(0) += 1;
    }
    out
}

/// The plan for the package's manifests.
pub async fn plan(
    w: &Work<'_>,
    files: &[String],
    namespace: Option<&str>,
    counts: &HashMap<String, u32>,
) -> Result<Plan> {
    plan_of(
        w,
        &w.octx.package_dir,
        w.flavour()?,
        files,
        namespace,
        counts,
    )
    .await
}

/// The plan for the manifests of the package unpacked at `package_dir`.
pub async fn plan_of(
    w: &Work<'_>,
    package_dir: &std::path::Path,
    flavour: &Flavour,
    files: &[String],
    namespace: Option<&str>,
    counts: &HashMap<String, u32>,
) -> Result<Plan> {
    manifest::build(
        &w.cluster,
        &Request {
            package_dir,
            files,
            namespace,
            flavour,
            counts,
            instance: &w.instance,
            made_by: w.made_by,
            policy: &w.settings,
        },
    )
    .await
}

/// Creates every object in order; objects of this instance that exist already are
/// kept (a retried operation), anything else in the way is an error.
pub async fn create_all(w: &Work<'_>, plan: &Plan) -> Result<()> {
    let ns = &plan.namespace;
    for d in &plan.docs {
        let created = match w.cluster.create(&d.ty, ns, &d.body).await {
            Ok(c) => c,
            // A Binding of a Pod the scheduler already placed, or re-posted on retry.
            Err(Error::Api { code: 409, .. }) if !d.ty.persisted => {
                tracing::info!(kind = %d.kind, name = %d.name, "already done; kept");
                continue;
            }
            Err(e) => {
                return Err(e.context(format_args!(
                    "creating {} {} from {}",
                    d.kind, d.name, d.file
                )));
            }
        };
        if created.is_none() && d.ty.persisted {
            let existing = w.cluster.get(&d.ty, ns, &d.name).await?;
            if !existing.is_some_and(|v| owned_by(&v, w)) {
                return Err(not_ours(d));
            }
        }
    }
    Ok(())
}

/// Waits until every object is ready and every VDU has exactly its Pods, all ready.
pub async fn wait_ready(w: &Work<'_>, plan: &Plan) -> Result<()> {
    let ns = plan.namespace.as_str();
    let docs: Vec<_> = plan.docs.iter().collect();
    let done = std::sync::Mutex::new(HashSet::new());
    wait::until(
        "the CNF's resources to be ready",
        w.settings.ready_timeout,
        w.settings.poll_interval,
        || async {
            if let Err(s) = observe::docs_ready(&w.cluster, ns, &docs, &done).await? {
                return Ok(Err(s));
            }
            wait_vdus(w, ns, &plan.vdus).await
        },
    )
    .await
}

/// One check: every VDU of `vdus` has its desired Pods, all ready, none terminating.
pub async fn wait_vdus(
    w: &Work<'_>,
    ns: &str,
    vdus: &[VduResource],
) -> Result<std::result::Result<(), String>> {
    let desired = match observe::desired(&w.cluster, ns, vdus).await? {
        Ok(d) => d,
        Err(s) => return Ok(Err(s)),
    };
    let pods = observe::vnfc_pods(&w.cluster, ns, &w.selector, vdus).await?;
    Ok(observe::settled(&pods, &desired))
}

/// Whether the claims StatefulSets created are deleted with the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claims {
    /// Terminate: nothing of the VNF stays.
    Remove,
    /// SOL003 heal: the StatefulSets' volumes stay (and the PVs bound to them).
    Keep,
}

/// Claims a StatefulSet of the plan created (`<template>-<statefulset>-<ordinal>`).
pub(crate) async fn statefulset_claims(w: &Work<'_>, plan: &Plan) -> Result<Vec<(String, String)>> {
    let mut prefixes = Vec::new();
    for d in plan.docs.iter().filter(|d| d.kind == "StatefulSet") {
        for t in d
            .body
            .pointer("/spec/volumeClaimTemplates")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(n) = t.pointer("/metadata/name").and_then(Value::as_str) {
                prefixes.push(format!("{n}-{}-", d.name));
            }
        }
    }
    if prefixes.is_empty() {
        return Ok(Vec::new());
    }
    let t = w.cluster.resolve("v1", "PersistentVolumeClaim").await?;
    let mut out = Vec::new();
    for pvc in w.cluster.list(&t, &plan.namespace, "").await? {
        let name = pvc
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let ours = prefixes.iter().any(|p| {
            name.strip_prefix(p.as_str())
                .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
        });
        if ours {
            let volume = pvc
                .pointer("/spec/volumeName")
                .and_then(Value::as_str)
                .unwrap_or_default();
            out.push((name.to_owned(), volume.to_owned()));
        }
    }
    Ok(out)
}

/// The conflict of an object of `d`'s name that another VNF (or nobody) owns.
pub fn not_ours(d: &manifest::Doc) -> Error {
    Error::Api {
        code: 409,
        reason: "AlreadyExists".into(),
        message: format!(
            "{} {} (from {}) already exists and does not belong to this VNF instance",
            d.kind, d.name, d.file
        ),
    }
}

/// Whether `obj` carries the label of `w`'s VNF instance.
pub fn owned_by(obj: &Value, w: &Work<'_>) -> bool {
    obj.pointer(&format!(
        "/metadata/labels/{}",
        w.made_by.label().replace('/', "~1")
    ))
    .and_then(Value::as_str)
        == Some(w.instance.as_str())
}

/// Deletes every object of this instance in reverse order and waits until all (and the
/// Pods) are gone.
pub async fn delete_all(w: &Work<'_>, plan: &Plan, how: Deletion, claims: Claims) -> Result<()> {
    let ns = plan.namespace.as_str();
    let sts_claims = statefulset_claims(w, plan).await?;
    let kept_volumes: HashSet<&str> = match claims {
        Claims::Keep => sts_claims.iter().map(|(_, v)| v.as_str()).collect(),
        Claims::Remove => HashSet::new(),
    };
    let mut deleted = Vec::new();
    for d in plan.docs.iter().rev() {
        if !d.ty.persisted
            || (d.kind == "PersistentVolume" && kept_volumes.contains(d.name.as_str()))
        {
            continue;
        }
        // Only this instance's objects: a name another VNF holds is not ours to delete.
        match w.cluster.get(&d.ty, ns, &d.name).await? {
            Some(existing) if owned_by(&existing, w) => {}
            _ => continue,
        }
        w.cluster.delete(&d.ty, ns, &d.name, how).await?;
        deleted.push(d);
    }
    let pvc = w.cluster.resolve("v1", "PersistentVolumeClaim").await?;
    if claims == Claims::Remove {
        for (name, _) in &sts_claims {
            w.cluster.delete(&pvc, ns, name, how).await?;
        }
    }
    let gone = std::sync::Mutex::new(HashSet::new());
    wait::until(
        "the CNF's resources to be deleted",
        w.settings.delete_timeout,
        w.settings.poll_interval,
        || async {
            for (i, d) in deleted.iter().enumerate() {
                if gone
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .contains(&i)
                {
                    continue;
                }
                if w.cluster.get(&d.ty, ns, &d.name).await?.is_some() {
                    return Ok(Err(format!("{} {} still exists", d.kind, d.name)));
                }
                gone.lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(i);
            }
            if claims == Claims::Remove {
                for (name, _) in &sts_claims {
                    if w.cluster.get(&pvc, ns, name).await?.is_some() {
                        return Ok(Err(format!("PersistentVolumeClaim {name} still exists")));
                    }
                }
            }
            // Pods that carry no label of the instance (Tacker's) went with their
            // owners: the foreground deletion waited above holds each owner until then.
            if w.selector.is_empty() {
                return Ok(Ok(()));
            }
            let pods = match w.cluster.pods(ns, &w.selector).await {
                Ok(p) => p,
                // The namespace itself went with the VNF.
                Err(e) if e.is_not_found() => Vec::new(),
                Err(e) => return Err(e),
            };
            match pods.first() {
                Some(p) => Ok(Err(format!(
                    "{} Pods left (e.g. {})",
                    pods.len(),
                    p.metadata.name.clone().unwrap_or_default()
                ))),
                None => Ok(Ok(())),
            }
        },
    )
    .await
}
