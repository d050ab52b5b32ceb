//! Task resources: instantiate, terminate, scale, heal, change_ext_conn (each starts an
//! operation occurrence), and sync (reconcile now). Bodies are read into the typed
//! requests of `tacker_domain::lcm::request` once, here.

use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};
use tacker_db::packages;
use tacker_domain::lcm::request::{
    ChangeExtConnRequest, ChangeVnfpkgRequest, HealRequest, InstantiateRequest, ScaleRequest,
    TerminateRequest, flavour,
};
use tacker_domain::lcm::{InstantiationState, OperationParams, VnfInstance, plan};
use tacker_domain::vnfd::PackageModel;
use tacker_rpc::Target;
use tacker_rpc::proto::{SyncInstance, SyncInstanceDone};

use super::instances::load;
use super::{Api, check_vims, start};
use crate::auth::Principal;
use crate::extract::{AcceptsJson, JsonBody};
use crate::{ApiError, ServerState};

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

/// The stored `additionalParams` of the instance's instantiate request (opened).
async fn instantiate_params(
    st: &ServerState,
    i: &VnfInstance,
) -> Result<serde_json::Map<String, Value>, ApiError> {
    let id = i.id;
    let Some(sealed) = st
        .db
        .run(move |c| tacker_db::instances::instantiate_params(c, id))
        .await?
    else {
        return Ok(serde_json::Map::new());
    };
    let plain = st.keys.open(&sealed)?;
    serde_json::from_str(&plain).map_err(|e| {
        ApiError::Internal(format!(
            "the stored parameters of instance {id} are not JSON: {e}"
        ))
    })
}

/// Refuses a request whose hooks have no management driver, or whose drivers'
/// parameters are missing or wrong (422, naming the parameter).
async fn check_hooks(
    st: &ServerState,
    i: &VnfInstance,
    m: &PackageModel,
    flavour_id: &str,
    request: &OperationParams,
) -> Result<(), ApiError> {
    let Some(f) = m.vnfd.flavour(flavour_id) else {
        return Ok(());
    };
    let stored;
    let params = match request {
        OperationParams::Instantiate(r) => &r.additional_params,
        _ if st.settings.mgmt.needs_stored_params(f, request)? => {
            stored = instantiate_params(st, i).await?;
            &stored
        }
        _ => {
            stored = serde_json::Map::new();
            &stored
        }
    };
    st.settings.mgmt.check_request(m, f, request, params)?;
    Ok(())
}

fn flavour_of(i: &VnfInstance) -> String {
    i.instantiated_vnf_info
        .as_ref()
        .map(|x| x.flavour_id.clone())
        .unwrap_or_default()
}

/// Starts `params` (received as `body`) on the instance, once its hooks are checked
/// (`loaded`: the package model, when the handler has it already).
async fn run(
    req: &HttpRequest,
    api: Api,
    st: &ServerState,
    instance: &VnfInstance,
    loaded: Option<PackageModel>,
    params: OperationParams,
    body: Value,
) -> Result<HttpResponse, ApiError> {
    let m = match loaded {
        Some(m) => m,
        None => model(st, instance).await?,
    };
    let fid = match &params {
        OperationParams::Instantiate(r) => r.flavour_id.clone(),
        _ => flavour_of(instance),
    };
    check_hooks(st, instance, &m, &fid, &params).await?;
    let declared = &m.vnfd.secret_params;
    start(st, &api.base(req, st), instance.id, params, body, declared).await
}

