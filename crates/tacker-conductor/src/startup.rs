//! A conductor's way to READY: its cache synced with the onboarded packages (retried
//! while the database or storage is away), READY recorded, then a catch-up sync for
//! packages that onboarded meanwhile.

use std::sync::Arc;
use std::time::Duration;

use tacker_domain::conductor::ConductorState;
use tokio_util::sync::CancellationToken;

use crate::{Ctx, cache_sync, membership};

/// Start-up work (cache sync), then READY, then a catch-up sync for packages that
/// onboarded meanwhile. False when stopped before READY.
pub async fn run(ctx: &Arc<Ctx>, stop: &CancellationToken) -> bool {
    let mut delay = Duration::from_millis(200);
    loop {
        match cache_sync::run(ctx).await {
            Ok(()) => break,
            Err(e) => {
                ctx.metrics.sync_failed();
                tracing::warn!(error = %e, retry_in = ?delay, "cache sync failed; staying SYNCING");
            }
        }
        tokio::select! {
            _ = stop.cancelled() => return false,
            _ = tokio::time::sleep(delay) => {}
        }
        delay = (delay * 2).min(Duration::from_secs(10));
    }
    loop {
        match membership::set_state(ctx, ConductorState::Ready).await {
            Ok(()) => break,
            Err(e) => tracing::warn!(error = %e, "cannot record READY; retrying"),
        }
        tokio::select! {
            _ = stop.cancelled() => return false,
            _ = tokio::time::sleep(Duration::from_millis(500)) => {}
        }
    }
    ctx.set_ready(true);
    tracing::info!(conductor_id = %ctx.id, "READY");
    if let Err(e) = cache_sync::run(ctx).await {
        tracing::warn!(error = %e, "catch-up cache sync failed; packages are fetched on demand");
    }
    true
}
