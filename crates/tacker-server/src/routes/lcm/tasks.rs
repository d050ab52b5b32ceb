//! Task resources: instantiate, terminate, scale, heal, change_ext_conn (each starts an
//! operation occurrence), and sync (reconcile now).

use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value, json};
use tacker_db::packages;
use tacker_domain::lcm::{InstantiationState, LcmOperation, VnfInstance, plan};
use tacker_domain::vnfd::{Flavour, PackageModel};
use tacker_rpc::Target;
use tacker_rpc::proto::{SyncInstance, SyncInstanceDone};

use super::instances::load;
use super::{api_base, start};
use crate::http::{json_body, negotiate, require_content_type};
use crate::{ApiError, ServerState};

const JSON: &str = "application/json";

async fn body(
    req: &HttpRequest,
    payload: web::Payload,
    st: &ServerState,
) -> Result<Value, ApiError> {
    negotiate(req, &[JSON])?;
    require_content_type(req, &[JSON])?;
    let v: Value = json_body(payload, st.settings.max_json_body).await?;
    if !v.is_object() {
        return Err(ApiError::BadRequest(
            "the request body must be a JSON object".into(),
        ));
    }
    Ok(v)
}

fn bad(m: impl Into<String>) -> ApiError {
    ApiError::BadRequest(m.into())
}

fn need_state(i: &VnfInstance, s: InstantiationState, what: &str) -> Result<(), ApiError> {
    if i.instantiation_state == s {
        Ok(())
    } else {
        Err(ApiError::Conflict(format!(
            "VNF instance {} is {}; {what} needs it {s}",
            i.id, i.instantiation_state
        )))
    }
}

async fn model(st: &ServerState, i: &VnfInstance) -> Result<PackageModel, ApiError> {
    let pkg = i.vnf_pkg_id;
    st.db
        .run(move |c| packages::model(c, pkg))
        .await?
        .ok_or_else(|| {
            ApiError::Unprocessable(format!(
                "the package {pkg} of this instance has no VNFD any more"
            ))
        })
}

/// Checks each `vimConnectionInfo` entry names its `vimType`.
pub fn check_vims(v: &Map<String, Value>) -> Result<(), ApiError> {
    for (id, vim) in v {
        if vim
            .get("vimType")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            return Err(bad(format!("vimConnectionInfo.{id}.vimType is required")));
        }
    }
    Ok(())
}

fn flavour<'a>(m: &'a PackageModel, id: &str) -> Result<&'a Flavour, ApiError> {
    m.vnfd.flavour(id).ok_or_else(|| {
        let known: Vec<&str> = m.vnfd.flavours.iter().map(|f| f.id.as_str()).collect();
        bad(format!(
            "flavourId {id:?} is not in the VNFD (it has {known:?})"
        ))
    })
}

/// The CNF parameters: `lcm-kubernetes-def-files` are artifacts of the package and
/// `namespace` is a name.
fn check_cnf_params(m: &PackageModel, b: &Value) -> Result<(), ApiError> {
    const FILES: &str = "additionalParams.lcm-kubernetes-def-files";
    if let Some(files) = b.pointer("/additionalParams/lcm-kubernetes-def-files") {
        let files = files
            .as_array()
            .filter(|a| !a.is_empty())
            .ok_or_else(|| bad(format!("{FILES} must be a non-empty array of paths")))?;
        for f in files {
            let f = f
                .as_str()
                .ok_or_else(|| bad(format!("{FILES} must hold paths")))?;
            if !m.artifacts.iter().any(|a| a.path == f) {
                return Err(bad(format!(
                    "{FILES}: {f:?} is not an artifact of the VNF package"
                )));
            }
        }
    }
    if let Some(ns) = b.pointer("/additionalParams/namespace") {
        let ok = ns.as_str().is_some_and(|n| {
            !n.is_empty()
                && n.len() <= 63
                && n.bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
                && !n.starts_with('-')
                && !n.ends_with('-')
        });
        if !ok {
            return Err(bad(
                "additionalParams.namespace must be a Kubernetes namespace name (RFC 1123 label)",
            ));
        }
    }
    Ok(())
}

pub async fn instantiate(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let b = body(&req, payload, &st).await?;
    let i = load(&st, &path).await?;
    need_state(&i, InstantiationState::NotInstantiated, "instantiate")?;
    let fid = b
        .get("flavourId")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("flavourId is required"))?;
    let m = model(&st, &i).await?;
    let f = flavour(&m, fid)?;
    if let Some(level) = b.get("instantiationLevelId") {
        let level = level
            .as_str()
            .ok_or_else(|| bad("instantiationLevelId must be a string"))?;
        if !f.instantiation_levels.iter().any(|l| l.id == level) {
            return Err(bad(format!(
                "instantiationLevelId {level:?} is not in flavour {fid:?}"
            )));
        }
    }
    if let Some(v) = b.get("vimConnectionInfo") {
        check_vims(
            v.as_object()
                .ok_or_else(|| bad("vimConnectionInfo must be an object"))?,
        )?;
    }
    for k in [
        "additionalParams",
        "extensions",
        "vnfConfigurableProperties",
    ] {
        if b.get(k).is_some_and(|v| !v.is_object()) {
            return Err(bad(format!("{k} must be an object")));
        }
    }
    check_cnf_params(&m, &b)?;
    start(
        &st,
        &api_base(&req, &st),
        i.id,
        LcmOperation::Instantiate,
        b,
    )
    .await
}

