//! The stack as the instance recorded it: its package's HOT for a flavour with the
//! recorded per-VNFC copies and internal links on existing networks, and the `nfv` it
//! ran with — what a rollback puts back and a re-creating heal makes again.

use serde_json::Value;
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::vnfd::Flavour;

use super::{Stored, Work, laid_out, recorded_links, replace};
use crate::error::Result;
use crate::template::BaseHot;
use crate::{nfv, per_vnfc, template};

/// The recorded template of `flavour` and the `nfv` the instance ran with.
pub fn hot(w: &Work<'_>, s: &Stored, flavour: &Flavour) -> Result<(BaseHot, Value)> {
    let hot = template::load(&w.octx.package_dir, flavour, &nfv::flavour_in(&s.nfv))?;
    let mut nfv = s.nfv.clone();
    let indexes = per_vnfc::indexes_of(&s.info.vnfc_resource_info);
    let links = recorded_links(&s.info)?;
    let hot = laid_out(hot, flavour, s.layout, &indexes, &mut nfv, &links)?;
    Ok((hot, nfv))
}

/// Puts the stack back as recorded on `flavour` (a rollback) and reads the VNFCs back.
pub async fn restore(w: &Work<'_>, s: Stored, flavour: &Flavour) -> Result<Outcome> {
    let (hot, nfv) = hot(w, &s, flavour)?;
    tracing::info!(stack = %s.stack.text(), flavour = %flavour.id, "putting the stack back as recorded");
    replace(w, &s.stack, &hot, &nfv).await?;
    let read = w.read(&s.stack, &s.info.vnfc_resource_info).await?;
    let stack = s.stack.clone();
    Ok(super::outcome(s, read, &stack, &nfv))
}
