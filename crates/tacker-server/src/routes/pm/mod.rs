//! `/vnfpm/v2`: VNF performance management (SOL003 v3.3.1, `Version: 2.1.0` as Tacker's
//! v2 API): PM jobs and their reports, thresholds; and the Alertmanager webhooks that
//! feed them (`/pm_event`, `/pm_threshold`). A job or threshold exists only with its
//! Prometheus rules delivered (a conductor writes them where `[pm]` says; a failed
//! delivery is a 503 and nothing is kept), and is deleted only with them removed.

pub(super) mod events;
pub(super) mod jobs;
pub(super) mod resource;
pub(super) mod thresholds;

use std::time::Duration;

use actix_web::HttpRequest;
use tacker_domain::lcm::{InstantiationState, SubscriptionAuth, VnfInstance};
use tacker_domain::pm::ObjectType;
use tacker_rpc::Target;
use tacker_rpc::proto::{DeliverRules, RulesDelivered};
use uuid::Uuid;

use crate::auth::Principal;
use crate::routes::lcm::subscriptions::{Authentication, checked_auth};
use crate::{ApiError, ServerState};

/// The PM API version served.
pub const API_VERSION: &str = "2.1.0";

super::version::one_version!("/vnfpm/v2", API_VERSION, ["2.1", "2"]);

/// `<base>/vnfpm/v2` and `<base>/vnflcm/v2`.
fn bases(req: &HttpRequest, st: &ServerState) -> (String, String) {
    crate::http::with_lcm_base(req, st, "/vnfpm/v2")
}

/// Stores a new job or threshold (`what`, `id`) through `insert` under the tenant's
/// quota, then has a conductor deliver its rules; when that fails it is removed again
/// (`remove`) and the failure answered, so nothing is kept without its rules.
async fn store_delivered(
    st: &ServerState,
    who: &Principal,
    what: &str,
    id: Uuid,
    threshold: bool,
    insert: impl FnOnce(&mut tacker_db::DbConnection, u64) -> tacker_db::Result<bool> + Send + 'static,
    remove: fn(&mut tacker_db::DbConnection, Uuid) -> tacker_db::Result<bool>,
) -> Result<(), ApiError> {
    let quota = st.settings.max_subscriptions_per_tenant;
    if !st.db.run(move |c| insert(c, quota)).await? {
        return Err(crate::routes::lcm::subscriptions::quota_reached(
            what,
            quota,
            who.owner(),
        ));
    }
    if let Err(e) = deliver(st, id, threshold, false).await {
        let _ = st.db.run(move |c| remove(c, id)).await;
        return Err(e);
    }
    Ok(())
}

/// The instances `ids` as `who` sees them, instantiated (404 unseen, 409 not
/// instantiated), all of one tenant (422 otherwise): the instances and that tenant.
async fn objects(
    st: &ServerState,
    who: &Principal,
    ids: &[Uuid],
) -> Result<(Vec<VnfInstance>, Option<String>), ApiError> {
    let mut out = Vec::new();
    for id in ids {
        let i = super::lcm::instances::load(st, &id.to_string(), who).await?;
        if i.instantiation_state != InstantiationState::Instantiated {
            return Err(ApiError::Conflict(format!(
                "VNF instance {id} is {}; PM needs it INSTANTIATED",
                i.instantiation_state
            )));
        }
        out.push(i);
    }
    let tenant = out.first().and_then(|i| i.tenant.clone());
    if out.iter().any(|i| i.tenant != tenant) {
        return Err(ApiError::Unprocessable(
            "objectInstanceIds name VNF instances of different tenants".into(),
        ));
    }
    Ok((out, tenant))
}

/// The tenant of a new job or threshold and the authentication to its callback, checked
/// after its criteria: its instances `ids` (see [`objects`]), their VNFCs `subs` when it
/// is about VNFCs, the callback.
async fn addressed(
    st: &ServerState,
    who: &Principal,
    object_type: ObjectType,
    ids: &[Uuid],
    subs: &[String],
    callback_uri: &str,
    authentication: Option<Authentication>,
) -> Result<(Option<String>, Option<SubscriptionAuth>), ApiError> {
    let (instances, tenant) = objects(st, who, ids).await?;
    if object_type == ObjectType::Vnfc {
        check_vnfcs(&instances[0], subs)?;
    }
    let authentication = checked_auth(st, callback_uri, authentication).await?;
    Ok((tenant, authentication))
}

/// Checks that `subs` are VNFCs (`vnfcInfo` ids) of `i` (Vnfc jobs and thresholds).
fn check_vnfcs(i: &VnfInstance, subs: &[String]) -> Result<(), ApiError> {
    let info = i.instantiated_vnf_info.as_ref();
    for s in subs {
        if !info.is_some_and(|x| x.vnfc_info.iter().any(|c| c.id == *s)) {
            return Err(ApiError::Unprocessable(format!(
                "subObjectInstanceIds: {s} is not a VNFC of VNF instance {}",
                i.id
            )));
        }
    }
    Ok(())
}

/// Has a conductor write (or remove) the rules of `id`; 503 with why when it cannot.
async fn deliver(
    st: &ServerState,
    id: Uuid,
    threshold: bool,
    remove: bool,
) -> Result<u32, ApiError> {
    let msg = DeliverRules {
        owner_id: id.to_string(),
        threshold,
        remove,
    };
    let done: RulesDelivered = st
        .bus
        .call(
            Target::Any,
            &msg,
            &[("owner_id", &id.to_string())],
            Duration::from_secs(60),
        )
        .await
        .map_err(|e| match e {
            tacker_rpc::Error::Remote { message, .. } => ApiError::Unavailable(format!(
                "the Prometheus rules could not be {}: {message}",
                if remove { "removed" } else { "delivered" }
            )),
            other => ApiError::Unavailable(other.to_string()),
        })?;
    Ok(done.rules)
}
