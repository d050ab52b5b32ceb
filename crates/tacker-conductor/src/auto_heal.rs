//! The closed loop's heal: every `fm.loop_interval`, the VNFCs auto-heal alerts asked to
//! heal ([`tacker_db::auto_heals`]) that are due become one automatic HEAL occurrence
//! per instance (`isAutomaticInvocation: true`), cast to a conductor like any other.
//! Every conductor runs the pass; taking the VNFCs and creating the occurrence is one
//! transaction, so each heal starts once. While another operation holds the instance,
//! or within `fm.cooldown` of the end of its last automatic one, the VNFCs wait (and
//! more gather); an occurrence whose cast is lost is cast again by recovery.

use std::sync::Arc;

use serde_json::json;
use tacker_db::auto_heals::{self, Start};
use tacker_domain::lcm::request::HealRequest;
use tacker_domain::lcm::{OpOcc, OperationParams, OperationState, VnfInstance};
use tacker_rpc::proto::RunLcmOp;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::Ctx;

pub async fn run(ctx: Arc<Ctx>, stop: CancellationToken) {
    let period = ctx.fm.loop_interval;
    crate::periodic::every(&ctx, period, stop, || async {
        if let Err(e) = pass(&ctx).await {
            tracing::warn!(error = %e, "auto-heal pass failed");
        }
    })
    .await;
}

async fn pass(ctx: &Ctx) -> crate::Result<()> {
    ctx.db.run(auto_heals::settle).await?;
    for id in ctx.db.run(auto_heals::due).await? {
        let cooldown = ctx.fm.cooldown;
        match ctx
            .db
            .run(move |c| auto_heals::start(c, id, cooldown, heal))
            .await?
        {
            Start::Started(op) => {
                ctx.metrics.automatic_started(op.operation.as_str());
                tracing::info!(vnf_instance_id = %id, op_occ_id = %op.id, vnfcs = ?vnfcs_of(&op), "automatic heal started");
                cast(ctx, &op).await;
            }
            Start::Busy => {
                tracing::debug!(vnf_instance_id = %id, "automatic heal waits: another operation holds the instance");
            }
            Start::CoolingDown => {
                tracing::debug!(vnf_instance_id = %id, "automatic heal waits for the cool-down");
            }
            Start::Nothing => {}
        }
    }
    Ok(())
}

/// The automatic HEAL of `vnfcs` of `i`.
fn heal(i: &VnfInstance, vnfcs: Vec<String>) -> OpOcc {
    let cause = "auto-heal: the monitoring system reported these VNFCs failed".to_owned();
    let body = json!({"vnfcInstanceId": vnfcs, "cause": cause});
    let request = HealRequest {
        vnfc_instance_id: vnfcs,
        cause: Some(cause),
        ..Default::default()
    };
    let mut op = OpOcc::new(
        Uuid::new_v4(),
        i.id,
        OperationState::Starting,
        OperationParams::Heal(request),
        body,
    );
    op.is_automatic_invocation = true;
    op
}

fn vnfcs_of(op: &OpOcc) -> &[String] {
    match &op.request {
        OperationParams::Heal(h) => &h.vnfc_instance_id,
        _ => &[],
    }
}

/// Casts the occurrence; when the bus fails, recovery casts it again later.
async fn cast(ctx: &Ctx, op: &OpOcc) {
    let (id, instance) = (op.id.to_string(), op.vnf_instance_id.to_string());
    let msg = RunLcmOp {
        op_occ_id: id.clone(),
    };
    let context = [("op_occ_id", id.as_str()), ("vnf_instance_id", &instance)];
    if let Err(e) = ctx.bus.cast(&msg, &context).await {
        tracing::warn!(op_occ_id = %id, error = %e, "could not cast the automatic heal; recovery casts it again");
    }
}
