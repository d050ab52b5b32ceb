//! Operation occurrences: list, show, retry, rollback, fail, cancel.

use std::collections::HashMap;

use actix_web::{HttpResponse, web};
use tacker_db::DbConnection;
use tacker_db::op_occs::{self as ops, Runner, Transition};
use tacker_db::scan::{From, Narrow};
use tacker_domain::lcm::{
    CancelMode, LcmOperation, OP_OCC_ATTRIBUTES, OP_OCC_DEFAULT_EXCLUDED, OpOcc, OperationState,
};
use uuid::Uuid;

use super::{Api, cast};
use crate::auth::Principal;
use crate::extract::{AcceptsJson, ByPath, Call, JsonBody, Listable, Listed, Scoped};
use crate::routes::Doc;
use crate::routes::scan::scanned;
use crate::scope::{sees_instance, vim_areas};
use crate::{ApiError, ServerState};

pub async fn list(
    Call { req, who, st }: Call,
    api: Api,
    listed: Listed<OpOcc>,
) -> Result<HttpResponse, ApiError> {
    let base = api.base(&req, &st);
    let left_out = listed.left_out();
    let listing = listed.listing(&st, &who, format!("{base}/vnf_lcm_op_occs"));
    let areas = vim_areas(&st, &who).await?;
    // Each chunk's occurrences with whether the caller sees them: by tenant, and, for a
    // caller confined to vendors or areas, by their instance (read once per chunk).
    let w = who.clone();
    let fetch = move |c: &mut DbConnection, at: &From, by: &Narrow, limit: i64| {
        let rows = ops::list_from(c, at, by, limit)?;
        let mut instances: HashMap<Uuid, bool> = HashMap::new();
        let mut out = Vec::with_capacity(rows.len());
        for o in rows {
            let mut seen = w.sees(o.tenant.as_deref());
            if seen && w.confined_beyond_tenant() {
                seen = match instances.get(&o.vnf_instance_id) {
                    Some(s) => *s,
                    None => {
                        let s = tacker_db::instances::get(c, o.vnf_instance_id)?
                            .is_some_and(|i| sees_instance(&w, &i, &areas));
                        instances.insert(o.vnf_instance_id, s);
                        s
                    }
                };
            }
            out.push((o, seen));
        }
        Ok(out)
    };
    scanned(
        &st,
        listing,
        fetch,
        |(o, _)| {
            let doc = Doc::rendered(&listed.0, &o.info(&base, &left_out));
            (o.start_time, o.id.to_string(), doc)
        },
        |(_, seen)| *seen,
    )
    .await
}

/// The occurrence at `raw`, if the caller sees it (another tenant's, or one on an
/// instance of a vendor or area the caller does not see, is 404).
impl Scoped for OpOcc {
    async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<Self, ApiError> {
        let op = crate::http::load(st, raw, "VNF LCM operation occurrence", ops::get).await?;
        let mut seen = who.sees(op.tenant.as_deref());
        if seen && who.confined_beyond_tenant() {
            let id = op.vnf_instance_id;
            let areas = vim_areas(st, who).await?;
            seen = st
                .db
                .instances()
                .get(id)
                .await?
                .is_some_and(|i| sees_instance(who, &i, &areas));
        }
        let id = op.id;
        crate::http::if_seen(op, seen, "VNF LCM operation occurrence", id)
    }
}

fn not_failed_temp(op: &OpOcc, what: &str) -> ApiError {
    ApiError::Conflict(format!(
        "operation occurrence {} is {}; {what} needs FAILED_TEMP",
        op.id, op.state
    ))
}

/// The occurrence at `raw`, which `what` (retry, rollback, fail) needs FAILED_TEMP.
async fn load_failed_temp(
    st: &ServerState,
    raw: &str,
    who: &Principal,
    what: &str,
) -> Result<OpOcc, ApiError> {
    let op = OpOcc::load(st, raw, who).await?;
    if op.state != OperationState::FailedTemp {
        return Err(not_failed_temp(&op, what));
    }
    Ok(op)
}

