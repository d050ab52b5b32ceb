//! Task resources (instantiate, terminate, scale, scale_to_level, heal, change_ext_conn,
//! change_vnfpkg, operate, change_flavour):
//! one handler, [`handle`], serves each of them on v1 and v2 (a [`Task`] names its
//! operation): the instance in the state the operation needs, the (v2-shaped) body read
//! into the typed request, the task's checks ([`check`]), the hooks' checks, then an
//! occurrence STARTING. `sync` reconciles an instance with its VIM now.

mod change_vnfpkg;
mod instantiate;
mod scale;
mod sync;

use actix_web::{HttpRequest, HttpResponse};
use serde_json::Value;
use tacker_domain::lcm::{InstantiationState, LcmOperation, OperationParams, VnfInstance};
use tacker_domain::vnfd::PackageModel;

pub use sync::sync;

use super::{Api, check_vims, start};
use crate::auth::Principal;
use crate::extract::{ByPath, Call, JsonBody};
use crate::{ApiError, ServerState};

/// What a task's checks work with.
pub struct Checking<'a> {
    /// The server.
    pub st: &'a ServerState,
    /// The caller.
    pub who: &'a Principal,
    /// The instance, as the request found it.
    pub instance: &'a VnfInstance,
}

impl Checking<'_> {
    /// The model of the instance's package.
    pub async fn model(&self) -> Result<PackageModel, ApiError> {
        model(self.st, self.instance).await
    }
}

/// One task resource (`POST /vnf_instances/{id}/<task>`): the operation it starts.
pub trait Task {
    /// The operation.
    const OPERATION: LcmOperation;
}

macro_rules! tasks {
    ($($name:ident),+) => {$(
        #[doc = concat!("The `", stringify!($name), "` task.")]
        pub struct $name;
        impl Task for $name {
            const OPERATION: LcmOperation = LcmOperation::$name;
        }
    )+};
}

tasks!(
    Instantiate,
    Terminate,
    Scale,
    ScaleToLevel,
    Heal,
    Operate,
    ChangeFlavour,
    ChangeExtConn,
    ChangeVnfpkg
);

/// The task's name in paths and messages.
fn name(op: LcmOperation) -> &'static str {
    match op {
        LcmOperation::Instantiate => "instantiate",
        LcmOperation::Terminate => "terminate",
        LcmOperation::Scale => "scale",
        LcmOperation::ScaleToLevel => "scale_to_level",
        LcmOperation::Operate => "operate",
        LcmOperation::ChangeFlavour => "change_flavour",
        LcmOperation::Heal => "heal",
        LcmOperation::ChangeExtConn => "change_ext_conn",
        LcmOperation::ChangeVnfpkg => "change_vnfpkg",
        _ => "this task",
    }
}

/// The state the operation needs the instance in.
fn needs(op: LcmOperation) -> InstantiationState {
    match op {
        LcmOperation::Instantiate => InstantiationState::NotInstantiated,
        _ => InstantiationState::Instantiated,
    }
}

/// `POST .../vnf_instances/{id}/<task>` on v1 and v2: the instance in the state the task
/// needs, the body parsed and checked, the hooks checked, then an occurrence STARTING
/// (202).
pub async fn handle<T: Task>(
    Call { req, who, st }: Call,
    api: Api,
    JsonBody(body): JsonBody<Value>,
    ByPath(i): ByPath<VnfInstance>,
) -> Result<HttpResponse, ApiError> {
    need_state(&i, needs(T::OPERATION), name(T::OPERATION))?;
    if matches!(
        T::OPERATION,
        LcmOperation::Scale
            | LcmOperation::ScaleToLevel
            | LcmOperation::Heal
            | LcmOperation::ChangeFlavour
    ) && i.instantiated_vnf_info.as_ref().is_some_and(|x| {
        x.vnf_state == tacker_domain::lcm::operate::OperationalState::Stopped.as_str()
    }) {
        return Err(ApiError::Conflict(format!(
            "VNF instance {} is STOPPED; {} needs it STARTED (operate it first)",
            i.id,
            name(T::OPERATION)
        )));
    }
    let request = OperationParams::parse_for(T::OPERATION, api.0, &body, &i)?;
    let c = Checking {
        st: &st,
        who: &who,
        instance: &i,
    };
    let loaded = check(&c, &request).await?;
    run(&req, api, &st, &i, loaded, request, body).await
}