/// A caller confined to a tenant deploys CNFs into the namespace of its tenant's name
/// only (Tacker's enhanced policy: the namespace is the tenant).
fn check_namespace(who: &Principal, r: &InstantiateRequest) -> Result<(), ApiError> {
    let Some(tenant) = who.scope() else {
        return Ok(());
    };
    let p = &r.additional_params;
    if !p.contains_key("lcm-kubernetes-def-files") && !p.contains_key("helm_chart_path") {
        return Ok(());
    }
    match p.get("namespace").and_then(Value::as_str) {
        Some(ns) if ns == tenant => Ok(()),
        other => Err(ApiError::Forbidden(format!(
            "a caller of tenant {tenant} deploys CNFs into namespace {tenant} only \
             (additionalParams.namespace is {})",
            other.map_or("not given".to_owned(), |n| format!("{n:?}"))
        ))),
    }
}

pub async fn instantiate(
    req: HttpRequest,
    api: Api,
    who: Principal,
    path: web::Path<String>,
    JsonBody(b): JsonBody<Value>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let i = load(&st, &path, &who).await?;
    need_state(&i, InstantiationState::NotInstantiated, "instantiate")?;
    let r = InstantiateRequest::parse(&api.v2_body(b.clone(), &i)?)?;
    check_namespace(&who, &r)?;
    check_vims(
        &st,
        &who,
        i.tenant.as_deref(),
        r.vim_connection_info.as_ref(),
    )
    .await?;
    let m = model(&st, &i).await?;
    r.check(&m)?;
    run(
        &req,
        api,
        &st,
        &i,
        Some(m),
        OperationParams::Instantiate(r),
        b,
    )
    .await
}

pub async fn terminate(
    req: HttpRequest,
    api: Api,
    who: Principal,
    path: web::Path<String>,
    JsonBody(b): JsonBody<Value>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let i = load(&st, &path, &who).await?;
    need_state(&i, InstantiationState::Instantiated, "terminate")?;
    let r = TerminateRequest::parse(&api.v2_body(b.clone(), &i)?)?;
    run(&req, api, &st, &i, None, OperationParams::Terminate(r), b).await
}

pub async fn scale(
    req: HttpRequest,
    api: Api,
    who: Principal,
    path: web::Path<String>,
    JsonBody(b): JsonBody<Value>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let i = load(&st, &path, &who).await?;
    need_state(&i, InstantiationState::Instantiated, "scale")?;
    let r = ScaleRequest::parse(&api.v2_body(b.clone(), &i)?)?;
    let m = model(&st, &i).await?;
    let fid = flavour_of(&i);
    let f = flavour(&m, &fid)?;
    r.check(f)?;
    // Limits the stored state already shows are refused now (drivers check again).
    if let Some(info) = &i.instantiated_vnf_info {
        plan::checked_scale_step(f, info, &r).map_err(ApiError::BadRequest)?;
    }
    run(&req, api, &st, &i, Some(m), OperationParams::Scale(r), b).await
}

pub async fn heal(
    req: HttpRequest,
    api: Api,
    who: Principal,
    path: web::Path<String>,
    JsonBody(b): JsonBody<Value>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let i = load(&st, &path, &who).await?;
    need_state(&i, InstantiationState::Instantiated, "heal")?;
    let r = HealRequest::parse(&api.v2_body(b.clone(), &i)?)?;
    r.check(&i)?;
    run(&req, api, &st, &i, None, OperationParams::Heal(r), b).await
}

pub async fn change_ext_conn(
    req: HttpRequest,
    api: Api,
    who: Principal,
    path: web::Path<String>,
    JsonBody(b): JsonBody<Value>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let i = load(&st, &path, &who).await?;
    need_state(&i, InstantiationState::Instantiated, "change_ext_conn")?;
    let r = ChangeExtConnRequest::parse(&api.v2_body(b.clone(), &i)?)?;
    check_vims(
        &st,
        &who,
        i.tenant.as_deref(),
        r.vim_connection_info.as_ref(),
    )
    .await?;
    run(
        &req,
        api,
        &st,
        &i,
        None,
        OperationParams::ChangeExtConn(r),
        b,
    )
    .await
}

