//! `/vnflcm/v2`: VNF lifecycle management (SOL003 v3.3.1).

pub(super) mod instances;
pub(super) mod op_occs;
pub(super) mod subscriptions;
pub(super) mod tasks;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::HeaderName;
use actix_web::middleware::Next;
use actix_web::{HttpRequest, HttpResponse};
use serde_json::{Value, json};
use tacker_db::op_occs as ops;
use tacker_domain::lcm::vim_type;
use tacker_domain::lcm::{ApiVersion, OpOcc, OperationParams, OperationState, VnfInstance};
use tacker_domain::vim::VimConnectionInfo;
use tacker_rpc::proto::RunLcmOp;
use uuid::Uuid;

use crate::auth::Principal;
use crate::extract::{AcceptsJson, ByPath, Call, Scoped};
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
    super::version::require(req, next, API_VERSION, &["2.0", "2"]).await
}

/// The v1 API's version (Tacker's, what python-tackerclient sends).
pub const V1_API_VERSION: &str = "1.3.0";

/// `GET /vnflcm/api_versions` (both), `/vnflcm/v1/api_versions`, `/vnflcm/v2/api_versions`.
pub(super) async fn api_versions(req: HttpRequest) -> HttpResponse {
    let v1 = json!({"version": V1_API_VERSION, "isDeprecated": false});
    let v2 = json!({"version": API_VERSION, "isDeprecated": false});
    let body = match req.path() {
        p if p.starts_with("/vnflcm/v1") => json!({"uriPrefix": "/vnflcm/v1", "apiVersions": [v1]}),
        p if p.starts_with("/vnflcm/v2") => json!({"uriPrefix": "/vnflcm/v2", "apiVersions": [v2]}),
        _ => json!({"uriPrefix": "/vnflcm", "apiVersions": [v1, v2]}),
    };
    HttpResponse::Ok()
        .insert_header((VERSION, API_VERSION))
        .json(body)
}

/// Which LCM API version a request came through (`/vnflcm/v1/...` or `/vnflcm/v2/...`):
/// one set of handlers serves both, over the same instances and occurrences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Api(pub ApiVersion);

impl actix_web::FromRequest for Api {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let v = if req.path().starts_with("/vnflcm/v1/") {
            ApiVersion::V1
        } else {
            ApiVersion::V2
        };
        std::future::ready(Ok(Api(v)))
    }
}

impl Api {
    /// `<base>/vnflcm/<version>` for links in answers.
    pub fn base(self, req: &HttpRequest, st: &ServerState) -> String {
        self.0.base(&crate::http::base_url(req, st))
    }

    /// An instance as this version answers it (v1: `vimConnectionInfo` as a list with
    /// ids, and `vnfPkgId`).
    pub fn instance_json(self, i: &VnfInstance, base: &str) -> Value {
        i.info(self.0, base, |_| false).to_value()
    }
}

/// An LCM resource as an API version answers it, its links under `base`
/// (`<base>/vnflcm/<version>`).
pub trait Answered: Scoped {
    /// Its representation.
    fn answer(&self, api: Api, base: &str) -> Value;
}

impl Answered for VnfInstance {
    fn answer(&self, api: Api, base: &str) -> Value {
        api.instance_json(self, base)
    }
}

impl Answered for OpOcc {
    fn answer(&self, _: Api, base: &str) -> Value {
        self.to_json(base)
    }
}

impl Answered for tacker_domain::lcm::Subscription {
    fn answer(&self, _: Api, base: &str) -> Value {
        self.to_json(base)
    }
}

/// `GET` of an instance, an occurrence or a subscription, on v1 and v2.
pub async fn show<T: Answered>(
    Call { req, st, .. }: Call,
    api: Api,
    _: AcceptsJson,
    ByPath(x): ByPath<T>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(x.answer(api, &api.base(&req, &st))))
}

/// The ONBOARDED and ENABLED package of `vnfd_id` that an instance of `tenant` uses (the
/// tenant's own, else a shared one), if `who` sees its vendor; else 422.
pub async fn usable_package(
    st: &ServerState,
    who: &Principal,
    vnfd_id: &str,
    tenant: Option<&str>,
) -> Result<tacker_db::instances::UsablePackage, ApiError> {
    let found = st.db.instances().usable_package(vnfd_id, tenant).await?;
    match found {
        tacker_db::instances::Usable::One(p) if who.sees_vendor(Some(&p.provider)) => Ok(p),
        tacker_db::instances::Usable::Ambiguous(n) => Err(ApiError::Unprocessable(format!(
            "vnfdId {vnfd_id} is onboarded by {n} tenants and the VNF instance has none: \
             create it with a token of the tenant whose package it uses"
        ))),
        _ => Err(ApiError::Unprocessable(format!(
            "no ONBOARDED and ENABLED VNF package has vnfdId {vnfd_id}"
        ))),
    }
}

