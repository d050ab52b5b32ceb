//! Vendor and area scoping (Tacker's enhanced policy): what a caller confined by
//! `VENDOR_<provider>` or `AREA_<area>` roles sees. Packages have the vendor of their
//! `vnfProvider`, VIMs the area of their `extra.area`, instances both (their package's
//! provider, the areas of their VIMs); what is out of scope is absent (404, not listed).

use std::sync::Arc;

use tacker_domain::lcm::VnfInstance;
use tacker_domain::vim::Vim;

use crate::auth::Principal;
use crate::{ApiError, ServerState};

pub use tacker_domain::scope::VimAreas;

/// The registered VIMs' areas, when `who` is confined to areas (else none needed: VIMs
/// are few, and nobody else needs them), read once per request.
pub async fn vim_areas(st: &ServerState, who: &Principal) -> Result<Arc<VimAreas>, ApiError> {
    if !who.confined_to_areas() {
        return Ok(Arc::default());
    }
    Ok(Arc::new(st.db.run(tacker_db::vims::areas).await?))
}

/// Whether `who` sees the instance: its tenant, its provider and its areas.
pub fn sees_instance(who: &Principal, i: &VnfInstance, areas: &VimAreas) -> bool {
    who.sees(i.tenant.as_deref())
        && who.sees_vendor(Some(&i.vnf_provider))
        && who.sees_areas(areas.of(i))
}

/// Whether `who` sees the registered VIM.
pub fn sees_vim(who: &Principal, v: &Vim) -> bool {
    who.sees_areas(v.area())
}