/// Moves a FAILED_TEMP occurrence to `to` (`what`: retry, rollback or fail), its runner
/// cleared: a retry clears its error, a fail releases the instance; 409 when it is not
/// FAILED_TEMP (any more).
async fn from_failed_temp(
    st: &ServerState,
    op: &OpOcc,
    to: OperationState,
    what: &str,
) -> Result<OpOcc, ApiError> {
    let t = Transition {
        from: vec![OperationState::FailedTemp],
        to: Some(to),
        error: (to == OperationState::Processing).then_some(None),
        runner: Runner::Clear,
        release: to == OperationState::Failed,
        ..Default::default()
    };
    let id = op.id;
    st.db
        .op_occs()
        .transition(id, &t)
        .await?
        .ok_or_else(|| not_failed_temp(op, what))
}

/// Hands an occurrence moved out of FAILED_TEMP (`what`) to a conductor (202).
async fn restarted(st: &ServerState, op: &OpOcc, what: &str) -> Result<HttpResponse, ApiError> {
    cast(st, op).await?;
    tracing::info!(op_occ_id = %op.id, "{what}");
    Ok(HttpResponse::Accepted().finish())
}

pub async fn retry(
    Call { who, st, .. }: Call,
    _: AcceptsJson,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let op = load_failed_temp(&st, &path, &who, "retry").await?;
    let op = from_failed_temp(&st, &op, OperationState::Processing, "retry").await?;
    restarted(&st, &op, "retry").await
}

pub async fn rollback(
    Call { who, st, .. }: Call,
    _: AcceptsJson,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let op = load_failed_temp(&st, &path, &who, "rollback").await?;
    let supported = match op.operation {
        LcmOperation::Instantiate
        | LcmOperation::ChangeExtConn
        | LcmOperation::ModifyInfo
        | LcmOperation::ChangeVnfpkg
        | LcmOperation::ChangeFlavour => true,
        LcmOperation::Scale => op.request.is_scale_out(),
        _ => false,
    };
    if !supported {
        return Err(ApiError::Conflict(format!(
            "rollback is supported for INSTANTIATE, SCALE_OUT, CHANGE_EXT_CONN, MODIFY_INFO, \
             CHANGE_VNFPKG and CHANGE_FLAVOUR, not {}",
            if op.operation == LcmOperation::Scale {
                "SCALE_IN".to_owned()
            } else {
                op.operation.to_string()
            }
        )));
    }
    let op = from_failed_temp(&st, &op, OperationState::RollingBack, "rollback").await?;
    restarted(&st, &op, "rollback").await
}

pub async fn fail(
    Call { req, who, st }: Call,
    api: Api,
    _: AcceptsJson,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let op = load_failed_temp(&st, &path, &who, "fail").await?;
    let op = from_failed_temp(&st, &op, OperationState::Failed, "fail").await?;
    tracing::info!(op_occ_id = %op.id, "failed for good");
    Ok(HttpResponse::Ok().json(op.to_json(&api.base(&req, &st))))
}

/// `CancelMode` request body.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CancelRequest {
    cancel_mode: CancelMode,
}

/// Asks for a STARTING, PROCESSING or ROLLING_BACK occurrence to be cancelled (202);
/// its runner carries it out (see the conductor's `lcm/cancel.rs`). 409 in any other
/// state, or when a cancellation is pending already.
pub async fn cancel(
    Call { st, .. }: Call,
    _: AcceptsJson,
    ByPath(op): ByPath<OpOcc>,
    JsonBody(body): JsonBody<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    // Read after the occurrence is found: another tenant's is 404 whatever the body.
    let b: CancelRequest = serde_json::from_value(body).map_err(|e| {
        ApiError::BadRequest(format!(
            "invalid request body ({{\"cancelMode\": \"GRACEFUL\" | \"FORCEFUL\"}}): {e}"
        ))
    })?;
    let (id, mode) = (op.id, b.cancel_mode);
    let Some(op) = st.db.op_occs().request_cancel(id, mode).await? else {
        let now = st.db.op_occs().get(id).await?.unwrap_or(op);
        return Err(ApiError::Conflict(match now.cancel_pending {
            Some(m) => format!("operation occurrence {id} is being cancelled already ({m})"),
            None => format!(
                "operation occurrence {id} is {}; only STARTING, PROCESSING or ROLLING_BACK can be cancelled",
                now.state
            ),
        }));
    };
    tracing::info!(op_occ_id = %op.id, mode = %mode, state = %op.state, "cancellation asked for");
    Ok(HttpResponse::Accepted().finish())
}

impl Listable for OpOcc {
    const ATTRIBUTES: &'static [&'static str] = OP_OCC_ATTRIBUTES;
    const DEFAULT_EXCLUDED: &'static [&'static str] = OP_OCC_DEFAULT_EXCLUDED;
}
