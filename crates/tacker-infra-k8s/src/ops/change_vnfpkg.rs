//! CHANGE_VNFPKG (Tacker's RollingUpdate): the new package's manifests applied over the
//! running ones. Workloads and their configuration are replaced, so Kubernetes rolls
//! them; bare Pods whose images change are re-created; objects new in the package are
//! created and those it no longer has are deleted; then everything is waited for at the
//! new generation. A rollback applies the old package's manifests the same way.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};
use tacker_domain::lcm::OperationParams;
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::request::ChangeVnfpkgRequest;

use super::{Stored, Work, counts_of, create_all, not_ours, owned_by, stored, wait_ready};
use crate::cluster::Deletion;
use crate::error::{Error, Result};
use crate::manifest::{Doc, Plan};
use crate::{observe, vnfc, wait};

/// Kinds whose objects are kept as they are when they exist (their specs are immutable,
/// or they hold data).
const KEPT: &[&str] = &[
    "PersistentVolumeClaim",
    "PersistentVolume",
    "Namespace",
    "StorageClass",
];

fn request<'a>(w: &'a Work<'_>) -> Result<&'a ChangeVnfpkgRequest> {
    match &w.octx.op.request {
        OperationParams::ChangeVnfpkg(r) => Ok(r),
        other => Err(Error::Invalid(format!(
            "{} is not a package change",
            other.operation()
        ))),
    }
}

/// The plans of the package the instance is on and of the one it moves to.
async fn plans(w: &Work<'_>, s: &Stored) -> Result<(Plan, Plan, Vec<String>)> {
    let req = request(w)?;
    let target = w
        .octx
        .target
        .as_ref()
        .ok_or_else(|| Error::Invalid("the operation names no package to change to".into()))?;
    let cnf = req.cnf()?;
    if let Some(ns) = &cnf.namespace
        && *ns != s.namespace
    {
        return Err(Error::Invalid(format!(
            "additionalParams.namespace must stay {} (asked: {ns})",
            s.namespace
        )));
    }
    let counts = counts_of(&s.info);
    let old = super::plan(w, &s.files, Some(&s.namespace), &counts).await?;
    let flavour = target.vnfd.flavour(&w.octx.flavour_id).ok_or_else(|| {
        Error::Manifest(format!(
            "flavour {} is not in the VNFD of the new package",
            w.octx.flavour_id
        ))
    })?;
    let files = cnf.required_def_files()?.to_vec();
    let new = super::plan_of(
        w,
        &target.package_dir,
        flavour,
        &files,
        Some(&s.namespace),
        &counts,
    )
    .await?;
    Ok((old, new, files))
}

fn same(a: &Doc, b: &Doc) -> bool {
    a.kind == b.kind && a.name == b.name && a.api_version == b.api_version
}

