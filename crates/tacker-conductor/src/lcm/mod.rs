//! The lifecycle engine: runs operation occurrences through grant, hooks and the infra
//! driver, turning every failure into FAILED_TEMP (or ROLLED_BACK before PROCESSING)
//! with a ProblemDetails, in one place.

mod apply;
mod cancel;
mod grant;
pub mod hooks;
mod noop;
pub mod services;
pub mod sim;
mod vim;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tacker_db::op_occs::{Runner, Transition};
use tacker_domain::Failure;
use tacker_domain::lcm::driver::{InfraDriver, MgmtDriver, OpContext, Outcome, TargetPackage};
use tacker_domain::lcm::request::ModifyRequest;
use tacker_domain::lcm::{LcmOperation, OpOcc, OperationParams, OperationState, VnfInstance};
use tacker_domain::mgmt::{DriverName, Mapping};
use tacker_domain::vnfd::PackageModel;
use uuid::Uuid;

use crate::Ctx;
use crate::cache::ensure_contents;

pub use tacker_domain::lcm::vim_type::{KUBERNETES, canonical as vim_type};

/// Drivers by VIM type, management drivers by name, and which driver runs the hooks
/// naming which artifact.
#[derive(Clone, Default)]
pub struct Drivers {
    /// Infra drivers by (normalised) VIM type.
    pub infra: HashMap<String, Arc<dyn InfraDriver>>,
    /// Management drivers by name (`noop` is always there).
    pub mgmt: HashMap<DriverName, Arc<dyn MgmtDriver>>,
    /// Hook artifact to driver (`[mgmt] drivers`).
    pub mapping: Mapping,
}

impl std::fmt::Debug for Drivers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Drivers")
            .field("infra", &self.infra.keys().collect::<Vec<_>>())
            .field("mgmt", &self.mgmt.keys().collect::<Vec<_>>())
            .field("mapping", &self.mapping)
            .finish()
    }
}

/// The `[lcm]` settings.
#[derive(Debug, Clone)]
pub struct LcmSettings {
    /// The API's public base URL (`server.public_url`, else from `server.bind`): links
    /// in notifications and grant requests are written under it.
    pub public_url: String,
    /// External NFVO Grant API base; `None`: the built-in NFVO.
    pub nfvo_grant_url: Option<String>,
    /// NFVO basic credentials.
    pub nfvo_auth: Option<(String, String)>,
    /// Longest a grant may take.
    pub grant_timeout: Duration,
    /// The VIM used when nothing else names one (a vimConnectionInfo entry).
    pub default_vim: Option<tacker_domain::vim::VimConnectionInfo>,
    /// Outbound HTTP timeout.
    pub http_timeout: Duration,
    /// Internal networks outbound requests may reach (`outbound.allowed_networks`).
    pub outbound: Vec<ipnet::IpNet>,
    /// Longest wait between notification attempts.
    pub notification_max_backoff: Duration,
    /// How long delivered notifications are kept (zero: forever).
    pub notification_retention: Duration,
    /// How long ended operation occurrences are kept (zero: forever).
    pub op_retention: Duration,
    /// How long a notification may stay undelivered (zero: until delivered).
    pub notification_max_age: Duration,
    /// Period of the resource sync (zero: only on demand).
    pub sync_interval: Duration,
    /// Drivers.
    pub drivers: Drivers,
}

impl LcmSettings {
    /// The `[lcm]` settings of `cfg`, with `drivers` (wired by the caller) and the
    /// hook mapping of `[mgmt]`, every driver it names offered.
    pub fn from_config(cfg: &tacker_config::Config, mut drivers: Drivers) -> crate::Result<Self> {
        drivers.mapping = cfg.mgmt.drivers.clone();
        drivers
            .mgmt
            .entry(DriverName::Noop)
            .or_insert_with(|| Arc::new(noop::Noop));
        for d in drivers.mapping.drivers() {
            if !drivers.mgmt.contains_key(d) {
                let hint = if *d == DriverName::Sim {
                    " (it needs lcm.simulated_vim = true)"
                } else {
                    ""
                };
                return Err(crate::Error::Config(format!(
                    "mgmt.drivers names management driver {d}, which this process does not offer{hint}"
                )));
            }
        }
        let l = &cfg.lcm;
        Ok(Self {
            public_url: cfg.public_base_url(),
            nfvo_grant_url: l.nfvo_grant_url.as_ref().map(ToString::to_string),
            nfvo_auth: Some((l.nfvo_user.clone(), l.nfvo_password.clone()))
                .filter(|(u, _)| !u.is_empty()),
            grant_timeout: l.grant_timeout,
            default_vim: l.default_vim.clone(),
            http_timeout: l.http_timeout,
            outbound: cfg.outbound.allowed_networks.clone(),
            notification_max_backoff: l.notification_max_backoff,
            notification_retention: l.notification_retention,
            op_retention: l.op_retention,
            notification_max_age: l.notification_max_age,
            sync_interval: l.sync_interval,
            drivers,
        })
    }
}

