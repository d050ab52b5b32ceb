//! The `Vnflcm` hooks of an operation: which management driver runs each (configured by
//! artifact, `[mgmt] drivers`), checked before the grant, run around the infra step.

use std::sync::Arc;
use std::time::Instant;

use tacker_domain::Failure;
use tacker_domain::lcm::driver::{DriverError, MgmtDriver, OpContext};
use tacker_domain::mgmt::{DriverName, unmapped};
use tacker_domain::vnfd::PackageModel;

use crate::Ctx;

/// The title of every hook failure.
pub const HOOK_FAILED: &str = "Mgmt driver execution failed";

/// A hook failure as the occurrence records it.
fn failed(hook: &str, driver: &DriverName, e: DriverError) -> Failure {
    let title = e.title.clone().unwrap_or_else(|| HOOK_FAILED.to_owned());
    Failure::new(e.status, format!("{hook} ({driver}): {}", e.detail)).with_title(title)
}

fn driver(ctx: &Ctx, name: &DriverName) -> Result<Arc<dyn MgmtDriver>, Failure> {
    ctx.lcm.drivers.mgmt.get(name).cloned().ok_or_else(|| {
        Failure::unprocessable(format!(
            "management driver {name} is not available on conductor {}",
            ctx.id
        ))
    })
}

/// Checks the operation's hooks before the grant: each has a driver, the request's
/// driver parameters are right (as the API checked), and each driver's own check
/// (what needs the VIM or the package) passes.
pub async fn check(ctx: &Ctx, octx: &OpContext, model: &PackageModel) -> Result<(), Failure> {
    let Some(flavour) = octx.vnfd.flavour(&octx.flavour_id) else {
        return Ok(());
    };
    let mapping = &ctx.lcm.drivers.mapping;
    mapping.check_request(model, flavour, &octx.op.request, &octx.instantiate_params)?;
    for (h, name) in mapping.hooks_of(flavour, octx.op.operation)? {
        let d = driver(ctx, &name)?;
        d.check(&h.name, octx)
            .await
            .map_err(|e| failed(&h.name, &name, e))?;
    }
    Ok(())
}

/// Runs the `<operation>_<phase>` hook of the flavour, if the VNFD defines one.
pub async fn run(ctx: &Ctx, octx: &OpContext, phase: &str) -> Result<(), Failure> {
    let name = format!("{}_{phase}", octx.op.operation.hook_prefix());
    let Some(flavour) = octx.vnfd.flavour(&octx.flavour_id) else {
        return Ok(());
    };
    let Some(h) = flavour.hook(&name) else {
        return Ok(());
    };
    let dn = ctx
        .lcm
        .drivers
        .mapping
        .driver_of(h)
        .ok_or_else(|| unmapped(h))?
        .clone();
    let d = driver(ctx, &dn)?;
    tracing::info!(op_occ_id = %octx.op.id, hook = %name, driver = %dn, "running management driver");
    let started = Instant::now();
    let result = d.run_hook(&name, octx).await;
    let took = started.elapsed();
    ctx.metrics
        .hook_ran(&dn.to_string(), &name, result.is_ok(), took);
    match result {
        Ok(()) => {
            tracing::info!(op_occ_id = %octx.op.id, hook = %name, driver = %dn, took_ms = took.as_millis() as u64, "hook done");
            Ok(())
        }
        Err(e) => {
            tracing::warn!(op_occ_id = %octx.op.id, hook = %name, driver = %dn, detail = %e.detail, "hook failed");
            Err(failed(&name, &dn, e))
        }
    }
}
