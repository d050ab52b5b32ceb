//! Tenant, vendor and area scoping (Tacker's enhanced policy): what a caller of a tenant,
//! or confined by `VENDOR_<provider>` or `AREA_<area>` roles, sees. Packages belong to a
//! tenant (or are shared) and have the vendor of their `vnfProvider`, VIMs belong to a
//! tenant and have the area of their `extra.area`, instances all three (their tenant,
//! their package's provider, the areas of their VIMs); what is out of scope is absent
//! (404, not listed).

use std::sync::Arc;

use tacker_domain::lcm::VnfInstance;
use tacker_domain::package::VnfPackage;
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
    Ok(Arc::new(st.db.vims().areas().await?))
}

/// Whether `who` sees the instance: its tenant, its provider and its areas.
pub fn sees_instance(who: &Principal, i: &VnfInstance, areas: &VimAreas) -> bool {
    who.sees(i.tenant.as_deref())
        && who.sees_vendor(Some(&i.vnf_provider))
        && who.sees_areas(areas.of(i))
}

/// Whether `who` sees the registered VIM: its tenant's (a VIM registered by a caller of
/// no tenant is seen only by callers confined to no tenant), in the caller's areas.
pub fn sees_vim(who: &Principal, v: &Vim) -> bool {
    who.scope().is_none_or(|mine| v.tenant_id == mine) && who.sees_areas(v.area())
}

/// Whether `who` sees the package: its tenant's or a shared one (of no tenant), of a
/// provider the caller sees.
pub fn sees_package(who: &Principal, p: &VnfPackage) -> bool {
    (p.tenant.is_none() || who.sees(p.tenant.as_deref())) && who.sees_vendor(p.provider())
}
