//! SOL005 package notification subscriptions (`/vnfpkgm/v1/subscriptions`) and the
//! package management API's versions.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::json;
use tacker_db::pkgm_subscriptions::{self as subs, Insert};
use tacker_domain::pkgm::{PkgmFilter, PkgmSubscription};
use tacker_domain::sol013::{Marker, Selector};
use uuid::Uuid;

use super::lcm::subscriptions::{Authentication, checked_auth};
use crate::auth::Principal;
use crate::extract::{AcceptsJson, ByPath, JsonBody, Scoped};
use crate::http::{base_url, created};
use crate::query::ListQuery;
use crate::{ApiError, ServerState};

/// The SOL005 version served.
pub const PKGM_API_VERSION: &str = "2.6.1";

fn api_base(req: &HttpRequest, st: &ServerState) -> String {
    format!("{}/vnfpkgm/v1", base_url(req, st))
}

/// `GET /vnfpkgm/api_versions`, `GET /vnfpkgm/v1/api_versions`.
pub async fn api_versions(req: HttpRequest) -> HttpResponse {
    let prefix = if req.path().starts_with("/vnfpkgm/v1") {
        "/vnfpkgm/v1"
    } else {
        "/vnfpkgm"
    };
    HttpResponse::Ok().json(json!({"uriPrefix": prefix,
        "apiVersions": [{"version": PKGM_API_VERSION, "isDeprecated": false}]}))
}

/// `PkgmSubscriptionRequest`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateRequest {
    callback_uri: String,
    #[serde(default)]
    filter: Option<PkgmFilter>,
    #[serde(default)]
    authentication: Option<Authentication>,
}

pub async fn create(
    req: HttpRequest,
    who: Principal,
    JsonBody(b): JsonBody<CreateRequest>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let authentication = checked_auth(&st, &b.callback_uri, b.authentication).await?;
    let s = PkgmSubscription {
        id: Uuid::new_v4(),
        callback_uri: b.callback_uri,
        filter: b.filter.unwrap_or_default(),
        authentication,
        confinement: who.confinement(),
        tenant: who.owner(),
    };
    let stored = s.clone();
    let refuse = st.settings.refuse_duplicate_subscriptions;
    let base = api_base(&req, &st);
    let quota = st.settings.max_subscriptions_per_tenant;
    match st
        .db
        .run(move |c| subs::insert(c, &stored, refuse, quota))
        .await?
    {
        Insert::Created => {
            tracing::info!(subscription_id = %s.id, "package subscription created");
            Ok(created(s.to_json(&base)))
        }
        // SOL005 lets the NFVO refuse a duplicate with 303 and the existing one.
        Insert::Duplicate(existing) => Ok(HttpResponse::SeeOther()
            .insert_header(("Location", format!("{base}/subscriptions/{existing}")))
            .finish()),
        Insert::OverQuota => Err(crate::routes::lcm::subscriptions::quota_reached(
            "package subscriptions",
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
    let base = api_base(&req, &st);
    let mine = who.confinement();
    let docs = all
        .iter()
        .filter(|(s, _)| who.sees(s.tenant.as_deref()) && mine.covers(&s.confinement))
        .map(|(s, created)| (Marker::of(*created, s.id.to_string()), s.to_json(&base)));
    super::paged(
        &q,
        docs,
        st.settings.page_size,
        &format!("{base}/subscriptions"),
        &[],
    )
}

/// Subscription `raw`, when `who` sees it (its tenant's, hearing of nothing `who` could
/// not read).
impl Scoped for PkgmSubscription {
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
    ByPath(s): ByPath<PkgmSubscription>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(s.to_json(&api_base(&req, &st))))
}

pub async fn delete(
    ByPath(s): ByPath<PkgmSubscription>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let id = s.id;
    if st.db.run(move |c| subs::delete(c, id)).await? {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ApiError::NotFound(format!("subscription {id} not found")))
    }
}
