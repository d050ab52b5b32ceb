//! Automatic scale steps: one SCALE of one step per instance at a time, within the
//! aspect's limits. A step beyond them (or of an aspect the VNFD lacks) is dropped and
//! raises a WARNING alarm naming why (one per aspect and direction), cleared when a
//! later automatic step of that aspect starts: the loop does not turn into failed
//! operations.

use tacker_db::alarms;
use tacker_db::auto_scales::Start;
use tacker_domain::fm::Alarm;
use tacker_domain::lcm::request::{ScaleRequest, ScaleType};
use tacker_domain::lcm::{OpOcc, OperationParams, OperationState, VnfInstance};
use uuid::Uuid;

use crate::Ctx;

fn direction(d: ScaleType) -> &'static str {
    match d {
        ScaleType::ScaleOut => "SCALE_OUT",
        ScaleType::ScaleIn => "SCALE_IN",
    }
}

/// The fingerprint of the alarm saying steps of `aspect` in `d` are refused.
fn refused_fingerprint(aspect: &str, d: ScaleType) -> String {
    format!("auto-scale:{aspect}:{}", direction(d))
}

pub(super) async fn pass(ctx: &Ctx) -> crate::Result<()> {
    ctx.db.auto_scales().settle().await?;
    for id in ctx.db.auto_scales().due().await? {
        let cooldown = ctx.fm.cooldown;
        match ctx.db.auto_scales().start(id, cooldown, scale).await? {
            Start::Started(op) => {
                ctx.metrics.automatic_started(op.operation.as_str());
                if let OperationParams::Scale(r) = &op.request {
                    tracing::info!(vnf_instance_id = %id, op_occ_id = %op.id, aspect_id = %r.aspect_id, direction = direction(r.kind), "automatic scale started");
                    let aspect = r.aspect_id.clone();
                    let now = chrono::Utc::now();
                    ctx.db
                        .run(move |c| {
                            for d in [ScaleType::ScaleOut, ScaleType::ScaleIn] {
                                alarms::clear(c, id, &refused_fingerprint(&aspect, d), now)?;
                            }
                            Ok(())
                        })
                        .await?;
                }
                super::cast(ctx, &op).await;
            }
            Start::Refused(aspect, d, why) => {
                tracing::warn!(vnf_instance_id = %id, aspect_id = %aspect, direction = direction(d), reason = %why, "automatic scale refused");
                let Some(i) = ctx.db.instances().get(id).await? else {
                    continue;
                };
                let cause = format!(
                    "automatic {} of aspect {aspect} refused: {why}",
                    direction(d)
                );
                let alarm = Alarm::of_vnfm(
                    &i,
                    refused_fingerprint(&aspect, d),
                    cause,
                    chrono::Utc::now(),
                );
                ctx.db.alarms().raise(&alarm).await?;
            }
            Start::Busy => {
                tracing::debug!(vnf_instance_id = %id, "automatic scale waits: another operation holds the instance");
            }
            Start::CoolingDown => {
                tracing::debug!(vnf_instance_id = %id, "automatic scale waits for the cool-down");
            }
            Start::Nothing => {}
        }
    }
    Ok(())
}

/// The automatic SCALE of `r` on `i`.
fn scale(i: &VnfInstance, r: ScaleRequest) -> OpOcc {
    let body =
        serde_json::json!({"type": direction(r.kind), "aspectId": r.aspect_id, "numberOfSteps": 1});
    let mut op = OpOcc::new(
        Uuid::new_v4(),
        i.id,
        OperationState::Starting,
        OperationParams::Scale(r),
        body,
    );
    op.is_automatic_invocation = true;
    op
}
