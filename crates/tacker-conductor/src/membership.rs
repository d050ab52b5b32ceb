//! Registration, heartbeats and state in the `conductors` table.

use std::sync::Arc;
use std::time::Duration;

use tacker_domain::conductor::ConductorState;
use tokio_util::sync::CancellationToken;

use crate::{Ctx, Result};

pub async fn register(ctx: &Ctx, host: &str) -> Result<()> {
    ctx.db
        .conductors()
        .register(&ctx.id, host, &ctx.incarnation)
        .await?;
    Ok(())
}

pub async fn set_state(ctx: &Ctx, state: ConductorState) -> Result<()> {
    ctx.db.conductors().set_state(&ctx.id, state).await?;
    Ok(())
}

/// Beats every `interval` until `stop`; re-registers if its row disappeared.
pub async fn heartbeat_loop(
    ctx: Arc<Ctx>,
    host: String,
    interval: Duration,
    stop: CancellationToken,
) {
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        let beat = ctx.db.conductors().heartbeat(&ctx.id).await;
        ctx.heartbeat_result(beat.is_ok());
        match beat {
            Ok(true) => {}
            Ok(false) => {
                tracing::warn!(conductor_id = %ctx.id, "membership row missing; registering again");
                let state = if ctx.is_ready() {
                    ConductorState::Ready
                } else {
                    ConductorState::Syncing
                };
                if register(&ctx, &host).await.is_ok() {
                    let _ = set_state(&ctx, state).await;
                }
            }
            Err(e) => tracing::warn!(error = %e, "heartbeat failed"),
        }
    }
}
