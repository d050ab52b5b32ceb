//! The closed loop: every `fm.loop_interval`, the automatic work alerts asked for
//! ([`tacker_db::auto_heals`], [`tacker_db::auto_scales`]) that is due becomes
//! automatic occurrences (`isAutomaticInvocation: true`), cast to a conductor like any
//! other. Every conductor runs the pass; taking the work and creating the occurrence is
//! one transaction, so each starts once. While another operation holds the instance,
//! or within `fm.cooldown` of the end of its last automatic one, the work waits (and
//! more gathers); an occurrence whose cast is lost is cast again by recovery.

mod heal;
pub mod reconcile;
mod scale;

use std::sync::Arc;

use tacker_domain::lcm::OpOcc;
use tacker_rpc::proto::RunLcmOp;
use tokio_util::sync::CancellationToken;

use crate::Ctx;

pub async fn run(ctx: Arc<Ctx>, stop: CancellationToken) {
    let period = ctx.fm.loop_interval;
    crate::periodic::every(&ctx, period, stop, || pass(&ctx)).await;
}

/// One pass: the heals, then the scale steps, that are due.
async fn pass(ctx: &Ctx) {
    if let Err(e) = heal::pass(ctx).await {
        tracing::warn!(error = %e, "auto-heal pass failed");
    }
    if let Err(e) = scale::pass(ctx).await {
        tracing::warn!(error = %e, "auto-scale pass failed");
    }
}

/// Waits until the earliest automatic work pending for `instance` is due, then runs a
/// pass (`ClosedLoopDue`). Work that must wait longer (the instance busy, its cool-down)
/// is left to the periodic passes.
pub async fn when_due(ctx: Arc<Ctx>, instance: uuid::Uuid) {
    let next = ctx
        .db
        .run(move |c| {
            let heal = tacker_db::auto_heals::next_due(c, instance)?;
            let scale = tacker_db::auto_scales::next_due(c, instance)?;
            Ok(heal.into_iter().chain(scale).min())
        })
        .await;
    let due = match next {
        Ok(Some(due)) => due,
        Ok(None) => return,
        Err(e) => {
            tracing::warn!(error = %e, vnf_instance_id = %instance, "closed loop: pending work unreadable");
            return;
        }
    };
    let wait = (due - chrono::Utc::now().naive_utc())
        .to_std()
        .unwrap_or_default();
    tokio::time::sleep(wait).await;
    pass(&ctx).await;
}

/// Casts the occurrence; when the bus fails, recovery casts it again later.
async fn cast(ctx: &Ctx, op: &OpOcc) {
    let (id, instance) = (op.id.to_string(), op.vnf_instance_id.to_string());
    let msg = RunLcmOp {
        op_occ_id: id.clone(),
    };
    let context = [("op_occ_id", id.as_str()), ("vnf_instance_id", &instance)];
    if let Err(e) = ctx.bus.cast(&msg, &context).await {
        tracing::warn!(op_occ_id = %id, error = %e, "could not cast the automatic operation; recovery casts it again");
    }
}