fn internal(e: impl std::fmt::Display) -> Failure {
    Failure::internal(e.to_string())
}

/// Runs occurrence `id` from the state it is in (the `RunLcmOp` cast).
pub async fn run(ctx: &Arc<Ctx>, id: Uuid) -> crate::Result<()> {
    let op = ctx.db.op_occs().get(id).await?;
    let Some(op) = op else {
        tracing::warn!(op_occ_id = %id, "no such operation occurrence; ignored");
        return Ok(());
    };
    let me = ctx.id.clone();
    if op.conductor_id.as_deref().is_some_and(|c| c != me) {
        tracing::info!(op_occ_id = %id, runner = ?op.conductor_id, "another conductor runs it");
        return Ok(());
    }
    match op.state {
        OperationState::Starting | OperationState::Processing => forward(ctx, op).await,
        OperationState::RollingBack => rollback(ctx, op).await,
        state => tracing::info!(op_occ_id = %id, %state, "nothing to run"),
    }
    Ok(())
}

/// Records transition `t` of occurrence `id`; the occurrence after it, `None` when it
/// was not in `t.from`. While the database is unreachable it is tried again (an
/// occurrence must never stay in progress under a live runner).
async fn end(ctx: &Ctx, id: Uuid, t: Transition) -> Option<OpOcc> {
    let mut delay = Duration::from_millis(200);
    loop {
        match ctx.db.op_occs().transition(id, &t).await {
            Ok(Some(op)) => {
                if matches!(
                    op.state,
                    OperationState::Completed
                        | OperationState::FailedTemp
                        | OperationState::RolledBack
                        | OperationState::Failed
                ) {
                    let took = (op.state_entered_time - op.start_time)
                        .to_std()
                        .unwrap_or_default();
                    ctx.metrics
                        .lcm_ended(op.operation.as_str(), op.state.as_str(), took);
                }
                return Some(op);
            }
            Ok(None) => return None,
            Err(tacker_db::Error::Unavailable(e)) => {
                tracing::warn!(op_occ_id = %id, error = %e, retry_in = ?delay, "database unreachable; recording the operation's state again");
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(5));
            }
            Err(e) => {
                tracing::error!(op_occ_id = %id, error = %e, "could not record the operation's state");
                return None;
            }
        }
    }
}

async fn forward(ctx: &Arc<Ctx>, op: OpOcc) {
    let id = op.id;
    let claimed = ctx
        .db
        .op_occs()
        .claim(
            id,
            &ctx.id,
            &ctx.incarnation,
            &[OperationState::Starting, OperationState::Processing],
        )
        .await
        .unwrap_or(false);
    if !claimed {
        return;
    }
    match cancel::interruptible(ctx, id, forward_steps(ctx, op)).await {
        Ok(()) => {}
        Err(f) if f.is_superseded() => {}
        Err(f) => {
            tracing::warn!(op_occ_id = %id, detail = %f.detail, kind = f.metric_label(), "operation failed");
            let problem = f.problem();
            // Before PROCESSING nothing was done: the occurrence is rolled back.
            let before = Transition {
                from: vec![OperationState::Starting],
                to: Some(OperationState::RolledBack),
                error: Some(Some(problem.clone())),
                runner: Runner::Clear,
                release: true,
                ..Default::default()
            };
            if end(ctx, id, before).await.is_none() {
                let after = Transition {
                    from: vec![OperationState::Processing],
                    to: Some(OperationState::FailedTemp),
                    error: Some(Some(problem)),
                    runner: Runner::Clear,
                    ..Default::default()
                };
                end(ctx, id, after).await;
            }
        }
    }
}

