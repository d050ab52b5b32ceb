//! `/vnfpm/v2/pm_jobs`: create and reports (list, read, modify and delete are
//! `resource`'s).

use actix_web::HttpResponse;
use serde::Deserialize;
use serde_json::Value;
use tacker_db::pm_jobs;
use tacker_domain::pm::ObjectType;
use tacker_domain::pm::job::{self, Criteria, PmJob};
use uuid::Uuid;

use super::{addressed, bases, store_delivered};
use crate::auth::Principal;
use crate::extract::{AcceptsJson, ByPath, Call, JsonBody, Scoped};
use crate::http::created;
use crate::routes::lcm::subscriptions::Authentication;
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
    Call { req, who, st }: Call,
    JsonBody(b): JsonBody<CreateRequest>,
) -> Result<HttpResponse, ApiError> {
    tacker_domain::pm::metadata::check(b.metadata.as_ref()).map_err(ApiError::BadRequest)?;
    job::check(
        b.object_type,
        &b.object_instance_ids,
        &b.sub_object_instance_ids,
        &b.criteria,
    )
    .map_err(ApiError::BadRequest)?;
    let (tenant, authentication) = addressed(
        &st,
        &who,
        b.object_type,
        &b.object_instance_ids,
        &b.sub_object_instance_ids,
        &b.callback_uri,
        b.authentication,
    )
    .await?;
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

impl Scoped for PmJob {
    async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<Self, ApiError> {
        super::resource::load(st, raw, who).await
    }
}

/// `GET /pm_jobs/{id}/reports/{reportId}`.
pub async fn report(
    Call { req, st, .. }: Call,
    _: AcceptsJson,
    ByPath(j): ByPath<PmJob>,
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
        .pm_jobs()
        .report(id, rid)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("report {raw} of PM job {id} not found")))?;
    Ok(HttpResponse::Ok().json(r.to_json()))
}
