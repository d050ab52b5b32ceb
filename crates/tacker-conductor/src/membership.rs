//! Registration, heartbeats and state in the `conductors` table.

use std::sync::Arc;
use std::time::Duration;

use tacker_db::conductors;
use tacker_domain::conductor::ConductorState;
use tokio_util::sync::CancellationToken;

use crate::{Ctx, Result};

pub async fn register(ctx: &Ctx, host: &str) -> Result<()> {
    let (id, host, incarnation) = (ctx.id.clone(), host.to_owned(), ctx.incarnation.clone());
    ctx.db
        .run(move |c| conductors::register(c, &id, &host, &incarnation))
        .await?;
    Ok(())
}

pub async fn set_state(ctx: &Ctx, state: ConductorState) -> Result<()> {
    let id = ctx.id.clone();
    ctx.db
        .run(move |c| conductors::set_state(c, &id, state))
        .await?;
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
        let id = ctx.id.clone();
        let beat = ctx.db.run(move |c| conductors::heartbeat(c, &id)).await;
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
