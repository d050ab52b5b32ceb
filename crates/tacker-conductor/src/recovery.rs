//! Nothing stays in a transient state forever: every conductor periodically fails
//! onboardings whose coordinator is no longer live or whose upload stalled, and purges
//! the content of deleted packages whose removal was missed.

use std::sync::Arc;
use std::time::Duration;

use tacker_db::{conductors, packages};
use tacker_domain::ProblemDetails;
use tokio_util::sync::CancellationToken;

use crate::{Ctx, onboarding};

pub async fn run(ctx: Arc<Ctx>, stop: CancellationToken) {
    let mut tick = tokio::time::interval(ctx.onboarding.recovery_interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        if !ctx.is_ready() {
            continue;
        }
        if let Err(e) = sweep(&ctx).await {
            tracing::warn!(error = %e, "recovery sweep failed");
        }
    }
}

async fn sweep(ctx: &Ctx) -> crate::Result<()> {
    let in_flight = ctx.db.run(packages::in_flight).await?;
    let deleted = ctx
        .db
        .run(|c| packages::deleted_with_content(c, Duration::from_secs(60)))
        .await?;
    if in_flight.is_empty() && deleted.is_empty() {
        return Ok(());
    }
    let members = ctx.db.run(conductors::list).await?;
    let now = chrono::Utc::now();
    let dead_after = chrono::Duration::from_std(ctx.dead_after).unwrap_or(chrono::Duration::MAX);
    let stall =
        chrono::Duration::from_std(ctx.onboarding.stall_timeout).unwrap_or(chrono::Duration::MAX);
    for p in in_flight {
        let reason = match &p.coordinator {
            Some(c) => {
                let alive = members
                    .iter()
                    .any(|m| &m.id == c && now - m.last_heartbeat < dead_after);
                (!alive).then(|| format!("coordinator lost: conductor {c} stopped heartbeating while the package was {}", p.state))
            }
            None => p.progress_at.filter(|t| now - *t > stall).map(|_| {
                format!(
                    "upload stalled: no progress for over {:?} while {} (uploader lost?)",
                    ctx.onboarding.stall_timeout, p.state
                )
            }),
        };
        if let Some(reason) = reason {
            tracing::warn!(package_id = %p.id, %reason, "recovering an abandoned onboarding");
            onboarding::fail(ctx, p.id, ProblemDetails::new(500, reason)).await;
        }
    }
    for id in deleted {
        onboarding::purge(ctx, id).await;
        ctx.db.run(move |c| packages::mark_purged(c, id)).await?;
    }
    Ok(())
}
