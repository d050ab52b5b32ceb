//! Operation occurrences: list, show, retry, rollback, fail.

use actix_web::{HttpRequest, HttpResponse, web};
use tacker_db::op_occs::{self as ops, Runner, Transition};
use tacker_domain::lcm::{
    LcmOperation, OP_OCC_ATTRIBUTES, OP_OCC_DEFAULT_EXCLUDED, OpOcc, OperationState,
};
use tacker_domain::sol013::{Marker, paginate};

use super::{api_base, cast};
use crate::http::{negotiate, parse_id};
use crate::query::ListQuery;
use crate::{ApiError, ServerState};

const JSON: &str = "application/json";

pub async fn list(req: HttpRequest, st: web::Data<ServerState>) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    let q = ListQuery::parse(req.query_string(), OP_OCC_ATTRIBUTES)?;
    let all = st.db.run(ops::list).await?;
    let base = api_base(&req, &st);
    let docs = all.iter().filter_map(|o| {
        let doc = o.to_json(&base);
        q.filter
            .as_ref()
            .is_none_or(|f| f.matches(&doc))
            .then(|| (Marker::of(o.start_time, o.id.to_string()), doc))
    });
    let page = paginate(
        docs,
        |(m, _)| m.clone(),
        q.marker.as_ref(),
        st.settings.page_size,
    );
    crate::routes::paged(
        &q,
        page,
        &format!("{base}/vnf_lcm_op_occs"),
        OP_OCC_DEFAULT_EXCLUDED,
    )
}

async fn load(st: &ServerState, raw: &str) -> Result<OpOcc, ApiError> {
    let id = parse_id(raw, "VNF LCM operation occurrence")?;
    st.db
        .run(move |c| ops::get(c, id))
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("VNF LCM operation occurrence {id} not found")))
}

pub async fn show(
    req: HttpRequest,
    path: web::Path<String>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    let op = load(&st, &path).await?;
    Ok(HttpResponse::Ok().json(op.to_json(&api_base(&req, &st))))
}

fn not_failed_temp(op: &OpOcc, what: &str) -> ApiError {
    ApiError::Conflict(format!(
        "operation occurrence {} is {}; {what} needs FAILED_TEMP",
        op.id, op.state
    ))
}

/// Moves a FAILED_TEMP occurrence to `to`; 409 when it is not FAILED_TEMP (any more).
async fn from_failed_temp(
    st: &ServerState,
    op: &OpOcc,
    t: Transition,
    what: &str,
) -> Result<OpOcc, ApiError> {
    let id = op.id;
    let base = st.settings.lcm_base.clone();
    st.db
        .run(move |c| ops::transition(c, id, &t, &base))
        .await?
        .ok_or_else(|| not_failed_temp(op, what))
}

pub async fn retry(
    req: HttpRequest,
    path: web::Path<String>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    let op = load(&st, &path).await?;
    if op.state != OperationState::FailedTemp {
        return Err(not_failed_temp(&op, "retry"));
    }
    let t = Transition {
        from: vec![OperationState::FailedTemp],
        to: Some(OperationState::Processing),
        error: Some(None),
        runner: Runner::Clear,
        ..Default::default()
    };
    let op = from_failed_temp(&st, &op, t, "retry").await?;
    cast(&st, op.id).await?;
    tracing::info!(op_occ_id = %op.id, "retry");
    Ok(HttpResponse::Accepted().finish())
}

pub async fn rollback(
    req: HttpRequest,
    path: web::Path<String>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    let op = load(&st, &path).await?;
    if op.state != OperationState::FailedTemp {
        return Err(not_failed_temp(&op, "rollback"));
    }
    let scale_out = op.operation_params.get("type").and_then(|t| t.as_str()) == Some("SCALE_OUT");
    let supported = match op.operation {
        LcmOperation::Instantiate | LcmOperation::ChangeExtConn | LcmOperation::ModifyInfo => true,
        LcmOperation::Scale => scale_out,
        _ => false,
    };
    if !supported {
        return Err(ApiError::Conflict(format!(
            "rollback is supported for INSTANTIATE, SCALE_OUT, CHANGE_EXT_CONN and MODIFY_INFO, not {}",
            if op.operation == LcmOperation::Scale {
                "SCALE_IN".to_owned()
            } else {
                op.operation.to_string()
            }
        )));
    }
    let t = Transition {
        from: vec![OperationState::FailedTemp],
        to: Some(OperationState::RollingBack),
        runner: Runner::Clear,
        ..Default::default()
    };
    let op = from_failed_temp(&st, &op, t, "rollback").await?;
    cast(&st, op.id).await?;
    tracing::info!(op_occ_id = %op.id, "rollback");
    Ok(HttpResponse::Accepted().finish())
}

pub async fn fail(
    req: HttpRequest,
    path: web::Path<String>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    let op = load(&st, &path).await?;
    if op.state != OperationState::FailedTemp {
        return Err(not_failed_temp(&op, "fail"));
    }
    let t = Transition {
        from: vec![OperationState::FailedTemp],
        to: Some(OperationState::Failed),
        runner: Runner::Clear,
        release: true,
        ..Default::default()
    };
    let op = from_failed_temp(&st, &op, t, "fail").await?;
    tracing::info!(op_occ_id = %op.id, "failed for good");
    Ok(HttpResponse::Ok().json(op.to_json(&api_base(&req, &st))))
}