/// The model of package `pkg` and its files, cached and extracted here.
async fn cached_model(
    ctx: &Arc<Ctx>,
    pkg: Uuid,
) -> Result<(PackageModel, std::path::PathBuf), Failure> {
    let model = ctx
        .db
        .packages()
        .model(pkg)
        .await
        .map_err(internal)?
        .ok_or_else(|| Failure::unprocessable(format!("VNF package {pkg} has no VNFD")))?;
    let digest = ctx
        .db
        .packages()
        .content_digest(pkg)
        .await
        .map_err(internal)?
        .ok_or_else(|| Failure::unprocessable(format!("VNF package {pkg} has no content")))?;
    let dir = ensure_contents(ctx, pkg, &digest)
        .await
        .map_err(|e| match e.kind {
            tacker_domain::FailureKind::BadRequest => e,
            _ => Failure::internal(format!(
                "conductor {} cannot cache the package: {e}",
                ctx.id
            )),
        })?;
    Ok((model, dir))
}

/// Loads what a driver needs.
async fn context(
    ctx: &Arc<Ctx>,
    op: &OpOcc,
) -> Result<(VnfInstance, PackageModel, OpContext), Failure> {
    let iid = op.vnf_instance_id;
    let instance = ctx
        .db
        .instances()
        .get(iid)
        .await
        .map_err(internal)?
        .ok_or_else(|| Failure::not_found(format!("VNF instance {iid} no longer exists")))?;
    let pkg = instance.vnf_pkg_id;
    let (model, package_dir) = cached_model(ctx, pkg).await?;
    let flavour_id = match &op.request {
        OperationParams::Instantiate(r) => r.flavour_id.clone(),
        _ => instance
            .instantiated_vnf_info
            .as_ref()
            .map(|i| i.flavour_id.clone())
            .unwrap_or_default(),
    };
    let vim = vim::select(ctx, op, &instance).await?;
    // Only hooks read the stored parameters.
    let has_hooks = model
        .vnfd
        .flavour(&flavour_id)
        .is_some_and(|f| !f.hooks.is_empty());
    let instantiate_params = if has_hooks {
        stored_params(ctx, iid).await?
    } else {
        Map::new()
    };
    let target = match &op.request {
        OperationParams::ChangeVnfpkg(r) => {
            Some(target_package(ctx, &r.vnfd_id, instance.tenant.as_deref()).await?)
        }
        OperationParams::ModifyInfo(m) => match m.new_vnfd(&instance) {
            Some(v) => Some(target_package(ctx, v, instance.tenant.as_deref()).await?),
            None => None,
        },
        _ => None,
    };
    // Drivers get the request as it was sent: its secrets opened.
    let mut op = op.clone();
    op.request
        .open_params(&mut |s| ctx.keys.open(s))
        .map_err(|e| Failure::internal(format!("opening the request's secrets: {e}")))?;
    let services: Arc<dyn tacker_domain::lcm::driver::Services> = Arc::new(
        services::InstanceServices::new(
            ctx.db.clone(),
            ctx.keys.clone(),
            iid,
            instance.tenant.clone(),
        )
        .with_package(services::PackageFiles {
            zip: ctx.cache.csar_path(&pkg.to_string()),
            dir: package_dir.clone(),
            limits: ctx.onboarding.limits.clone(),
        }),
    );
    let octx = OpContext {
        op,
        instance: instance.clone(),
        vnfd: model.vnfd.clone(),
        flavour_id,
        package_dir,
        package_zip: ctx.cache.csar_path(&pkg.to_string()),
        vim,
        grant: Value::Null,
        resource_changes: Map::new(),
        instantiate_params,
        services: Some(services),
        target,
    };
    Ok((instance, model, octx))
}

/// The package a CHANGE_VNFPKG of an instance of `tenant` moves to, cached here.
async fn target_package(
    ctx: &Arc<Ctx>,
    vnfd_id: &str,
    tenant: Option<&str>,
) -> Result<TargetPackage, Failure> {
    let pkg = ctx
        .db
        .instances()
        .usable_package(vnfd_id, tenant)
        .await
        .map_err(internal)?
        .one()
        .ok_or_else(|| {
            Failure::unprocessable(format!(
                "no ONBOARDED and ENABLED VNF package has vnfdId {vnfd_id}"
            ))
        })?
        .id;
    let (model, package_dir) = cached_model(ctx, pkg).await?;
    Ok(TargetPackage {
        id: pkg,
        vnfd: model.vnfd,
        package_dir,
    })
}

