//! `scale` and `scale_to_level`.

use std::collections::HashMap;

use tacker_domain::lcm::plan;
use tacker_domain::lcm::request::{ScaleRequest, flavour};
use tacker_domain::lcm::scale_to_level::ScaleToLevelRequest;
use tacker_domain::vnfd::PackageModel;

use super::{Checking, flavour_of};
use crate::ApiError;

/// The aspect is the flavour's, and the limits the stored state already shows hold
/// (drivers check again): the package model.
pub async fn check(c: &Checking<'_>, r: &ScaleRequest) -> Result<PackageModel, ApiError> {
    let m = c.model().await?;
    let f = flavour(&m, &flavour_of(c.instance))?;
    r.check(f)?;
    if let Some(info) = &c.instance.instantiated_vnf_info {
        plan::checked_scale_step(f, info, r).map_err(ApiError::BadRequest)?;
    }
    Ok(m)
}

/// The levels are the flavour's (422 otherwise), and every step that reaches them keeps
/// each VDU within its limits, step after step (400): the package model.
pub async fn check_to_level(
    c: &Checking<'_>,
    r: &ScaleToLevelRequest,
) -> Result<PackageModel, ApiError> {
    let m = c.model().await?;
    let f = flavour(&m, &flavour_of(c.instance))?;
    let Some(info) = &c.instance.instantiated_vnf_info else {
        return Ok(m);
    };
    let mut counts: HashMap<String, i64> = HashMap::new();
    for v in &info.vnfc_resource_info {
        *counts.entry(v.vdu_id.clone()).or_insert(0) += 1;
    }
    let steps = r.steps(f, info)?;
    if steps.is_empty() {
        // Nothing would change: refused rather than COMPLETED having done nothing.
        return Err(ApiError::Conflict(format!(
            "VNF instance {} is at the levels asked already: nothing to scale",
            c.instance.id
        )));
    }
    for s in steps {
        let step = plan::scale_step(f, info, &s).map_err(ApiError::BadRequest)?;
        for (vdu, delta) in &step.deltas {
            let n = counts.entry(vdu.clone()).or_insert(0);
            *n += delta;
            plan::check_count(f, vdu, *n).map_err(ApiError::BadRequest)?;
        }
    }
    Ok(m)
}
