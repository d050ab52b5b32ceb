//! `/vnffm/v1/subscriptions`: FM subscriptions.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use tacker_db::fm_subscriptions as subs;
use tacker_db::pkgm_subscriptions::Insert;
use tacker_domain::fm::subscription::{FmFilter, FmSubscription};
use tacker_domain::sol013::{Marker, Selector};
use uuid::Uuid;

use super::bases;
use crate::auth::Principal;
use crate::extract::{AcceptsJson, ByPath, JsonBody, Scoped};
use crate::http::created;
use crate::query::ListQuery;
use crate::routes::lcm::subscriptions::{Authentication, checked_auth};
use crate::{ApiError, ServerState};

/// `FmSubscriptionRequest`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateRequest {
    callback_uri: String,
    #[serde(default)]
    filter: Option<FmFilter>,
    #[serde(default)]
    authentication: Option<Authentication>,
}

/// Creates a subscription once its callback answered the test GET (204) with the
/// authentication given; a duplicate (same callback and filter) is 303 to the existing
/// one when `refuse_duplicate_subscriptions`.
pub async fn create(
    req: HttpRequest,
    who: Principal,
    JsonBody(b): JsonBody<CreateRequest>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let authentication = checked_auth(&st, &b.callback_uri, b.authentication).await?;
    let s = FmSubscription {
        id: Uuid::new_v4(),
        callback_uri: b.callback_uri,
        filter: b.filter.unwrap_or_default(),
        authentication,
        tenant: who.owner(),
        confinement: who.confinement(),
    };
    let stored = s.clone();
    let refuse = st.settings.refuse_duplicate_subscriptions;
    let (base, _) = bases(&req, &st);
    let quota = st.settings.max_subscriptions_per_tenant;
    match st
        .db
        .run(move |c| subs::insert(c, &stored, refuse, quota))
        .await?
    {
        Insert::Created => {
            tracing::info!(subscription_id = %s.id, "FM subscription created");
            Ok(created(s.to_json(&base)))
        }
        Insert::Duplicate(existing) => Ok(HttpResponse::SeeOther()
            .insert_header(("Location", format!("{base}/subscriptions/{existing}")))
            .finish()),
        Insert::OverQuota => Err(crate::routes::lcm::subscriptions::quota_reached(
            "FM subscriptions",
            quota,
            who.owner(),
        )),
    }
}

const SUB_ATTRIBUTES: &[&str] = &["id", "filter", "callbackUri", "_links"];

pub async fn list(
    req: HttpRequest,
    who: Principal,
    _: AcceptsJson,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let mut q = ListQuery::parse(
        req.query_string(),
        SUB_ATTRIBUTES,
        st.settings.max_filter_terms,
    )?;
    q.selector = Selector::All;
    let all = st.db.run(subs::list).await?;
    let (base, _) = bases(&req, &st);
    let mine = who.confinement();
    let docs = all
        .iter()
        .filter(|(s, _)| who.sees(s.tenant.as_deref()) && mine.covers(&s.confinement))
        .map(|(s, created)| (Marker::of(*created, s.id.to_string()), s.to_json(&base)));
    super::super::paged(
        &q,
        docs,
        st.settings.page_size,
        &format!("{base}/subscriptions"),
        &[],
    )
}

/// Subscription `raw`, when `who` sees it.
impl Scoped for FmSubscription {
    async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<Self, ApiError> {
        let s = crate::http::load(st, raw, "subscription", subs::get).await?;
        if !who.sees(s.tenant.as_deref()) || !who.confinement().covers(&s.confinement) {
            return Err(ApiError::NotFound(format!("subscription {raw} not found")));
        }
        Ok(s)
    }
}

pub async fn show(
    req: HttpRequest,
    _: AcceptsJson,
    ByPath(s): ByPath<FmSubscription>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(s.to_json(&bases(&req, &st).0)))
}

pub async fn delete(
    ByPath(s): ByPath<FmSubscription>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let id = s.id;
    if st.db.run(move |c| subs::delete(c, id)).await? {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ApiError::NotFound(format!("subscription {id} not found")))
    }
}
