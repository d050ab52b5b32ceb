//! `/vnflcm/v2`: VNF lifecycle management (SOL003 v3.3.1).

pub(super) mod instances;
pub(super) mod op_occs;
pub(super) mod subscriptions;
pub(super) mod tasks;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError};
use serde_json::json;
use tacker_db::op_occs as ops;
use tacker_domain::lcm::{OpOcc, OperationParams, OperationState};
use tacker_rpc::proto::RunLcmOp;
use uuid::Uuid;

use crate::{ApiError, ServerState};

/// The API version this server implements.
pub const API_VERSION: &str = "2.0.0";

const VERSION: HeaderName = HeaderName::from_static("version");

/// Requires a supported `Version` header (400 missing, 406 unsupported) on every
/// request but the version query, and answers with `Version`.
pub(super) async fn version(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    if !req.path().ends_with("/api_versions") {
        let problem = match req
            .headers()
            .get(&VERSION)
            .map(|v| v.to_str().unwrap_or_default().trim().to_owned())
        {
            None => Some(ApiError::BadRequest(
                "the Version header is required (e.g. Version: 2.0.0)".into(),
            )),
            Some(v) if v == API_VERSION || v == "2.0" || v == "2" => None,
            Some(v) => Some(ApiError::NotAcceptable(format!(
                "API version {v:?} is not supported; use {API_VERSION}"
            ))),
        };
        if let Some(p) = problem {
            let mut resp = p.error_response();
            resp.headers_mut()
                .insert(VERSION, HeaderValue::from_static(API_VERSION));
            return Ok(req.into_response(resp));
        }
    }
    let mut res = next.call(req).await?.map_into_boxed_body();
    res.headers_mut()
        .insert(VERSION, HeaderValue::from_static(API_VERSION));
    Ok(res)
}

pub(super) async fn api_versions() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((VERSION, API_VERSION))
        .json(json!({"uriPrefix": "/vnflcm/v2", "apiVersions": [{"version": API_VERSION, "isDeprecated": false}]}))
}

/// Starts an operation occurrence on an instance: STARTING (409 when another operation
/// holds the instance), cast to a conductor; 202 with the occurrence's `Location`.
pub async fn start(
    st: &ServerState,
    api_base: &str,
    instance: Uuid,
    params: OperationParams,
    body: serde_json::Value,
) -> Result<HttpResponse, ApiError> {
    let op = OpOcc::new(
        Uuid::new_v4(),
        instance,
        OperationState::Starting,
        params,
        body,
    );
    let operation = op.operation;
    let stored = op.clone();
    let created = st.db.run(move |c| ops::create(c, &stored)).await?;
    if created == ops::CreateOutcome::Busy {
        return Err(ApiError::Conflict(format!(
            "VNF instance {instance} has an operation in progress or FAILED_TEMP; finish it first"
        )));
    }
    if let Err(e) = cast(st, op.id).await {
        // Nobody will run it: end it, so the instance is free again.
        let t = ops::Transition {
            from: vec![OperationState::Starting],
            to: Some(OperationState::RolledBack),
            error: Some(Some(tacker_domain::ProblemDetails::new(
                503,
                format!("no conductor could be reached: {e}"),
            ))),
            release: true,
            ..Default::default()
        };
        let id = op.id;
        let _ = st.db.run(move |c| ops::transition(c, id, &t)).await;
        return Err(e);
    }
    tracing::info!(vnf_instance_id = %instance, op_occ_id = %op.id, %operation, "operation started");
    Ok(HttpResponse::Accepted()
        .insert_header(("Location", format!("{api_base}/vnf_lcm_op_occs/{}", op.id)))
        .finish())
}

/// Casts the occurrence to a conductor.
pub async fn cast(st: &ServerState, op: Uuid) -> Result<(), ApiError> {
    let id = op.to_string();
    st.bus
        .cast(
            &RunLcmOp {
                op_occ_id: id.clone(),
            },
            &[("op_occ_id", &id)],
        )
        .await?;
    Ok(())
}

/// `<base>/vnflcm/v2` for links in answers.
pub fn api_base(req: &actix_web::HttpRequest, st: &ServerState) -> String {
    format!("{}/vnflcm/v2", crate::http::base_url(req, st))
}
