//! `sync` (our extension): reconcile the stored VNFCs with the VIM now.

use std::time::Duration;

use actix_web::HttpResponse;
use serde_json::json;
use tacker_domain::lcm::{InstantiationState, VnfInstance};
use tacker_rpc::Target;
use tacker_rpc::proto::{SyncInstance, SyncInstanceDone};

use super::need_state;
use crate::ApiError;
use crate::extract::{AcceptsJson, ByPath, Call};
use crate::routes::lcm::Api;
use crate::routes::lcm::instances::load;

/// `POST .../sync` (our extension): reconcile the stored VNFC lists with the VIM now.
pub async fn sync(
    Call { req, who, st }: Call,
    api: Api,
    _: AcceptsJson,
    ByPath(i): ByPath<VnfInstance>,
) -> Result<HttpResponse, ApiError> {
    need_state(&i, InstantiationState::Instantiated, "sync")?;
    if i.current_op.is_some() {
        return Err(ApiError::Conflict(format!(
            "VNF instance {} has an operation in progress or FAILED_TEMP",
            i.id
        )));
    }
    let msg = SyncInstance {
        vnf_instance_id: i.id.to_string(),
    };
    let done: SyncInstanceDone = st
        .bus
        .call(
            Target::Any,
            &msg,
            &[("vnf_instance_id", &i.id.to_string())],
            Duration::from_secs(60),
        )
        .await
        .map_err(|e| match e {
            tacker_rpc::Error::Remote { message, .. } => ApiError::Unprocessable(message),
            other => ApiError::Unavailable(other.to_string()),
        })?;
    let after = load(&st, &i.id.to_string(), &who).await?;
    Ok(HttpResponse::Ok()
        .json(json!({"changed": done.changed, "vnfInstance": api.instance_json(&after, &api.base(&req, &st))})))
}
