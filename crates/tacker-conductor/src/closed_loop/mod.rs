//! The closed loop: every `fm.loop_interval`, the automatic work alerts asked for
//! ([`tacker_db::auto_heals`], [`tacker_db::auto_scales`]) that is due becomes
//! automatic occurrences (`isAutomaticInvocation: true`), cast to a conductor like any
//! other. Every conductor runs the pass; taking the work and creating the occurrence is
//! one transaction, so each starts once. While another operation holds the instance,
//! or within `fm.cooldown` of the end of its last automatic one, the work waits (and
//! more gathers); an occurrence whose cast is lost is cast again by recovery.

mod heal;
mod scale;

use std::sync::Arc;

use tacker_domain::lcm::OpOcc;
use tacker_rpc::proto::RunLcmOp;
use tokio_util::sync::CancellationToken;

use crate::Ctx;

pub async fn run(ctx: Arc<Ctx>, stop: CancellationToken) {
    let period = ctx.fm.loop_interval;
    crate::periodic::every(&ctx, period, stop, || async {
        if let Err(e) = heal::pass(&ctx).await {
            tracing::warn!(error = %e, "auto-heal pass failed");
        }
        if let Err(e) = scale::pass(&ctx).await {
            tracing::warn!(error = %e, "auto-scale pass failed");
        }
    })
    .await;
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
