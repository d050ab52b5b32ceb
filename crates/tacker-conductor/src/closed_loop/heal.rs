//! Automatic heals: the VNFCs auto-heal alerts named, one HEAL per instance.

use serde_json::json;
use tacker_db::auto_heals::Start;
use tacker_domain::lcm::request::HealRequest;
use tacker_domain::lcm::{OpOcc, OperationParams, OperationState, VnfInstance};
use uuid::Uuid;

use crate::Ctx;

pub(super) async fn pass(ctx: &Ctx) -> crate::Result<()> {
    ctx.db.auto_heals().settle().await?;
    for id in ctx.db.auto_heals().due().await? {
        let cooldown = ctx.fm.cooldown;
        match ctx.db.auto_heals().start(id, cooldown, heal).await? {
            Start::Started(op) => {
                ctx.metrics.automatic_started(op.operation.as_str());
                tracing::info!(vnf_instance_id = %id, op_occ_id = %op.id, vnfcs = ?vnfcs_of(&op), "automatic heal started");
                super::cast(ctx, &op).await;
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