/// The instantiate request's `additionalParams`, kept sealed with the instance.
async fn stored_params(ctx: &Ctx, iid: Uuid) -> Result<Map<String, Value>, Failure> {
    let Some(sealed) = ctx
        .db
        .instances()
        .instantiate_params(iid)
        .await
        .map_err(internal)?
    else {
        return Ok(Map::new());
    };
    let plain = ctx.keys.open(&sealed).map_err(|e| {
        Failure::internal(format!(
            "opening the stored parameters of instance {iid}: {e}"
        ))
    })?;
    serde_json::from_str(&plain).map_err(|e| {
        Failure::internal(format!(
            "the stored parameters of instance {iid} are not JSON: {e}"
        ))
    })
}

/// What the infra step did, as recorded before the `*_end` hook.
fn checkpoint_json(o: &Outcome) -> Value {
    json!({
        "instantiatedVnfInfo": o.instantiated_vnf_info,
        "resourceChanges": o.resource_changes,
    })
}

fn from_checkpoint(v: &Value) -> Result<Outcome, Failure> {
    let info = match v.get("instantiatedVnfInfo") {
        None | Some(Value::Null) => None,
        Some(i) => Some(serde_json::from_value(i.clone()).map_err(|e| {
            Failure::internal(format!("the recorded infra step is unreadable: {e}"))
        })?),
    };
    Ok(Outcome {
        instantiated_vnf_info: info,
        resource_changes: v
            .get("resourceChanges")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
    })
}

async fn forward_steps(ctx: &Arc<Ctx>, op: OpOcc) -> Result<(), Failure> {
    let id = op.id;
    cancel::boundary(ctx, id).await?;
    let (instance, model, mut octx) = context(ctx, &op).await?;
    if op.state == OperationState::Starting {
        // Hooks without a driver or with wrong parameters stop here, before the grant:
        // nothing was created (ROLLED_BACK).
        hooks::check(ctx, &octx, &model).await?;
        let grant = grant::obtain(ctx, &octx).await?;
        cancel::boundary(ctx, id).await?;
        let grant_id = grant.get("id").and_then(Value::as_str).map(str::to_owned);
        if octx.vim.is_none() {
            octx.vim = vim::from_grant(ctx, &grant, instance.tenant.as_deref()).await?;
        }
        octx.grant = grant;
        let t = Transition {
            from: vec![OperationState::Starting],
            to: Some(OperationState::Processing),
            grant_id,
            runner: Runner::Set(ctx.id.clone(), ctx.incarnation.clone()),
            ..Default::default()
        };
        let op = end(ctx, id, t).await.ok_or_else(Failure::superseded)?;
        octx.op = op;
    }
    let recorded = ctx.db.op_occs().checkpoint(id).await.map_err(internal)?;
    let outcome = match recorded {
        // A retry after the end hook failed: the infra step is done; only the hook
        // runs again.
        Some(cp) => {
            tracing::info!(op_occ_id = %id, "infra step recorded earlier; running the end hook again");
            from_checkpoint(&cp)?
        }
        None => {
            cancel::boundary(ctx, id).await?;
            hooks::run(ctx, &octx, "start").await?;
            cancel::boundary(ctx, id).await?;
            let outcome = infra_step(ctx, &octx, &instance).await?;
            let cp = checkpoint_json(&outcome);
            let recorded = ctx
                .db
                .op_occs()
                .set_checkpoint(id, &ctx.id, &cp)
                .await
                .map_err(internal)?;
            if !recorded {
                return Err(Failure::superseded());
            }
            outcome
        }
    };
    cancel::boundary(ctx, id).await?;
    let (after, changed_info) = apply::result(&instance, &octx, &outcome);
    // The end hook sees the instance as the operation leaves it.
    octx.instance = after.clone();
    octx.resource_changes = outcome.resource_changes.clone();
    hooks::run(ctx, &octx, "end").await?;
    // Every credential the instance keeps is stored sealed (a VIM from lcm.default_vim
    // included).
    let mut after = after;
    for e in after.vim_connection_info.values_mut() {
        e.seal(&mut |s| ctx.keys.seal(s))
            .map_err(|e| Failure::internal(format!("sealing the VIM credentials: {e}")))?;
    }
    let t = Transition {
        from: vec![OperationState::Processing],
        to: Some(OperationState::Completed),
        resource_changes: Some(Value::Object(outcome.resource_changes)),
        changed_info,
        runner: Runner::Clear,
        instance: Some(after),
        release: true,
        ..Default::default()
    };
    end(ctx, id, t).await.ok_or_else(Failure::superseded)?;
    tracing::info!(op_occ_id = %id, operation = %octx.op.operation, "COMPLETED");
    Ok(())
}

