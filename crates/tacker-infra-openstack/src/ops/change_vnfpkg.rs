//! CHANGE_VNFPKG (Tacker's RollingUpdate) of a VM VNF: the stack moves to the new
//! package's Base HOT (or the HOT built from its VNFD) for the flavour it runs, at the
//! counts it has, with the new package's flavours and images (uploaded to Glance as at
//! instantiation). With StandardUserData the VNFCs move one at a time: the new template
//! first with every copy still on its old `nfv` entries, then each copy's entries, each a
//! stack update in which Heat replaces that VNFC's VM; other layouts in one stack update.
//! The VNFCs are read back and must run as they did. A rollback puts the old package's
//! template and `nfv` back.

use serde_json::Value;
use tacker_domain::lcm::OperationParams;
use tacker_domain::lcm::driver::{OpContext, Outcome};
use tacker_domain::lcm::request::ChangeVnfpkgRequest;

use super::{Stored, Work, apply, counts_of, replace, runs_as_asked, stored};
use crate::error::{Error, Result};
use crate::per_vnfc::{self, Layout};
use crate::{images, nfv, template};

fn request<'a>(w: &'a Work<'_>) -> Result<&'a ChangeVnfpkgRequest> {
    match &w.octx.op.request {
        OperationParams::ChangeVnfpkg(r) => Ok(r),
        other => Err(Error::Invalid(format!(
            "{} is not a package change",
            other.operation()
        ))),
    }
}

/// The operation as seen from the new package (its VNFD and files).
fn on_target(octx: &OpContext) -> Result<OpContext> {
    let t = octx
        .target
        .as_ref()
        .ok_or_else(|| Error::Invalid("the operation names no package to change to".into()))?;
    Ok(OpContext {
        vnfd: t.vnfd.clone(),
        package_dir: t.package_dir.clone(),
        package_zip: t.package_dir.join("package.zip"),
        // The conductor's package services serve the instance's current package.
        services: None,
        ..octx.clone()
    })
}

/// `nfv` with each copy's entries (`VDU1-0`, `VDU1_CP1-0`) as `old` has them.
fn on_old_entries(nfv: &Value, old: &Value) -> Value {
    let mut n = nfv.clone();
    for section in ["VDU", "CP"] {
        let (Some(now), Some(before)) = (
            n.get_mut(section).and_then(Value::as_object_mut),
            old.get(section).and_then(Value::as_object),
        ) else {
            continue;
        };
        for (k, v) in before {
            if per_vnfc::split(k).is_some() && now.contains_key(k) {
                now.insert(k.clone(), v.clone());
            }
        }
    }
    n
}

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let req = request(w)?;
    let s = stored(w.octx)?;
    s.started()?;
    let target = on_target(w.octx)?;
    let flavour = target.vnfd.flavour(&s.info.flavour_id).ok_or_else(|| {
        Error::Invalid(format!(
            "flavour {} is not in the VNFD of the new package",
            s.info.flavour_id
        ))
    })?;
    let counts = counts_of(&s.info.vnfc_resource_info);
    let grant = images::ensure(w.session, &target, flavour).await?;
    let hot = template::load(&target.package_dir, flavour, &|v| {
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
        super::change_flavour::keep_networks(&mut nfv, &s.nfv);
    }
    let indexes = per_vnfc::indexes_of(&s.info.vnfc_resource_info);
    let hot = super::laid_out(
        hot,
        flavour,
        s.layout,
        &indexes,
        &mut nfv,
        &super::recorded_links(&s.info)?,
    )?;
    tracing::info!(stack = %s.stack.text(), package = %w.octx.target.as_ref().map(|t| t.id.to_string()).unwrap_or_default(), "changing the VNF's package");
    match s.layout {
        Layout::Template => replace(w, &s.stack, &hot, &nfv).await?,
        Layout::PerVnfc => {
            let mut now = on_old_entries(&nfv, &s.nfv);
            replace(w, &s.stack, &hot, &now).await?;
            for (vdu, set) in &indexes {
                for i in set {
                    let key = per_vnfc::indexed(vdu, *i);
                    if let (Some(entry), Some(vdus)) = (
                        nfv.pointer(&format!("/VDU/{key}")).cloned(),
                        now.get_mut("VDU").and_then(Value::as_object_mut),
                    ) {
                        vdus.insert(key.clone(), entry);
                    }
                    tracing::info!(copy = %key, "moving the VNFC to the new package");
                    apply(w, &s.stack, &now).await?;
                }
            }
            now = nfv.clone();
            apply(w, &s.stack, &now).await?;
        }
    }
    finish(w, s, flavour, &counts, nfv).await
}

/// The VNFCs read back: they must run as they did, each on the new package.
async fn finish(
    w: &Work<'_>,
    s: Stored,
    flavour: &tacker_domain::vnfd::Flavour,
    counts: &std::collections::BTreeMap<String, u32>,
    nfv: Value,
) -> Result<Outcome> {
    let read = w
        .read_as(&s.stack, &s.info.vnfc_resource_info, flavour)
        .await?;
    let vdus: Vec<&String> = counts.keys().collect();
    runs_as_asked(
        "changing the package",
        &vdus,
        counts,
        &counts_of(&read.resources),
    )?;
    let stack = s.stack.clone();
    Ok(super::outcome(s, read, &stack, &nfv))
}

/// Rollback: the old package's template and the `nfv` the VNF ran with.
pub async fn rollback(w: &Work<'_>) -> Result<Outcome> {
    let s = stored(w.octx)?;
    super::recorded::restore(w, s, w.flavour()?).await
}
