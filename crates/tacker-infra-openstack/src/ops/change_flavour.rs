//! CHANGE_FLAVOUR: the instance's stack updated (`PUT`) to the new flavour's base HOT
//! (`BaseHOT/<newFlavourId>/`) with an `nfv` parameter built for that flavour at the
//! counts of its instantiation level; the external networks are the request's, else the
//! ones the VNF is on. The VNFCs are read back as the new flavour's and must run as
//! asked. A rollback updates the stack back to the old flavour's base HOT and `nfv`.

use std::collections::BTreeMap;

use serde_json::Value;
use tacker_domain::lcm::change_flavour::ChangeFlavourRequest;
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::{OperationParams, plan};

use super::{Work, changes, counts_of, parameters, runs_as_asked, stored};
use crate::error::{Error, Result};
use crate::per_vnfc;
use crate::{images, nfv, template};

fn request<'a>(w: &'a Work<'_>) -> Result<&'a ChangeFlavourRequest> {
    match &w.octx.op.request {
        OperationParams::ChangeFlavour(r) => Ok(r),
        other => Err(Error::Invalid(format!(
            "{} is not a flavour change",
            other.operation()
        ))),
    }
}

/// `nfv`'s CP entries the new one leaves without a network, taken from `old` (the
/// networks the VNF is on).
pub(super) fn keep_networks(new: &mut Value, old: &Value) {
    let (Some(cps), Some(old_cps)) = (
        new.get_mut("CP").and_then(Value::as_object_mut),
        old.get("CP").and_then(Value::as_object),
    ) else {
        return;
    };
    for (cp, entry) in old_cps {
        let unset = cps
            .get(cp)
            .is_none_or(|e| e.get("network").is_none_or(Value::is_null));
        if unset {
            cps.insert(cp.clone(), entry.clone());
        }
    }
}

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let req = request(w)?;
    let st = stored(w.octx)?;
    st.started()?;
    let flavour = w.octx.vnfd.flavour(&req.new_flavour_id).ok_or_else(|| {
        Error::Invalid(format!("flavour {} is not in the VNFD", req.new_flavour_id))
    })?;
    let level = req.level(flavour);
    let counts: BTreeMap<String, u32> = plan::initial_counts(flavour, level.as_deref())
        .into_iter()
        .collect();
    let grant = images::ensure(w.session, w.octx, flavour).await?;
    let hot = template::load(&w.octx.package_dir, flavour, &|v| {
        nfv::flavour_of(&grant, v).is_some()
    })?;
    let mut nfv = nfv::build(&nfv::Inputs {
        flavour,
        template: &hot.parsed,
        counts: &counts,
        grant: &grant,
        ext_virtual_links: &req.ext_virtual_links,
        extra: req.additional_params.get("nfv"),
    });
    if req.ext_virtual_links.is_empty() {
        keep_networks(&mut nfv, &st.nfv);
    }
    let indexes = per_vnfc::sized(&Default::default(), &counts);
    let hot = super::laid_out(
        hot,
        flavour,
        st.layout,
        &indexes,
        &mut nfv,
        &super::recorded_links(&st.info)?,
    )?;
    tracing::info!(stack = %st.stack.text(), from = %st.info.flavour_id, to = %flavour.id, "changing the VNF's flavour");
    w.heat
        .replace(&st.stack, &hot.top, &hot.files, &parameters(&nfv))
        .await?;
    w.heat.wait(&st.stack, "UPDATE").await?;
    let read = w
        .read_as(&st.stack, &st.info.vnfc_resource_info, flavour)
        .await?;
    let vdus: Vec<&String> = counts.keys().collect();
    let what = format!("changing to flavour {}", flavour.id);
    runs_as_asked(&what, &vdus, &counts, &counts_of(&read.resources))?;
    let resource_changes = changes(&st.info.vnfc_resource_info, &read.resources);
    let mut info = super::started_info(
        w,
        flavour,
        level.as_deref(),
        read,
        &st.stack,
        &nfv,
        st.layout,
    );
    // Who made the VNF stays recorded (a VNF Tacker made keeps its images' release).
    if let (Some(m), Some(Value::Object(meta))) = (&st.made_by, info.other.get_mut("metadata")) {
        meta.insert(super::MADE_BY.into(), m.clone());
    }
    // The internal virtual links stay on the networks instantiation gave them.
    if let Some(managed) = st.info.other.get(super::MANAGED) {
        info.other.insert(super::MANAGED.into(), managed.clone());
    }
    Ok(Outcome {
        instantiated_vnf_info: Some(info),
        resource_changes,
    })
}

/// Rollback: the stack back on the old flavour's base HOT with the `nfv` it ran with.
pub async fn rollback(w: &Work<'_>) -> Result<Outcome> {
    let st = stored(w.octx)?;
    super::recorded::restore(w, st, w.flavour()?).await
}
