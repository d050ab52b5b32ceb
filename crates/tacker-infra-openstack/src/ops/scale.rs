//! Scale: each VDU's `desired_capacity` moves by the aspect's delta, or, when the base
//! HOT's group has a fixed capacity and the aspect's `OS::Heat::ScalingPolicy`
//! (`<aspect>_scale_out`/`_in`, upstream's v1 layout), the policy is signalled once per
//! step. Scaling in marks
//! the autoscaling group members of the leaving VNFCs (the newest) unhealthy first, so
//! exactly those go. The VNFCs are read back from Heat afterwards: a scale the stack did
//! not follow (a base HOT whose groups keep a fixed `desired_capacity`) fails with the
//! reason instead of completing with nothing added or removed.

use std::collections::BTreeMap;

use serde_json::Value;
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::{OperationParams, VnfcResourceInfo, plan};

use super::{Stored, Work, apply, counts_of, runs_as_asked, stored, with_capacities};
use crate::error::{Error, Result};
use crate::heat::StackRef;
use crate::per_vnfc::{self, Layout};
use crate::{nfv, template, vnfc};

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let s = stored(w.octx)?;
    let OperationParams::Scale(req) = &w.octx.op.request else {
        return Err(Error::Invalid("not a scale request".into()));
    };
    let flavour = w.flavour()?;
    let step = plan::checked_scale_step(flavour, &s.info, req).map_err(Error::Invalid)?;
    let mut counts = counts_of(&s.info.vnfc_resource_info);
    for (vdu, delta) in &step.deltas {
        let now = i64::from(counts.get(vdu).copied().unwrap_or(0));
        counts.insert(
            vdu.clone(),
            u32::try_from((now + delta).max(0)).unwrap_or(0),
        );
    }
    let leaving = plan::scale_in_targets(&s.info, &step);
    let mut gone = Vec::new();
    for id in &leaving {
        let r = s
            .info
            .vnfc_resource_info
            .iter()
            .find(|r| r.id == *id)
            .ok_or_else(|| Error::Invalid(format!("VNFC {id} is not stored")))?;
        gone.push(r.clone());
    }
    if s.layout == Layout::PerVnfc {
        return per_vnfc(w, s, &step, &counts, &gone).await;
    }
    for r in &gone {
        mark_member(w, r).await?;
    }
    let nfv = with_capacities(&s.nfv, &counts);
    // Upstream's v1 layout (a fixed desired_capacity) scales through the aspect's policies
    // (`<aspect>_scale_out`, `_scale_in`), signalled once per step; ours through `nfv`.
    let hot = template::load(&w.octx.package_dir, flavour, &nfv::flavour_in(&s.nfv))?;
    let direction = if step.to_level > step.from_level {
        "out"
    } else {
        "in"
    };
    let policy = format!("{}_scale_{direction}", step.aspect);
    match template::scaling_policy(&hot.parsed, &policy) {
        Some(group) => {
            // Signalled only while the group is short of (or over) the counts asked: a
            // retry after a conductor died between two signals does not overshoot.
            for _ in 0..step.to_level.abs_diff(step.from_level) {
                let now = w.read(&s.stack, &s.info.vnfc_resource_info).await?;
                let now = counts_of(&now.resources);
                if step.deltas.iter().all(|(v, _)| now.get(v) == counts.get(v)) {
                    break;
                }
                w.heat.signal(&s.stack, &policy).await?;
                w.heat.wait_resource(&s.stack, &group).await?;
            }
        }
        None => apply(w, &s.stack, &nfv).await?,
    }
    finish(w, s, &step, &counts, nfv).await
}

/// `StandardUserData`: the leaving VNFCs' copies go from the template, or copies at
/// the lowest free indexes come.
async fn per_vnfc(
    w: &Work<'_>,
    s: Stored,
    step: &plan::ScaleStep,
    counts: &BTreeMap<String, u32>,
    gone: &[VnfcResourceInfo],
) -> Result<Outcome> {
    let flavour = w.flavour()?;
    let now = per_vnfc::indexes_of(&s.info.vnfc_resource_info);
    // Scaling out adds copies at the lowest free indexes; scaling in drops the copies
    // of the leaving VNFCs.
    let mut indexes = if gone.is_empty() {
        per_vnfc::sized(&now, counts)
    } else {
        now
    };
    for r in gone {
        let index = r
            .metadata
            .get(per_vnfc::INDEX)
            .and_then(Value::as_u64)
            .and_then(|i| u32::try_from(i).ok())
            .ok_or_else(|| Error::Invalid(format!("VNFC {} has no vdu_idx recorded", r.id)))?;
        if let Some(set) = indexes.get_mut(&r.vdu_id) {
            set.remove(&index);
        }
    }
    let hot = template::load(&w.octx.package_dir, flavour, &nfv::flavour_in(&s.nfv))?;
    let mut nfv = s.nfv.clone();
    let hot = super::laid_out(
        hot,
        flavour,
        Layout::PerVnfc,
        &indexes,
        &mut nfv,
        &super::recorded_links(&s.info)?,
    )?;
    super::replace(w, &s.stack, &hot, &nfv).await?;
    finish(w, s, step, counts, nfv).await
}

/// Reads the VNFCs back: the scale completes only when the stack runs the counts asked.
async fn finish(
    w: &Work<'_>,
    s: Stored,
    step: &plan::ScaleStep,
    counts: &BTreeMap<String, u32>,
    nfv: Value,
) -> Result<Outcome> {
    let read = w.read(&s.stack, &s.info.vnfc_resource_info).await?;
    let changed: Vec<&String> = step
        .deltas
        .iter()
        .filter(|(_, d)| *d != 0)
        .map(|(v, _)| v)
        .collect();
    let what = format!("scaling aspect {} to level {}", step.aspect, step.to_level);
    runs_as_asked(&what, &changed, counts, &counts_of(&read.resources))?;
    let stack = s.stack.clone();
    let mut o = super::outcome(s, read, &stack, &nfv);
    for st in o
        .instantiated_vnf_info
        .iter_mut()
        .flat_map(|i| i.scale_status.iter_mut())
    {
        if st.aspect_id == step.aspect {
            st.scale_level = step.to_level;
        }
    }
    Ok(o)
}

/// Marks the autoscaling group member holding VNFC `r` unhealthy (it leaves first when
/// the group shrinks).
pub async fn mark_member(w: &Work<'_>, r: &tacker_domain::lcm::VnfcResourceInfo) -> Result<()> {
    let parent = r
        .metadata
        .get(vnfc::PARENT_STACK)
        .and_then(Value::as_str)
        .and_then(StackRef::parse);
    let member = r
        .metadata
        .get(vnfc::PARENT_RESOURCE)
        .and_then(Value::as_str);
    match (parent, member) {
        (Some(p), Some(m)) => w.heat.mark_unhealthy(&p, m).await,
        _ => Err(Error::Invalid(format!(
            "VDU {} is not in an OS::Heat::AutoScalingGroup of the base HOT: it does not scale",
            r.vdu_id
        ))),
    }
}
