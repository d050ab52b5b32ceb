//! What the VNFD says an operation should produce: instance counts per VDU at
//! instantiation, scale levels, and the effect of a scale request (with its limits).
//! Pure, shared by the API (early 400s) and every infra driver.

use serde_json::Value;

use super::driver::OpContext;
use super::instance::{InstantiatedVnfInfo, ScaleInfo};
use crate::vnfd::Flavour;

/// The instantiation level an instantiate request asks for (else the flavour default).
pub fn level(flavour: &Flavour, params: &Value) -> Option<String> {
    params
        .get("instantiationLevelId")
        .and_then(Value::as_str)
        .map(str::to_owned)
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

/// [`initial_counts`] for the operation in `octx`.
pub fn initial_counts_of(octx: &OpContext) -> Vec<(String, u32)> {
    let Some(f) = octx.vnfd.flavour(&octx.flavour_id) else {
        return Vec::new();
    };
    initial_counts(f, level(f, &octx.op.operation_params).as_deref())
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

/// Reads a scale request (`type`, `aspectId`, `numberOfSteps`) against the flavour and
/// the instance's levels; refuses to go beyond the aspect's maximum or below zero.
pub fn scale_step(
    flavour: &Flavour,
    info: &InstantiatedVnfInfo,
    params: &Value,
) -> Result<ScaleStep, String> {
    let aspect = params
        .get("aspectId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let a = flavour
        .scaling_aspects
        .iter()
        .find(|a| a.id == aspect)
        .ok_or_else(|| format!("aspectId {aspect:?} is not a scaling aspect of the flavour"))?;
    let steps = params
        .get("numberOfSteps")
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .min(u64::from(u32::MAX)) as u32;
    let out = params.get("type").and_then(Value::as_str) == Some("SCALE_OUT");
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
    params: &Value,
) -> Result<ScaleStep, String> {
    let step = scale_step(flavour, info, params)?;
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

/// The `vnfcInstanceId`s of a heal request (none: SOL003, the whole VNF).
pub fn vnfc_instance_ids(params: &Value) -> Vec<String> {
    params
        .get("vnfcInstanceId")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}