fn images(v: &Value) -> Vec<String> {
    v.pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("image").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// Applies `to` over the objects of `from`: replaces, re-creates or creates each of
/// `to`, deletes what only `from` has, and waits until `to` is rolled out and ready.
pub(super) async fn move_to(w: &Work<'_>, from: &Plan, to: &Plan) -> Result<()> {
    let ns = to.namespace.as_str();
    let mut created = Vec::new();
    for d in to.docs.iter().filter(|d| d.ty.persisted) {
        let Some(existing) = w.cluster.get(&d.ty, ns, &d.name).await? else {
            created.push(d);
            continue;
        };
        if !owned_by(&existing, w) {
            return Err(not_ours(d));
        }
        match d.kind.as_str() {
            k if KEPT.contains(&k) => {}
            "Pod" if images(&existing) == images(&d.body) => {}
            "Pod" => {
                // Pods cannot change their containers: the new one replaces the old.
                let how = Deletion {
                    grace: Some(0),
                    foreground: false,
                };
                w.cluster.delete(&d.ty, ns, &d.name, how).await?;
                wait::until(
                    &format!("Pod {} to go before it is re-created", d.name),
                    w.settings.delete_timeout,
                    w.settings.poll_interval,
                    || async {
                        Ok(match w.cluster.get(&d.ty, ns, &d.name).await? {
                            None => Ok(()),
                            Some(_) => Err(format!("Pod {} still exists", d.name)),
                        })
                    },
                )
                .await?;
                created.push(d);
            }
            _ => {
                let mut body = d.body.clone();
                // A Service keeps the address it was given.
                if d.kind == "Service" {
                    for f in ["clusterIP", "clusterIPs"] {
                        if let Some(v) = existing.pointer(&format!("/spec/{f}"))
                            && let Some(Value::Object(spec)) = body.get_mut("spec")
                        {
                            spec.entry(f).or_insert_with(|| v.clone());
                        }
                    }
                }
                w.cluster
                    .replace(&d.ty, ns, &d.name, &body)
                    .await
                    .map_err(|e| {
                        e.context(format_args!(
                            "updating {} {} from {}",
                            d.kind, d.name, d.file
                        ))
                    })?;
            }
        }
    }
    let fresh = Plan {
        namespace: to.namespace.clone(),
        docs: created.into_iter().cloned().collect(),
        vdus: Vec::new(),
    };
    create_all(w, &fresh).await?;
    // What the package no longer has goes, last first.
    let how = Deletion {
        grace: None,
        foreground: true,
    };
    for d in from.docs.iter().rev().filter(|d| d.ty.persisted) {
        if !to.docs.iter().any(|n| same(n, d)) && !KEPT.contains(&d.kind.as_str()) {
            w.cluster.delete(&d.ty, ns, &d.name, how).await?;
        }
    }
    wait_ready(w, to).await
}

/// The instance's resources after a move: VNFCs whose Pods changed are REMOVED and
/// ADDED, the manifests recorded are `files`.
pub(super) async fn outcome(
    w: &Work<'_>,
    s: &Stored,
    before: &HashMap<String, String>,
    to: &Plan,
    files: &[String],
) -> Result<Outcome> {
    let pods = observe::vnfc_pods(&w.cluster, &to.namespace, &w.selector, &to.vdus).await?;
    // Same name, another Pod (StatefulSets, bare Pods): re-created.
    let recreated: HashSet<String> = pods
        .iter()
        .filter(|p| before.get(&p.name).is_some_and(|uid| *uid != p.uid))
        .map(|p| p.name.clone())
        .collect();
    let r = vnfc::reconcile(
        &s.info.vnfc_resource_info,
        &pods,
        None,
        &recreated,
        &to.namespace,
        w.vim_id(),
    );
    let mut info = s.info.clone();
    info.vnfc_resource_info = r.resources;
    info.vnfc_info = r.infos;
    to.record(files.to_vec(), w.made_by).write_to(&mut info);
    Ok(Outcome {
        instantiated_vnf_info: Some(info),
        resource_changes: Map::from_iter([("affectedVnfcs".to_owned(), Value::Array(r.affected))]),
    })
}

pub(super) async fn pods_now(w: &Work<'_>, plan: &Plan) -> Result<HashMap<String, String>> {
    Ok(
        observe::vnfc_pods(&w.cluster, &plan.namespace, &w.selector, &plan.vdus)
            .await?
            .into_iter()
            .map(|p| (p.name, p.uid))
            .collect(),
    )
}

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let s = stored(w.octx)?;
    let (old, new, files) = plans(w, &s).await?;
    let before = pods_now(w, &old).await?;
    tracing::info!(instance = %w.instance, namespace = %new.namespace, objects = new.docs.len(), "changing the CNF's package");
    move_to(w, &old, &new).await?;
    outcome(w, &s, &before, &new, &files).await
}

/// Rollback: the old package's manifests applied back the same way.
pub async fn rollback(w: &Work<'_>) -> Result<Outcome> {
    let s = stored(w.octx)?;
    let (old, new, _) = plans(w, &s).await?;
    let before = pods_now(w, &new).await?;
    tracing::info!(instance = %w.instance, namespace = %old.namespace, "rolling the CNF back to its package");
    move_to(w, &new, &old).await?;
    outcome(w, &s, &before, &old, &s.files).await
}
