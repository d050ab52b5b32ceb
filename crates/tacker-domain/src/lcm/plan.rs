//! What the VNFD says an operation should produce: instance counts per VDU at
//! instantiation, scale levels, and the effect of a scale request (with its limits).
//! Pure, shared by the API (early 400s) and every infra driver.

use super::driver::OpContext;
use super::instance::{InstantiatedVnfInfo, ScaleInfo};
use super::request::{InstantiateRequest, OperationParams, ScaleRequest};
use crate::vnfd::Flavour;

/// The instantiation level an instantiate request asks for (else the flavour default).
pub fn level(flavour: &Flavour, req: &InstantiateRequest) -> Option<String> {
    req.instantiation_level_id
        .clone()
        .or_else(|| flavour.default_instantiation_level.clone())
}

/// How many instances of each VDU the flavour starts with at `level` (the VDU's count at
/// that level, else its initial delta, else its minimum).
pub fn initial_counts(flavour: &Flavour, level: Option<&str>) -> Vec<(String, u32)> {
    flavour
        .vdus
        .iter()
        .map(|v| {
            let n = level
                .and_then(|l| v.instantiation_levels.get(l).copied())
                .or(v.initial_delta)
                .unwrap_or(v.min_instances);
            (v.id.clone(), n)
        })
        .collect()
}

/// [`initial_counts`] for the instantiation in `octx` (empty for other operations).
pub fn initial_counts_of(octx: &OpContext) -> Vec<(String, u32)> {
    let (Some(f), OperationParams::Instantiate(req)) =
        (octx.vnfd.flavour(&octx.flavour_id), &octx.op.request)
    else {
        return Vec::new();
    };
    initial_counts(f, level(f, req).as_deref())
}

/// `scaleStatus` and `maxScaleLevels` right after instantiation at `level`.
pub fn initial_scale(
    vnfd_id: &str,
    flavour: &Flavour,
    level: Option<&str>,
) -> (Vec<ScaleInfo>, Vec<ScaleInfo>) {
    let at_level = level.and_then(|l| flavour.instantiation_levels.iter().find(|x| x.id == l));
    let mut status = Vec::new();
    let mut max = Vec::new();
    for a in &flavour.scaling_aspects {
        let scale_level = at_level
            .and_then(|l| l.scale_info.get(&a.id).copied())
            .unwrap_or(0);
        status.push(ScaleInfo {
            aspect_id: a.id.clone(),
            vnfd_id: Some(vnfd_id.to_owned()),
            scale_level,
        });
        max.push(ScaleInfo {
            aspect_id: a.id.clone(),
            vnfd_id: Some(vnfd_id.to_owned()),
            scale_level: a.max_scale_level,
        });
    }
    (status, max)
}

/// What one scale request does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaleStep {
    /// The aspect.
    pub aspect: String,
    /// Its level now.
    pub from_level: u32,
    /// Its level afterwards.
    pub to_level: u32,
    /// Instances added (positive) or removed (negative) per VDU.
    pub deltas: Vec<(String, i64)>,
}

/// Reads a scale request against the flavour and the instance's levels; refuses to go
/// beyond the aspect's maximum or below zero.
pub fn scale_step(
    flavour: &Flavour,
    info: &InstantiatedVnfInfo,
    req: &ScaleRequest,
) -> Result<ScaleStep, String> {
    let aspect = req.aspect_id.as_str();
    let a = flavour
        .scaling_aspects
        .iter()
        .find(|a| a.id == aspect)
        .ok_or_else(|| format!("aspectId {aspect:?} is not a scaling aspect of the flavour"))?;
    let steps = req.number_of_steps;
    let out = req.is_out();
    let from = info
        .scale_status
        .iter()
        .find(|s| s.aspect_id == aspect)
        .map(|s| s.scale_level)
        .unwrap_or(0);
    let to = if out {
        from.saturating_add(steps)
    } else {
        from.checked_sub(steps).ok_or_else(|| {
            format!("aspect {aspect} is at level {from}; scaling in by {steps} would go below 0")
        })?
    };
    if to > a.max_scale_level {
        return Err(format!(
            "aspect {aspect} would reach level {to}, over its maximum {}",
            a.max_scale_level
        ));
    }
    let mut deltas = Vec::new();
    for v in &flavour.vdus {
        let Some(d) = v.scaling_deltas.get(aspect) else {
            continue;
        };
        let per_step = a
            .step_deltas
            .first()
            .and_then(|id| d.get(id))
            .or_else(|| d.values().next())
            .copied()
            .unwrap_or(1);
        let n = i64::from(per_step) * i64::from(steps);
        deltas.push((v.id.clone(), if out { n } else { -n }));
    }
    Ok(ScaleStep {
        aspect: aspect.to_owned(),
        from_level: from,
        to_level: to,
        deltas,
    })
}

/// Reads a scale request like [`scale_step`] and also checks every VDU's resulting
/// count (from the stored VNFCs) against its `vdu_profile`.
pub fn checked_scale_step(
    flavour: &Flavour,
    info: &InstantiatedVnfInfo,
    req: &ScaleRequest,
) -> Result<ScaleStep, String> {
    let step = scale_step(flavour, info, req)?;
    for (vdu, delta) in &step.deltas {
        let now = info
            .vnfc_resource_info
            .iter()
            .filter(|r| r.vdu_id == *vdu)
            .count() as i64;
        check_count(flavour, vdu, now + delta)?;
    }
    Ok(step)
}

/// The VNFCs a scale-in step removes: of each VDU, the newest (the last in the stored
/// list), as many as the step takes away.
pub fn scale_in_targets(info: &InstantiatedVnfInfo, step: &ScaleStep) -> Vec<String> {
    let mut out = Vec::new();
    for (vdu, delta) in &step.deltas {
        if *delta >= 0 {
            continue;
        }
        let n = usize::try_from(delta.unsigned_abs()).unwrap_or(usize::MAX);
        out.extend(
            info.vnfc_resource_info
                .iter()
                .rev()
                .filter(|r| r.vdu_id == *vdu)
                .take(n)
                .map(|r| r.id.clone()),
        );
    }
    out
}

/// Checks a VDU's new instance count against its `vdu_profile`.
pub fn check_count(flavour: &Flavour, vdu: &str, count: i64) -> Result<(), String> {
    let Some(v) = flavour.vdu(vdu) else {
        return Ok(());
    };
    if count < i64::from(v.min_instances) {
        return Err(format!(
            "VDU {vdu} would have {count} instances, below its minimum {}",
            v.min_instances
        ));
    }
    if v.max_instances > 0 && count > i64::from(v.max_instances) {
        return Err(format!(
            "VDU {vdu} would have {count} instances, over its maximum {}",
            v.max_instances
        ));
    }
    Ok(())
}
