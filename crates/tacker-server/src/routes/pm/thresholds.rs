//! `/vnfpm/v2/thresholds`: create, list, read, modify, delete.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};
use tacker_db::pm_thresholds;
use tacker_domain::pm::ObjectType;
use tacker_domain::pm::threshold::{self, Criteria, THRESHOLD_ATTRIBUTES, Threshold};
use tacker_domain::sol013::{Marker, Selector};
use uuid::Uuid;

use super::jobs::Modifications;
use super::{bases, check_vnfcs, deliver, objects, store_delivered};
use crate::auth::Principal;
use crate::extract::{AcceptsJson, ByPath, JsonBody, PatchBody, Scoped};
use crate::http::created;
use crate::query::ListQuery;
use crate::routes::lcm::subscriptions::{Authentication, checked_auth};
use crate::{ApiError, ServerState};

/// `CreateThresholdRequest`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateRequest {
    object_type: ObjectType,
    object_instance_id: Uuid,
    #[serde(default)]
    sub_object_instance_ids: Vec<String>,
    criteria: Criteria,
    callback_uri: String,
    #[serde(default)]
    authentication: Option<Authentication>,
    /// Upstream Tacker's `metadata.monitoring`: Prometheus only, and no `targetsInfo`
    /// (rules go where `[pm]` says; see `tacker_domain::pm::metadata`).
    #[serde(default)]
    metadata: Option<Value>,
}

pub async fn create(
    req: HttpRequest,
    who: Principal,
    JsonBody(b): JsonBody<CreateRequest>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    tacker_domain::pm::metadata::check(b.metadata.as_ref()).map_err(ApiError::BadRequest)?;
    threshold::check(b.object_type, b.object_instance_id, &b.criteria)
        .map_err(ApiError::BadRequest)?;
    let (instances, tenant) = objects(&st, &who, &[b.object_instance_id]).await?;
    if b.object_type == ObjectType::Vnfc {
        check_vnfcs(&instances[0], &b.sub_object_instance_ids)?;
    }
    let authentication = checked_auth(&st, &b.callback_uri, b.authentication).await?;
    let t = Threshold {
        id: Uuid::new_v4(),
        object_type: b.object_type,
        object_instance_id: b.object_instance_id,
        sub_object_instance_ids: b.sub_object_instance_ids,
        criteria: b.criteria,
        callback_uri: b.callback_uri,
        authentication,
        tenant,
        state: Default::default(),
    };
    let (stored, id) = (t.clone(), t.id);
    store_delivered(
        &st,
        &who,
        "thresholds",
        id,
        true,
        move |c, quota| pm_thresholds::insert(c, &stored, quota),
        pm_thresholds::delete,
    )
    .await?;
    tracing::info!(threshold_id = %id, "threshold created");
    let (pm, lcm) = bases(&req, &st);
    Ok(created(t.to_json(&pm, &lcm)))
}

pub async fn list(
    req: HttpRequest,
    who: Principal,
    _: AcceptsJson,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let mut q = ListQuery::parse(
        req.query_string(),
        THRESHOLD_ATTRIBUTES,
        st.settings.max_filter_terms,
    )?;
    q.selector = Selector::All;
    let tenant = who.scope().map(str::to_owned);
    let all = st
        .db
        .run(move |c| pm_thresholds::list(c, tenant.as_deref()))
        .await?;
    let (pm, lcm) = bases(&req, &st);
    let docs = all
        .iter()
        .filter(|(t, _)| who.sees(t.tenant.as_deref()))
        .map(|(t, at)| (Marker::of(*at, t.id.to_string()), t.to_json(&pm, &lcm)));
    super::super::paged(
        &q,
        docs,
        st.settings.page_size,
        &format!("{pm}/thresholds"),
        &[],
    )
}

/// Threshold `raw`, when `who` sees its instance's tenant.
impl Scoped for Threshold {
    async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<Self, ApiError> {
        let t = crate::http::load(st, raw, "threshold", pm_thresholds::get).await?;
        if !who.sees(t.tenant.as_deref()) {
            return Err(ApiError::NotFound(format!("threshold {raw} not found")));
        }
        Ok(t)
    }
}

pub async fn show(
    req: HttpRequest,
    _: AcceptsJson,
    ByPath(t): ByPath<Threshold>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let (pm, lcm) = bases(&req, &st);
    Ok(HttpResponse::Ok().json(t.to_json(&pm, &lcm)))
}

pub async fn modify(
    ByPath(t): ByPath<Threshold>,
    PatchBody(m): PatchBody<Modifications>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    if m.callback_uri.is_none() && m.authentication.is_none() {
        return Err(ApiError::BadRequest(
            "give callbackUri and/or authentication to modify".into(),
        ));
    }
    let uri = m
        .callback_uri
        .clone()
        .unwrap_or_else(|| t.callback_uri.clone());
    let auth_given = m.authentication.is_some();
    let authentication = checked_auth(&st, &uri, m.authentication).await?;
    let (id, new_uri) = (t.id, m.callback_uri.clone());
    let auth = auth_given.then_some(authentication);
    st.db
        .run(move |c| pm_thresholds::set_callback(c, id, new_uri, auth))
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("threshold {id} not found")))?;
    let mut out = json!({});
    if let Some(u) = m.callback_uri {
        out["callbackUri"] = json!(u);
    }
    Ok(HttpResponse::Ok().json(out))
}

pub async fn delete(
    ByPath(t): ByPath<Threshold>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let id = t.id;
    deliver(&st, id, true, true).await?;
    st.db.run(move |c| pm_thresholds::delete(c, id)).await?;
    tracing::info!(threshold_id = %id, "threshold deleted");
    Ok(HttpResponse::NoContent().finish())
}
