//! Heal: SOL002 (the named VNFCs) or SOL003 (all of them). Each healed server and its
//! ports are marked unhealthy and the stack updated: Heat replaces them, so a healed
//! VNFC is a new VM with new addresses; the others are untouched. SOL003 with
//! `additionalParams.all` deletes the stack and creates it again.

use serde_json::Value;
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::{OperationParams, VnfcResourceInfo};

use super::{Work, apply, changes, metadata, stored};
use crate::error::{Error, Result};
use crate::heat::StackRef;
use crate::per_vnfc::Layout;
use crate::vnfc;

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let s = stored(w.octx)?;
    let OperationParams::Heal(req) = &w.octx.op.request else {
        return Err(Error::Invalid("not a heal request".into()));
    };
    if req.is_whole_vnf() && req.all() {
        return recreate(w).await;
    }
    let targets: Vec<&VnfcResourceInfo> = if req.is_whole_vnf() {
        s.info.vnfc_resource_info.iter().collect()
    } else {
        req.vnfc_instance_id
            .iter()
            .map(|id| {
                let c = s
                    .info
                    .vnfc_info
                    .iter()
                    .find(|c| c.id == *id)
                    .ok_or_else(|| {
                        Error::Invalid(format!(
                            "vnfcInstanceId {id:?} is not a VNFC of the instance"
                        ))
                    })?;
                s.info
                    .vnfc_resource_info
                    .iter()
                    .find(|r| r.id == c.vnfc_resource_info_id)
                    .ok_or_else(|| Error::Invalid(format!("VNFC {id} has no resource stored")))
            })
            .collect::<Result<_>>()?
    };
    let flavour = w.flavour()?;
    for r in &targets {
        // StandardUserData: the VNFC's whole nested stack is replaced.
        if s.layout == Layout::PerVnfc {
            super::scale::mark_member(w, r).await?;
            continue;
        }
        let stack = r
            .metadata
            .get(vnfc::STACK)
            .and_then(Value::as_str)
            .and_then(StackRef::parse)
            .ok_or_else(|| Error::Invalid(format!("VNFC {} has no stack recorded", r.id)))?;
        w.heat.mark_unhealthy(&stack, &r.vdu_id).await?;
        for cp in flavour
            .cps
            .iter()
            .filter(|c| c.vdu.as_deref() == Some(r.vdu_id.as_str()))
        {
            if r.vnfc_cp_info.iter().any(|c| c.cpd_id == cp.id) {
                w.heat.mark_unhealthy(&stack, &cp.id).await?;
            }
        }
    }
    apply(w, &s.stack, &s.nfv).await?;
    let mut read = w.read(&s.stack, &s.info.vnfc_resource_info).await?;
    // A replacement takes the place of the VNFC it replaced.
    let mut ordered = Vec::new();
    for old in &s.info.vnfc_resource_info {
        if let Some(pos) = read.resources.iter().position(|n| n.id == old.id) {
            ordered.push(read.resources.remove(pos));
        } else if let Some(pos) = read.resources.iter().position(|n| {
            n.vdu_id == old.vdu_id
                && n.metadata.get(vnfc::STACK) == old.metadata.get(vnfc::STACK)
                && !s.info.vnfc_resource_info.iter().any(|o| o.id == n.id)
        }) {
            ordered.push(read.resources.remove(pos));
        }
    }
    ordered.append(&mut read.resources);
    let resource_changes = changes(&s.info.vnfc_resource_info, &ordered);
    let mut info = s.info;
    info.vnfc_info =
        super::operate::kept(&info.vnfc_info, ordered.iter().map(vnfc::info).collect());
    info.vnfc_resource_info = ordered;
    info.other
        .extend(metadata(&s.stack, &s.nfv, s.layout, s.made_by.as_ref()));
    Ok(Outcome {
        instantiated_vnf_info: Some(info),
        resource_changes,
    })
}

/// SOL003 heal with `all`: the stack goes and comes back from the base HOT.
async fn recreate(w: &Work<'_>) -> Result<Outcome> {
    let s = stored(w.octx)?;
    super::terminate::remove_stack(w).await?;
    let (hot, nfv) = super::recorded::hot(w, &s, w.flavour()?)?;
    let stack = super::instantiate::ensure_stack(w, &hot, &nfv).await?;
    let read = w.read(&stack, &[]).await?;
    Ok(super::outcome(s, read, &stack, &nfv))
}