pub async fn terminate(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let b = body(&req, payload, &st).await?;
    let i = load(&st, &path).await?;
    need_state(&i, InstantiationState::Instantiated, "terminate")?;
    match b.get("terminationType").and_then(Value::as_str) {
        Some("FORCEFUL" | "GRACEFUL") => {}
        Some(other) => {
            return Err(bad(format!(
                "terminationType {other:?} must be FORCEFUL or GRACEFUL"
            )));
        }
        None => return Err(bad("terminationType is required")),
    }
    if b.get("gracefulTerminationTimeout")
        .is_some_and(|v| !v.is_u64())
    {
        return Err(bad(
            "gracefulTerminationTimeout must be a number of seconds",
        ));
    }
    start(&st, &api_base(&req, &st), i.id, LcmOperation::Terminate, b).await
}

pub async fn scale(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let b = body(&req, payload, &st).await?;
    let i = load(&st, &path).await?;
    need_state(&i, InstantiationState::Instantiated, "scale")?;
    match b.get("type").and_then(Value::as_str) {
        Some("SCALE_OUT" | "SCALE_IN") => {}
        Some(other) => return Err(bad(format!("type {other:?} must be SCALE_OUT or SCALE_IN"))),
        None => return Err(bad("type is required")),
    }
    let aspect = b
        .get("aspectId")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("aspectId is required"))?;
    if let Some(n) = b.get("numberOfSteps")
        && n.as_u64().is_none_or(|n| n == 0)
    {
        return Err(bad("numberOfSteps must be a positive integer"));
    }
    let m = model(&st, &i).await?;
    let fid = i
        .instantiated_vnf_info
        .as_ref()
        .map(|x| x.flavour_id.clone())
        .unwrap_or_default();
    let f = flavour(&m, &fid)?;
    if !f.scaling_aspects.iter().any(|a| a.id == aspect) {
        return Err(bad(format!(
            "aspectId {aspect:?} is not a scaling aspect of flavour {fid:?}"
        )));
    }
    // Limits the stored state already shows are refused now (drivers check again).
    if let Some(info) = &i.instantiated_vnf_info {
        plan::checked_scale_step(f, info, &b).map_err(bad)?;
    }
    start(&st, &api_base(&req, &st), i.id, LcmOperation::Scale, b).await
}

pub async fn heal(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let b = body(&req, payload, &st).await?;
    let i = load(&st, &path).await?;
    need_state(&i, InstantiationState::Instantiated, "heal")?;
    if let Some(ids) = b.get("vnfcInstanceId") {
        let ids = ids
            .as_array()
            .ok_or_else(|| bad("vnfcInstanceId must be an array"))?;
        for id in ids {
            let id = id
                .as_str()
                .ok_or_else(|| bad("vnfcInstanceId must hold strings"))?;
            if i.vnfc(id).is_none() {
                return Err(bad(format!(
                    "vnfcInstanceId {id:?} is not a VNFC of instance {}",
                    i.id
                )));
            }
        }
    }
    if let Some(all) = b.pointer("/additionalParams/all")
        && !all.is_boolean()
    {
        return Err(bad("additionalParams.all must be a boolean"));
    }
    if b.get("cause").is_some_and(|c| !c.is_string()) {
        return Err(bad("cause must be a string"));
    }
    start(&st, &api_base(&req, &st), i.id, LcmOperation::Heal, b).await
}

pub async fn change_ext_conn(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let b = body(&req, payload, &st).await?;
    let i = load(&st, &path).await?;
    need_state(&i, InstantiationState::Instantiated, "change_ext_conn")?;
    if !b.get("extVirtualLinks").is_some_and(Value::is_array) {
        return Err(bad("extVirtualLinks (an array) is required"));
    }
    if let Some(v) = b.get("vimConnectionInfo") {
        check_vims(
            v.as_object()
                .ok_or_else(|| bad("vimConnectionInfo must be an object"))?,
        )?;
    }
    start(
        &st,
        &api_base(&req, &st),
        i.id,
        LcmOperation::ChangeExtConn,
        b,
    )
    .await
}

/// `POST .../sync` (our extension): reconcile the stored VNFC lists with the VIM now.
pub async fn sync(
    req: HttpRequest,
    path: web::Path<String>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    negotiate(&req, &[JSON])?;
    let i = load(&st, &path).await?;
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
    let after = load(&st, &path).await?;
    Ok(HttpResponse::Ok()
        .json(json!({"changed": done.changed, "vnfInstance": after.to_json(&api_base(&req, &st))})))
}