/// A task's checks before anything starts (422, 403...); the package model when they
/// read it (the hooks' check reuses it).
async fn check(
    c: &Checking<'_>,
    request: &OperationParams,
) -> Result<Option<PackageModel>, ApiError> {
    let tenant = c.instance.tenant.as_deref();
    match request {
        OperationParams::Instantiate(r) => instantiate::check(c, r).await.map(Some),
        OperationParams::Scale(r) => scale::check(c, r).await.map(Some),
        OperationParams::ScaleToLevel(r) => scale::check_to_level(c, r).await.map(Some),
        OperationParams::Heal(r) => {
            r.check(c.instance)?;
            Ok(None)
        }
        OperationParams::ChangeFlavour(r) => {
            let m = c.model().await?;
            r.check(&m, &flavour_of(c.instance))?;
            let canonical = tacker_domain::lcm::vim_type::canonical;
            if vim_types(c.instance)
                .any(|t| canonical(t) == tacker_domain::lcm::vim_type::OPENSTACK)
            {
                // Without extVirtualLinks the CPs keep the networks they had.
                let links = Some(r.ext_virtual_links.as_slice()).filter(|l| !l.is_empty());
                instantiate::check_base_hot(&m, &r.new_flavour_id, links)?;
            }
            if let Some(chart) = r.cnf()?.helm_chart_path
                && !m.has_chart(&chart)
            {
                return Err(ApiError::Unprocessable(format!(
                    "additionalParams.helm_chart_path: {chart:?} is not a chart archive or \
                     directory of the VNF package"
                )));
            }
            implemented_on(
                c.instance,
                "changing the deployment flavour",
                &[
                    tacker_domain::lcm::vim_type::SIMULATED,
                    tacker_domain::lcm::vim_type::KUBERNETES,
                    tacker_domain::lcm::vim_type::HELM,
                    tacker_domain::lcm::vim_type::OPENSTACK,
                ],
            )?;
            Ok(Some(m))
        }
        OperationParams::Operate(r) => {
            r.check(c.instance)?;
            r.check_changes(c.instance)?;
            operable(c.instance, r)?;
            Ok(None)
        }
        OperationParams::ChangeExtConn(r) => {
            check_vims(c.st, c.who, tenant, r.vim_connection_info.iter().flatten()).await?;
            Ok(None)
        }
        OperationParams::ChangeVnfpkg(r) => change_vnfpkg::check(c, r).await.map(|()| None),
        OperationParams::Terminate(_) | OperationParams::ModifyInfo(_) => Ok(None),
    }
}

/// Operate is implemented by the simulated VIM, the OpenStack driver (Nova stop/start,
/// whole VNF or named VNFCs) and, for the whole VNF, the Kubernetes and Helm drivers:
/// named VNFCs of a CNF are refused (422), and so is stopping a Helm CNF with a VDU the
/// release cannot scale to zero (no replica value); other VIM types as
/// [`implemented_on`] refuses them.
fn operable(
    i: &VnfInstance,
    r: &tacker_domain::lcm::operate::OperateRequest,
) -> Result<(), ApiError> {
    use tacker_domain::lcm::operate::OperationalState;
    use tacker_domain::lcm::vim_type::{HELM, KUBERNETES, OPENSTACK, SIMULATED, canonical};
    let cnf = vim_types(i).any(|t| canonical(t) == KUBERNETES || canonical(t) == HELM);
    if cnf && !r.vnfc_instance_id.is_empty() {
        return Err(ApiError::Unprocessable(
            "operate on named VNFCs is not supported for Kubernetes and Helm VIMs (a \
             workload's Pods start and stop together): operate the whole VNF"
                .into(),
        ));
    }
    let helm = vim_types(i).any(|t| canonical(t) == HELM);
    if helm && r.change_state_to == OperationalState::Stopped {
        let meta = i
            .instantiated_vnf_info
            .as_ref()
            .and_then(|info| info.driver_metadata());
        let names = meta.and_then(|m| m.get("helm_value_names"));
        let vdus = meta.and_then(|m| m.get("vdus")).and_then(|v| v.as_object());
        if let Some(vdu) = vdus.into_iter().flatten().map(|(k, _)| k).find(|vdu| {
            names
                .and_then(|n| n.pointer(&format!("/{vdu}/replica")))
                .and_then(|r| r.as_str())
                .is_none()
        }) {
            return Err(ApiError::Unprocessable(format!(
                "VDU {vdu} has no replica value (helm_value_names.{vdu}.replica at \
                 instantiation): the Helm release cannot scale it to zero, so the VNF \
                 cannot be stopped"
            )));
        }
    }
    implemented_on(
        i,
        "operate (start/stop)",
        &[SIMULATED, KUBERNETES, HELM, OPENSTACK],
    )
}

/// The VIM types the instance's connections name (references to registered VIMs name
/// none).
fn vim_types(i: &VnfInstance) -> impl Iterator<Item = &str> {
    i.vim_connection_info
        .values()
        .filter_map(|v| v.vim_type.as_deref())
}

/// Refuses `what` (422) on an instance whose VIM type is none of `types`, the ones
/// whose drivers implement it, before anything starts (the other drivers refuse it too,
/// for VIMs the instance names only by reference).
fn implemented_on(i: &VnfInstance, what: &str, types: &[&str]) -> Result<(), ApiError> {
    let canonical = tacker_domain::lcm::vim_type::canonical;
    match vim_types(i).find(|t| !types.contains(&canonical(t).as_str())) {
        Some(t) => Err(ApiError::Unprocessable(format!(
            "{what} is not supported for VIM type {t} yet"
        ))),
        None => Ok(()),
    }
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
    let found = crate::routes::packages::stored_model(st, pkg).await?;
    found.ok_or_else(|| {
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
    let Some(sealed) = st.db.instances().instantiate_params(id).await? else {
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

/// The flavour the instance runs.
fn flavour_of(i: &VnfInstance) -> String {
    i.instantiated_vnf_info
        .as_ref()
        .map(|x| x.flavour_id.clone())
        .unwrap_or_default()
}

/// Starts `params` (received as `body`) on the instance, once its hooks are checked
/// (`loaded`: the package model, when the checks read it already).
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
