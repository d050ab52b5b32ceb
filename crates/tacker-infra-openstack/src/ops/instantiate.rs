//! Instantiate: the base HOT with the `nfv` parameter as stack `vnf-<instance id>`; a
//! stack already there (a retry) is updated, never created twice. Then the VNFCs are
//! read back with their addresses.

use std::collections::BTreeMap;

use serde_json::Value;
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::request::InstantiateRequest;
use tacker_domain::lcm::{OperationParams, plan};

use super::{Work, changes, counts_of, parameters, runs_as_asked, stack_name};
use crate::error::{Error, Result};
use crate::heat::StackRef;
use crate::per_vnfc::{self, Layout};
use crate::{images, nfv, template};

/// The instantiate request of the operation.
pub fn request<'a>(w: &'a Work<'_>) -> Result<&'a InstantiateRequest> {
    match &w.octx.op.request {
        OperationParams::Instantiate(r) => Ok(r),
        other => Err(Error::Invalid(format!(
            "{} is not an instantiation",
            other.operation()
        ))),
    }
}

/// Creates the stack (or updates the one a previous attempt left) and waits for it.
pub async fn ensure_stack(w: &Work<'_>, hot: &template::BaseHot, nfv: &Value) -> Result<StackRef> {
    let name = stack_name(w.octx);
    match w.heat.find(&name).await? {
        Some(existing) => {
            // Let an action of an earlier attempt end before changing the stack again.
            if let Some(st) = w.heat.state(&existing).await?
                && st.status.ends_with("_IN_PROGRESS")
            {
                let action = st.status.trim_end_matches("_IN_PROGRESS").to_owned();
                let _ = w.heat.wait(&existing, &action).await;
            }
            tracing::info!(stack = %existing.text(), "the stack exists (a retry): updating it");
            super::apply(w, &existing, nfv).await?;
            Ok(existing)
        }
        None => {
            let created = w
                .heat
                .create(&name, &hot.top, &hot.files, &parameters(nfv))
                .await?;
            tracing::info!(stack = %created.text(), "stack created");
            w.heat.wait(&created, "CREATE").await?;
            Ok(created)
        }
    }
}

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let req = request(w)?;
    let flavour = w.flavour()?;
    let level = plan::level(flavour, req);
    let counts: BTreeMap<String, u32> = plan::initial_counts(flavour, level.as_deref())
        .into_iter()
        .collect();
    let grant = images::ensure(w.session, w.octx, flavour).await?;
    let hot = template::load(&w.octx.package_dir, flavour, &|v| {
        nfv::flavour_of(&grant, v).is_some()
    })?;
    let layout = Layout::of(&req.additional_params);
    let mut nfv = nfv::build(&nfv::Inputs {
        flavour,
        template: &hot.parsed,
        counts: &counts,
        grant: &grant,
        ext_virtual_links: &req.ext_virtual_links,
        extra: req.additional_params.get("nfv"),
    });
    let links = super::managed_links(&req.ext_managed_virtual_links)?;
    let indexes = per_vnfc::sized(&Default::default(), &counts);
    let hot = super::laid_out(hot, flavour, layout, &indexes, &mut nfv, &links)?;
    let stack = ensure_stack(w, &hot, &nfv).await?;
    let read = w.read(&stack, &[]).await?;
    let vdus: Vec<&String> = counts.keys().collect();
    let what = format!("instantiating flavour {}", flavour.id);
    runs_as_asked(&what, &vdus, &counts, &counts_of(&read.resources))?;
    let resource_changes = changes(&[], &read.resources);
    let mut info = super::started_info(w, flavour, level.as_deref(), read, &stack, &nfv, layout);
    if !req.ext_managed_virtual_links.is_empty() {
        info.other.insert(
            super::MANAGED.into(),
            super::managed_info(&req.ext_managed_virtual_links),
        );
    }
    Ok(Outcome {
        instantiated_vnf_info: Some(info),
        resource_changes,
    })
}