/// The infra driver's part of the operation.
async fn infra_step(
    ctx: &Ctx,
    octx: &OpContext,
    instance: &VnfInstance,
) -> Result<Outcome, Failure> {
    if octx.op.operation == LcmOperation::ModifyInfo {
        return Ok(Outcome {
            instantiated_vnf_info: instance.instantiated_vnf_info.clone(),
            resource_changes: Map::new(),
        });
    }
    let driver = infra(ctx, octx)?;
    Ok(match octx.op.operation {
        LcmOperation::Instantiate => driver.instantiate(octx).await?,
        LcmOperation::Terminate => driver.terminate(octx).await?,
        LcmOperation::Scale => driver.scale(octx).await?,
        LcmOperation::ScaleToLevel => scale_to_level(driver.as_ref(), octx).await?,
        LcmOperation::Operate => driver.operate(octx).await?,
        LcmOperation::ChangeFlavour => driver.change_flavour(octx).await?,
        LcmOperation::Heal => driver.heal(octx).await?,
        LcmOperation::ChangeExtConn => driver.change_ext_conn(octx).await?,
        LcmOperation::ChangeVnfpkg => driver.change_vnfpkg(octx).await?,
        other => {
            return Err(Failure::unprocessable(format!("{other} is not supported")));
        }
    })
}

/// SCALE_TO_LEVEL: the driver's scale, once per aspect whose level changes (scale-ins
/// first), each step on the instance as the previous one left it; the VNFCs of every
/// step are the occurrence's `affectedVnfcs`.
async fn scale_to_level(driver: &dyn InfraDriver, octx: &OpContext) -> Result<Outcome, Failure> {
    let OperationParams::ScaleToLevel(r) = &octx.op.request else {
        return Err(Failure::internal("not a scale_to_level request"));
    };
    let flavour = octx.vnfd.flavour(&octx.flavour_id).ok_or_else(|| {
        Failure::unprocessable(format!("flavour {} is not in the VNFD", octx.flavour_id))
    })?;
    let mut info = octx
        .instance
        .instantiated_vnf_info
        .clone()
        .ok_or_else(|| Failure::conflict("the VNF instance is not instantiated"))?;
    let mut step_ctx = octx.clone();
    step_ctx.op.operation = LcmOperation::Scale;
    let mut affected = Vec::new();
    for step in r.steps(flavour, &info)? {
        tracing::info!(op_occ_id = %octx.op.id, aspect = %step.aspect_id, kind = ?step.kind, steps = step.number_of_steps, "scale to level: one aspect");
        step_ctx.op.request = OperationParams::Scale(step);
        step_ctx.instance.instantiated_vnf_info = Some(info.clone());
        let o = driver.scale(&step_ctx).await?;
        info = o.instantiated_vnf_info.ok_or_else(|| {
            Failure::internal("the infra driver's scale left the instance without its VNFCs")
        })?;
        if let Some(Value::Array(a)) = o.resource_changes.get("affectedVnfcs") {
            affected.extend(a.iter().cloned());
        }
    }
    Ok(Outcome {
        instantiated_vnf_info: Some(info),
        resource_changes: Map::from_iter([("affectedVnfcs".to_owned(), Value::Array(affected))]),
    })
}

