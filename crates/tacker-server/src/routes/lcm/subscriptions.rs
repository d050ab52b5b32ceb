//! Subscriptions to LCM notifications.

use actix_web::HttpResponse;
use serde::Deserialize;
use tacker_db::subscriptions::{self, Insert};
use tacker_domain::lcm::{Subscription, SubscriptionAuth, SubscriptionFilter};
use tacker_domain::sol013::Marker;
use uuid::Uuid;

use super::Api;
use crate::auth::Principal;
use crate::extract::{AcceptsJson, ByPath, Call, JsonBody, Listable, Listed, Scoped};
use crate::http::created;
use crate::{ApiError, ServerState};

/// `LccnSubscriptionRequest`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateRequest {
    callback_uri: String,
    #[serde(default)]
    filter: Option<SubscriptionFilter>,
    #[serde(default)]
    authentication: Option<Authentication>,
    #[serde(default)]
    verbosity: Option<String>,
}

pub use tacker_domain::lcm::Authentication;

/// The authentication of a subscription request, checked.
pub fn auth(a: Option<Authentication>) -> Result<Option<SubscriptionAuth>, ApiError> {
    Ok(a.map(Authentication::checked).transpose()?)
}

/// A callback URI must be http(s) and answer a test GET with 204 before the
/// subscription exists.
pub async fn check_callback(
    st: &ServerState,
    callback_uri: &str,
    authentication: Option<&SubscriptionAuth>,
) -> Result<(), ApiError> {
    tacker_domain::lcm::check_callback_uri(callback_uri)?;
    st.notify
        .test_callback(callback_uri, authentication)
        .await
        .map_err(|e| {
            ApiError::BadRequest(format!(
                "callbackUri test failed: {e} (a GET must answer 204)"
            ))
        })
}

/// A new subscription's authentication (LCM, packages): read, the callback tested with
/// it (a GET must answer 204), then sealed (the notifier opens it).
pub async fn checked_auth(
    st: &ServerState,
    callback_uri: &str,
    authentication: Option<Authentication>,
) -> Result<Option<SubscriptionAuth>, ApiError> {
    let mut authentication = auth(authentication)?;
    check_callback(st, callback_uri, authentication.as_ref()).await?;
    if let Some(a) = authentication.as_mut() {
        a.seal(&mut |s| crate::http::seal(st, s))?;
    }
    Ok(authentication)
}

pub async fn create(
    Call { req, who, st }: Call,
    api: Api,
    JsonBody(b): JsonBody<CreateRequest>,
) -> Result<HttpResponse, ApiError> {
    let verbosity = b.verbosity.unwrap_or_else(|| "FULL".into());
    if !matches!(verbosity.as_str(), "FULL" | "SHORT") {
        return Err(ApiError::BadRequest(
            "verbosity must be FULL or SHORT".into(),
        ));
    }
    let authentication = checked_auth(&st, &b.callback_uri, b.authentication).await?;
    let s = Subscription {
        id: Uuid::new_v4(),
        callback_uri: b.callback_uri,
        filter: b.filter.unwrap_or_default(),
        authentication,
        verbosity,
        api_version: api.0,
        tenant: who.owner(),
        confinement: who.confinement(),
    };
    let quota = st.settings.max_subscriptions_per_tenant;
    let refuse = st.settings.refuse_duplicate_subscriptions;
    let base = api.base(&req, &st);
    match st.db.subscriptions().insert(&s, refuse, quota).await? {
        Insert::Created => {
            tracing::info!(subscription_id = %s.id, "subscription created");
            Ok(created(s.to_json(&base)))
        }
        Insert::Duplicate(existing) => Ok(HttpResponse::SeeOther()
            .insert_header(("Location", format!("{base}/subscriptions/{existing}")))
            .finish()),
        Insert::OverQuota => Err(quota_reached("LCM subscriptions", quota, who.owner())),
    }
}

/// 403: the caller's tenant has `quota` of `what` already.
pub fn quota_reached(what: &str, quota: u64, tenant: Option<String>) -> ApiError {
    ApiError::Forbidden(format!(
        "quota exceeded: {} has {quota} {what} already, the most it may have",
        tenant.map_or("the deployment (no tenant)".to_owned(), |t| format!(
            "tenant {t}"
        ))
    ))
}

const SUB_ATTRIBUTES: &[&str] = &["id", "filter", "callbackUri", "verbosity", "_links"];

pub async fn list(
    Call { req, who, st }: Call,
    api: Api,
    Listed(q, _): Listed<Subscription>,
) -> Result<HttpResponse, ApiError> {
    let all = st.db.subscriptions().list().await?;
    let base = api.base(&req, &st);
    let docs = all
        .iter()
        .filter(|(s, _)| sees(&who, s))
        .map(|(s, created)| (Marker::of(*created, s.id.to_string()), s.to_json(&base)));
    crate::routes::paged(
        &q,
        docs,
        st.settings.page_size,
        &format!("{base}/subscriptions"),
        &[],
    )
}

/// The subscription at `raw`, if the caller sees it (another tenant's is 404).
/// Whether `who` sees subscription `s`: of its tenant, and hearing of nothing `who`
/// could not read (vendors, areas).
fn sees(who: &Principal, s: &Subscription) -> bool {
    who.sees(s.tenant.as_deref()) && who.confinement().covers(&s.confinement)
}

impl Scoped for Subscription {
    async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<Self, ApiError> {
        let s = crate::http::load(st, raw, "subscription", subscriptions::get).await?;
        let (seen, id) = (sees(who, &s), s.id);
        crate::http::if_seen(s, seen, "subscription", id)
    }
}

pub async fn delete(
    Call { st, .. }: Call,
    _: AcceptsJson,
    ByPath(s): ByPath<Subscription>,
) -> Result<HttpResponse, ApiError> {
    let id = s.id;
    if st.db.subscriptions().delete(id).await? {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ApiError::NotFound(format!("subscription {id} not found")))
    }
}

impl Listable for Subscription {
    const ATTRIBUTES: &'static [&'static str] = SUB_ATTRIBUTES;
    const EVERY_ATTRIBUTE: bool = true;
}
