//! CHANGE_FLAVOUR: the instance moves to another deployment flavour of its VNFD, rolled
//! like a package change: the new flavour's manifests (`lcm-kubernetes-def-files` of the
//! request, else the ones in use) at the Pod counts of its instantiation level applied
//! over the running objects, objects the new flavour does not have deleted, then waited
//! for. The flavour, scale status and manifests recorded are the new flavour's. A
//! rollback applies the old flavour's manifests at the counts the instance had.

use std::collections::HashMap;

use tacker_domain::lcm::cnf::CnfParams;
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::{OperationParams, change_flavour::ChangeFlavourRequest, plan};
use tacker_domain::vnfd::Flavour;

use super::change_vnfpkg::{move_to, outcome, pods_now};
use super::{Stored, Work, counts_of, stored};
use crate::error::{Error, Result};
use crate::manifest::Plan;

fn request<'a>(w: &'a Work<'_>) -> Result<&'a ChangeFlavourRequest> {
    match &w.octx.op.request {
        OperationParams::ChangeFlavour(r) => Ok(r),
        other => Err(Error::Invalid(format!(
            "{} is not a flavour change",
            other.operation()
        ))),
    }
}

/// The new flavour and the plans of the flavour in use and of the new one.
async fn plans<'a>(w: &'a Work<'_>, s: &Stored) -> Result<(&'a Flavour, Plan, Plan, Vec<String>)> {
    let req = request(w)?;
    let flavour = w.octx.vnfd.flavour(&req.new_flavour_id).ok_or_else(|| {
        Error::Invalid(format!("flavour {} is not in the VNFD", req.new_flavour_id))
    })?;
    let cnf = CnfParams::of(&req.additional_params)?;
    if let Some(ns) = &cnf.namespace
        && *ns != s.namespace
    {
        return Err(Error::Invalid(format!(
            "additionalParams.namespace must stay {} (asked: {ns})",
            s.namespace
        )));
    }
    let old = super::plan(w, &s.files, Some(&s.namespace), &counts_of(&s.info)).await?;
    let files = cnf.def_files.unwrap_or_else(|| s.files.clone());
    let counts: HashMap<String, u32> = plan::initial_counts(flavour, req.level(flavour).as_deref())
        .into_iter()
        .collect();
    let new = super::plan_of(
        w,
        &w.octx.package_dir,
        flavour,
        &files,
        Some(&s.namespace),
        &counts,
    )
    .await?;
    Ok((flavour, old, new, files))
}

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let s = stored(w.octx)?;
    super::refuse_stopped(&s)?;
    let (flavour, old, new, files) = plans(w, &s).await?;
    let req = request(w)?;
    let before = pods_now(w, &old).await?;
    tracing::info!(instance = %w.instance, from = %s.info.flavour_id, to = %flavour.id, "changing the CNF's flavour");
    move_to(w, &old, &new).await?;
    let mut out = outcome(w, &s, &before, &new, &files).await?;
    if let Some(info) = out.instantiated_vnf_info.as_mut() {
        let level = req.level(flavour);
        let (status, max) = plan::initial_scale(&w.octx.vnfd.vnfd_id, flavour, level.as_deref());
        info.flavour_id = flavour.id.clone();
        info.scale_status = status;
        info.max_scale_levels = max;
    }
    Ok(out)
}

/// Rollback: the old flavour's manifests applied back at the counts the instance had
/// (its stored flavour and scale status are kept).
pub async fn rollback(w: &Work<'_>) -> Result<Outcome> {
    let s = stored(w.octx)?;
    let (_, old, new, _) = plans(w, &s).await?;
    let before = pods_now(w, &new).await?;
    tracing::info!(instance = %w.instance, flavour = %s.info.flavour_id, "rolling the CNF back to its flavour");
    move_to(w, &new, &old).await?;
    outcome(w, &s, &before, &old, &s.files).await
}
