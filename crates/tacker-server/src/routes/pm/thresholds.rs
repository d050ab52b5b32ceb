//! `/vnfpm/v2/thresholds`: create (list, read, modify and delete are `resource`'s).

use actix_web::HttpResponse;
use serde::Deserialize;
use serde_json::Value;
use tacker_db::pm_thresholds;
use tacker_domain::pm::ObjectType;
use tacker_domain::pm::threshold::{self, Criteria, Threshold};
use uuid::Uuid;

use super::{addressed, bases, store_delivered};
use crate::auth::Principal;
use crate::extract::{Call, JsonBody, Scoped};
use crate::http::created;
use crate::routes::lcm::subscriptions::Authentication;
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
    Call { req, who, st }: Call,
    JsonBody(b): JsonBody<CreateRequest>,
) -> Result<HttpResponse, ApiError> {
    tacker_domain::pm::metadata::check(b.metadata.as_ref()).map_err(ApiError::BadRequest)?;
    threshold::check(b.object_type, b.object_instance_id, &b.criteria)
        .map_err(ApiError::BadRequest)?;
    let (tenant, authentication) = addressed(
        &st,
        &who,
        b.object_type,
        &[b.object_instance_id],
        &b.sub_object_instance_ids,
        &b.callback_uri,
        b.authentication,
    )
    .await?;
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

impl Scoped for Threshold {
    async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<Self, ApiError> {
        super::resource::load(st, raw, who).await
    }
}