/// Refuses (422) `vimConnectionInfo` entries of a VIM type nothing drives (the simulated
/// VIM while `lcm.simulated_vim` is off), or naming a VIM that is not registered, not seen
/// by the caller, or another tenant's than the instance's (`tenant`). The VIM types of
/// the entries (canonical; a registered Helm VIM as Helm's) when they are usable.
pub async fn check_vims<'a>(
    st: &ServerState,
    who: &Principal,
    tenant: Option<&str>,
    vci: impl IntoIterator<Item = (&'a String, &'a VimConnectionInfo)>,
) -> Result<Vec<String>, ApiError> {
    let mut types = Vec::new();
    for (k, e) in vci {
        if let Some(t) = e.vim_type.as_deref() {
            types.push(vim_type::canonical(t));
        }
        if let Some(area) = e.area()
            && !who.sees_areas([area])
        {
            return Err(ApiError::Forbidden(format!(
                "vimConnectionInfo.{k}.extra.area {area} is not one of the caller's areas"
            )));
        }
        if let Some(endpoint) = e.endpoint() {
            let what = format!("vimConnectionInfo.{k}.interfaceInfo.endpoint");
            crate::http::check_vim_endpoint(st, endpoint, &what).await?;
        }
        if let Some(t) = e.vim_type.as_deref()
            && let Some(why) = vim_type::unsupported(t, st.settings.simulated_vim)
        {
            return Err(ApiError::Unprocessable(format!(
                "vimConnectionInfo.{k}.vimType: {why}"
            )));
        }
        if e.vim_type.as_deref() == Some(vim_type::HELM) && !st.settings.helm {
            return Err(ApiError::Unprocessable(format!(
                "vimConnectionInfo.{k}.vimType: {} needs the helm binary, which this VNFM \
                 does not have (install Helm 3 in PATH or set helm.binary)",
                vim_type::HELM
            )));
        }
        let Some(vim_id) = e.reference() else {
            continue;
        };
        let unknown = || {
            ApiError::Unprocessable(format!(
                "vimConnectionInfo.{k}.vimId {vim_id} is not a registered VIM"
            ))
        };
        let id: Uuid = vim_id.parse().map_err(|_| unknown())?;
        let vim = st
            .db
            .vims()
            .get(id, &st.keys)
            .await?
            .filter(|v| crate::scope::sees_vim(who, v))
            .filter(|v| v.tenant_id.is_empty() || Some(v.tenant_id.as_str()) == tenant)
            .ok_or_else(unknown)?;
        if vim.uses_helm() && !st.settings.helm {
            return Err(ApiError::Unprocessable(format!(
                "vimConnectionInfo.{k}.vimId {vim_id} is a Helm VIM (extra.use_helm), and this \
                 VNFM has no helm binary (install Helm 3 in PATH or set helm.binary)"
            )));
        }
        types.push(vim.connection_type().to_owned());
    }
    Ok(types)
}

/// Starts an operation occurrence on an instance: STARTING (409 when another operation
/// holds the instance), cast to a conductor; 202 with the occurrence's `Location`.
/// `declared`: the `additionalParams` names the instance's package declares secret.
pub async fn start(
    st: &ServerState,
    api_base: &str,
    instance: Uuid,
    params: OperationParams,
    body: serde_json::Value,
    declared: &[String],
) -> Result<HttpResponse, ApiError> {
    // The instantiate request's additionalParams are kept sealed with the instance (the
    // hooks of later operations need them).
    let sealed = match &params {
        OperationParams::Instantiate(r) => Some(
            st.keys.seal(
                &serde_json::to_string(&r.additional_params)
                    .map_err(|e| ApiError::Internal(e.to_string()))?,
            )?,
        ),
        _ => None,
    };
    // The occurrence keeps its secrets sealed (the conductor opens them) and answers
    // them masked.
    let op = OpOcc::new(
        Uuid::new_v4(),
        instance,
        OperationState::Starting,
        params,
        body,
    )
    .sealed(declared, &mut |s| crate::http::seal(st, s))?;
    let operation = op.operation;
    let created = st.db.op_occs().create(&op, sealed.as_deref()).await?;
    match created {
        ops::CreateOutcome::Created => {}
        ops::CreateOutcome::Busy => {
            return Err(ApiError::Conflict(format!(
                "VNF instance {instance} has an operation in progress or FAILED_TEMP; finish it first"
            )));
        }
        ops::CreateOutcome::NoTargetPackage => {
            return Err(ApiError::Unprocessable(
                "the package to change to is no longer ONBOARDED and ENABLED".into(),
            ));
        }
    }
    if let Err(e) = cast(st, &op).await {
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
        let _ = st.db.op_occs().transition(id, &t).await;
        return Err(e);
    }
    tracing::info!(vnf_instance_id = %instance, op_occ_id = %op.id, %operation, "operation started");
    Ok(HttpResponse::Accepted()
        .insert_header(("Location", format!("{api_base}/vnf_lcm_op_occs/{}", op.id)))
        .finish())
}

/// Casts the occurrence to a conductor.
pub async fn cast(st: &ServerState, op: &OpOcc) -> Result<(), ApiError> {
    let (id, instance) = (op.id.to_string(), op.vnf_instance_id.to_string());
    st.bus
        .cast(
            &RunLcmOp {
                op_occ_id: id.clone(),
            },
            &[("op_occ_id", &id), ("vnf_instance_id", &instance)],
        )
        .await?;
    Ok(())
}