/// `POST .../change_vnfpkg`: moves an instantiated VNF to another package (CNFs:
/// Tacker's RollingUpdate). Checked before anything changes: the package is ONBOARDED
/// and ENABLED, its VNFD has the instance's flavour and every VDU running now, the new
/// manifests are in it, and the namespace stays.
pub async fn change_vnfpkg(
    req: HttpRequest,
    api: Api,
    who: Principal,
    path: web::Path<String>,
    JsonBody(b): JsonBody<Value>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let i = load(&st, &path, &who).await?;
    need_state(&i, InstantiationState::Instantiated, "change_vnfpkg")?;
    let r = ChangeVnfpkgRequest::parse(&b)?;
    if r.vnfd_id == i.vnfd_id {
        return Err(ApiError::Unprocessable(format!(
            "VNF instance {} is on vnfdId {} already",
            i.id, r.vnfd_id
        )));
    }
    let target = super::usable_package(&st, &who, &r.vnfd_id, i.tenant.as_deref()).await?;
    let pkg = target.id;
    let new = st
        .db
        .run(move |c| packages::model(c, pkg))
        .await?
        .ok_or_else(|| ApiError::Unprocessable(format!("VNF package {pkg} has no VNFD")))?;
    let fid = flavour_of(&i);
    let f = new.vnfd.flavour(&fid).ok_or_else(|| {
        ApiError::Unprocessable(format!(
            "vnfdId {} has no flavour {fid:?}, which the instance runs",
            r.vnfd_id
        ))
    })?;
    if let Some(info) = &i.instantiated_vnf_info {
        for vdu in info.vnfc_resource_info.iter().map(|v| &v.vdu_id) {
            if !f.vdus.iter().any(|v| v.id == *vdu) {
                return Err(ApiError::Unprocessable(format!(
                    "VDU {vdu} runs now but is not in flavour {fid:?} of vnfdId {}: the \
                     workloads would not map onto the new package",
                    r.vnfd_id
                )));
            }
        }
    }
    for file in r.kubernetes_def_files().unwrap_or_default() {
        if !new.has_artifact(&file) {
            return Err(ApiError::Unprocessable(format!(
                "additionalParams.lcm-kubernetes-def-files: {file:?} is not an artifact of \
                 the package of vnfdId {}",
                r.vnfd_id
            )));
        }
    }
    if let Some(chart) = r
        .additional_params
        .get("helm_chart_path")
        .and_then(Value::as_str)
        && !new.has_chart(chart)
    {
        return Err(ApiError::Unprocessable(format!(
            "additionalParams.helm_chart_path: {chart:?} is not a chart archive or \
                 directory of the package of vnfdId {}",
            r.vnfd_id
        )));
    }
    let running_ns = i
        .instantiated_vnf_info
        .as_ref()
        .and_then(|x| x.other.get("metadata"))
        .and_then(|m| m.get("namespace"))
        .and_then(Value::as_str);
    if let (Some(now), Some(asked)) = (
        running_ns,
        r.additional_params.get("namespace").and_then(Value::as_str),
    ) && now != asked
    {
        return Err(ApiError::Unprocessable(format!(
            "additionalParams.namespace must stay {now} (asked: {asked})"
        )));
    }
    check_vims(
        &st,
        &who,
        i.tenant.as_deref(),
        r.vim_connection_info.as_ref(),
    )
    .await?;
    run(
        &req,
        api,
        &st,
        &i,
        None,
        OperationParams::ChangeVnfpkg(r),
        b,
    )
    .await
}

/// `POST .../sync` (our extension): reconcile the stored VNFC lists with the VIM now.
pub async fn sync(
    req: HttpRequest,
    api: Api,
    _: AcceptsJson,
    who: Principal,
    path: web::Path<String>,
    st: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let i = load(&st, &path, &who).await?;
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
    let after = load(&st, &path, &who).await?;
    Ok(HttpResponse::Ok()
        .json(json!({"changed": done.changed, "vnfInstance": api.instance_json(&after, &api.base(&req, &st))})))
}
