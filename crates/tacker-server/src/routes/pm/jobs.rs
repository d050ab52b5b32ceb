//! `/vnfpm/v2/pm_jobs`: create, list, read, modify, delete; reports.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};
use tacker_db::pm_jobs;
use tacker_domain::pm::ObjectType;
use tacker_domain::pm::job::{self, Criteria, PM_JOB_ATTRIBUTES, PmJob};
use tacker_domain::sol013::{Marker, Selector};
use uuid::Uuid;

use super::{bases, check_vnfcs, deliver, objects, store_delivered};
use crate::auth::Principal;
use crate::extract::{AcceptsJson, ByPath, JsonBody, PatchBody, Scoped};
use crate::http::created;
use crate::query::ListQuery;
use crate::routes::lcm::subscriptions::{Authentication, checked_auth};
use crate::{ApiError, ServerState};

/// `CreatePmJobRequest`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateRequest {
    object_type: ObjectType,
    object_instance_ids: Vec<Uuid>,
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
    job::check(
        b.object_type,
        &b.object_instance_ids,
        &b.sub_object_instance_ids,
        &b.criteria,
    )
    .map_err(ApiError::BadRequest)?;
    let (instances, tenant) = objects(&st, &who, &b.object_instance_ids).await?;
    if b.object_type == ObjectType::Vnfc {
        check_vnfcs(&instances[0], &b.sub_object_instance_ids)?;
    }
    let authentication = checked_auth(&st, &b.callback_uri, b.authentication).await?;
    let j = PmJob {
        id: Uuid::new_v4(),
        object_type: b.object_type,
        object_instance_ids: b.object_instance_ids,
        sub_object_instance_ids: b.sub_object_instance_ids,
        criteria: b.criteria,
        callback_uri: b.callback_uri,
        authentication,
        tenant,
        reports: Vec::new(),
    };
    let (stored, id) = (j.clone(), j.id);
    store_delivered(
        &st,
        &who,
        "PM jobs",
        id,
        false,
        move |c, quota| pm_jobs::insert(c, &stored, quota),
        pm_jobs::delete,
    )
    .await?;
    tracing::info!(pm_job_id = %id, "PM job created");
    let (pm, lcm) = bases(&req, &st);
    Ok(created(j.to_json(&pm, &lcm)))
}

pub async fn list(
    req: HttpRequest,
    who: Principal,
    _: AcceptsJson,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let mut q = ListQuery::parse(
        req.query_string(),
        PM_JOB_ATTRIBUTES,
        st.settings.max_filter_terms,
    )?;
    q.selector = Selector::All;
    let tenant = who.scope().map(str::to_owned);
    let all = st
        .db
        .run(move |c| pm_jobs::list(c, tenant.as_deref()))
        .await?;
    let (pm, lcm) = bases(&req, &st);
    let docs = all
        .iter()
        .filter(|(j, _)| who.sees(j.tenant.as_deref()))
        .map(|(j, t)| (Marker::of(*t, j.id.to_string()), j.to_json(&pm, &lcm)));
    super::super::paged(
        &q,
        docs,
        st.settings.page_size,
        &format!("{pm}/pm_jobs"),
        &[],
    )
}

/// Job `raw`, when `who` sees its instances' tenant.
impl Scoped for PmJob {
    async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<Self, ApiError> {
        let j = crate::http::load(st, raw, "PM job", pm_jobs::get).await?;
        if !who.sees(j.tenant.as_deref()) {
            return Err(ApiError::NotFound(format!("PM job {raw} not found")));
        }
        Ok(j)
    }
}

pub async fn show(
    req: HttpRequest,
    _: AcceptsJson,
    ByPath(j): ByPath<PmJob>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let (pm, lcm) = bases(&req, &st);
    Ok(HttpResponse::Ok().json(j.to_json(&pm, &lcm)))
}

/// `PmJobModifications` / `ThresholdModifications`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Modifications {
    #[serde(default)]
    pub(super) callback_uri: Option<String>,
    #[serde(default)]
    pub(super) authentication: Option<Authentication>,
}

pub async fn modify(
    ByPath(j): ByPath<PmJob>,
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
        .unwrap_or_else(|| j.callback_uri.clone());
    let auth_given = m.authentication.is_some();
    let authentication = checked_auth(&st, &uri, m.authentication).await?;
    let (id, new_uri) = (j.id, m.callback_uri.clone());
    let auth = auth_given.then_some(authentication);
    st.db
        .run(move |c| pm_jobs::set_callback(c, id, new_uri, auth))
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("PM job {id} not found")))?;
    let mut out = json!({});
    if let Some(u) = m.callback_uri {
        out["callbackUri"] = json!(u);
    }
    Ok(HttpResponse::Ok().json(out))
}

pub async fn delete(
    ByPath(j): ByPath<PmJob>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let id = j.id;
    deliver(&st, id, false, true).await?;
    st.db.run(move |c| pm_jobs::delete(c, id)).await?;
    tracing::info!(pm_job_id = %id, "PM job deleted");
    Ok(HttpResponse::NoContent().finish())
}

/// `GET /pm_jobs/{id}/reports/{reportId}`.
pub async fn report(
    req: HttpRequest,
    _: AcceptsJson,
    ByPath(j): ByPath<PmJob>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let raw = req
        .match_info()
        .get("reportId")
        .unwrap_or_default()
        .to_owned();
    let rid = crate::http::parse_id(&raw, "report")?;
    let id = j.id;
    let r = st
        .db
        .run(move |c| pm_jobs::report(c, id, rid))
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("report {raw} of PM job {id} not found")))?;
    Ok(HttpResponse::Ok().json(r.to_json()))
}