fn infra(ctx: &Ctx, octx: &OpContext) -> Result<Arc<dyn InfraDriver>, Failure> {
    let vim = octx.vim.as_ref().ok_or_else(|| {
        Failure::unprocessable(
            "no VIM: the request, the instance, the grant and lcm.default_vim name none",
        )
    })?;
    let t = vim_type(&vim.vim_type);
    ctx.lcm.drivers.infra.get(&t).cloned().ok_or_else(|| {
        let simulated = ctx.lcm.drivers.infra.contains_key(sim::SIM_VIM);
        let why = tacker_domain::lcm::vim_type::unsupported(&vim.vim_type, simulated)
            .unwrap_or_else(|| "no driver is configured for it".to_owned());
        Failure::unprocessable(format!(
            "no infra driver for VIM type {}: {why}",
            vim.vim_type
        ))
    })
}

async fn rollback(ctx: &Arc<Ctx>, op: OpOcc) {
    let id = op.id;
    let claimed = ctx
        .db
        .op_occs()
        .claim(
            id,
            &ctx.id,
            &ctx.incarnation,
            &[OperationState::RollingBack],
        )
        .await
        .unwrap_or(false);
    if !claimed {
        return;
    }
    let result = cancel::interruptible(ctx, id, async {
        cancel::boundary(ctx, id).await?;
        let (instance, _model, octx) = context(ctx, &op).await?;
        let outcome = match op.operation {
            LcmOperation::ModifyInfo => Outcome {
                instantiated_vnf_info: instance.instantiated_vnf_info.clone(),
                resource_changes: Map::new(),
            },
            _ => infra(ctx, &octx)?.rollback(&octx).await?,
        };
        let mut after = instance.clone();
        after.instantiated_vnf_info = outcome.instantiated_vnf_info.clone();
        after.instantiation_state = if after.instantiated_vnf_info.is_some() {
            tacker_domain::lcm::InstantiationState::Instantiated
        } else {
            tacker_domain::lcm::InstantiationState::NotInstantiated
        };
        // GRACEFUL: the rollback step ran; the occurrence stops FAILED_TEMP.
        cancel::boundary(ctx, id).await?;
        Ok::<_, Failure>((after, outcome))
    })
    .await;
    let t = match result {
        Ok((after, outcome)) => Transition {
            from: vec![OperationState::RollingBack],
            to: Some(OperationState::RolledBack),
            resource_changes: Some(Value::Object(outcome.resource_changes)),
            runner: Runner::Clear,
            instance: Some(after),
            release: true,
            ..Default::default()
        },
        Err(f) if f.is_superseded() => return,
        Err(f) => Transition {
            from: vec![OperationState::RollingBack],
            to: Some(OperationState::FailedTemp),
            error: Some(Some(f.problem())),
            runner: Runner::Clear,
            ..Default::default()
        },
    };
    end(ctx, id, t).await;
}

/// Reconciles an instance's stored VNFCs with its VIM; whether anything changed.
pub async fn sync_instance(ctx: &Arc<Ctx>, instance_id: Uuid) -> Result<bool, Failure> {
    let Some((driver, octx)) = instance_driver(ctx, instance_id).await? else {
        return Ok(false);
    };
    let Some(info) = octx.instance.instantiated_vnf_info.clone() else {
        return Ok(false);
    };
    let Some(now) = driver.sync(&octx).await? else {
        return Ok(false);
    };
    if now == info {
        return Ok(false);
    }
    let stored = ctx
        .db
        .instances()
        .store_synced(instance_id, &now)
        .await
        .map_err(internal)?;
    Ok(stored)
}

/// The infra driver of an instantiated instance and a context for it outside any
/// operation (`None`: it is not instantiated).
pub(crate) async fn instance_driver(
    ctx: &Arc<Ctx>,
    instance_id: Uuid,
) -> Result<Option<(Arc<dyn InfraDriver>, OpContext)>, Failure> {
    let instance = ctx
        .db
        .instances()
        .get(instance_id)
        .await
        .map_err(internal)?
        .ok_or_else(|| Failure::not_found(format!("VNF instance {instance_id} not found")))?;
    if instance.instantiated_vnf_info.is_none() {
        return Ok(None);
    }
    // No operation: the drivers get a context without a request.
    let none = OpOcc::new(
        Uuid::nil(),
        instance_id,
        OperationState::Processing,
        OperationParams::ModifyInfo(ModifyRequest::default()),
        json!({}),
    );
    let (_, _, octx) = context(ctx, &none).await?;
    let driver = infra(ctx, &octx)?;
    Ok(Some((driver, octx)))
}
