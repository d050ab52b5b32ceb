//! `/vnffm/v1`: VNF fault management (SOL003 v3.3.1): alarms and FM subscriptions, as
//! Tacker's v2 API serves them (`Version: 1.3.0`).

pub(super) mod alarms;

use actix_web::HttpRequest;
use uuid::Uuid;

use crate::auth::Principal;
use crate::scope::{sees_instance, vim_areas};
use crate::{ApiError, ServerState};

/// The FM API version served.
pub const API_VERSION: &str = "1.3.0";

super::version::one_version!("/vnffm/v1", API_VERSION, ["1.3", "1"]);

/// `<base>/vnffm/v1`.
pub(super) fn base(req: &HttpRequest, st: &ServerState) -> String {
    bases(req, st).0
}

/// `<base>/vnffm/v1`, and `<base>/vnflcm/v2` (alarms link to their instance there).
fn bases(req: &HttpRequest, st: &ServerState) -> (String, String) {
    crate::http::with_lcm_base(req, st, "/vnffm/v1")
}

/// Whether `who` sees what is about instance `id` of `tenant`: the tenant's, and for a
/// caller confined to vendors or areas, an instance it sees (a deleted one: no).
async fn sees(
    st: &ServerState,
    who: &Principal,
    tenant: Option<&str>,
    id: Uuid,
) -> Result<bool, ApiError> {
    if !who.sees(tenant) {
        return Ok(false);
    }
    if !who.confined_beyond_tenant() {
        return Ok(true);
    }
    let areas = vim_areas(st, who).await?;
    Ok(st
        .db
        .instances()
        .get(id)
        .await?
        .is_some_and(|i| sees_instance(who, &i, &areas)))
}
