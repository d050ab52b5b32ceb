//! Nothing stays in a transient state forever: every conductor periodically fails
//! onboardings whose coordinator is no longer live or whose upload stalled, and purges
//! the content of deleted packages whose removal was missed.

use std::sync::Arc;
use std::time::Duration;

use tacker_db::{conductors, packages};
use tacker_domain::{Failure, ProblemDetails};
use tokio_util::sync::CancellationToken;

use crate::{Ctx, onboarding};

pub async fn run(ctx: Arc<Ctx>, stop: CancellationToken) {
    let period = ctx.onboarding.recovery_interval;
    crate::periodic::every(&ctx, period, stop, || async {
        if let Err(e) = sweep(&ctx).await {
            tracing::warn!(error = %e, "recovery sweep failed");
        }
        gauges(&ctx).await;
    })
    .await;
}

/// The live set's size and this cache's package count, for /metrics.
async fn gauges(ctx: &Ctx) {
    let Ok(members) = ctx.db.run(conductors::list).await else {
        return;
    };
    let now = chrono::Utc::now();
    let live = members
        .iter()
        .filter(|m| m.is_live(now, ctx.dead_after))
        .count();
    let cached = ctx.cache.list().map(|l| l.len()).unwrap_or(0);
    ctx.metrics.set_cluster(live, cached);
}

async fn sweep(ctx: &Ctx) -> crate::Result<()> {
    lost_operations(ctx).await?;
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
    let stall =
        chrono::Duration::from_std(ctx.onboarding.stall_timeout).unwrap_or(chrono::Duration::MAX);
    for p in in_flight {
        let reason = match &p.coordinator {
            Some(c) => {
                let alive = members
                    .iter()
                    .any(|m| &m.id == c && m.is_alive(now, ctx.dead_after));
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
            onboarding::fail(ctx, p.id, &Failure::internal(reason)).await;
        }
    }
    for id in deleted {
        onboarding::purge(ctx, id).await;
        ctx.db.run(move |c| packages::mark_purged(c, id)).await?;
    }
    Ok(())
}

/// Operations whose conductor is gone (not live, or restarted since it took them):
/// STARTING -> ROLLED_BACK, PROCESSING / ROLLING_BACK -> FAILED_TEMP, each notified.
async fn lost_operations(ctx: &Ctx) -> crate::Result<()> {
    use tacker_db::op_occs::{self as ops, Runner, Transition};
    use tacker_domain::lcm::OperationState;
    let running = ctx.db.run(ops::in_progress).await?;
    let running: Vec<_> = running
        .into_iter()
        .filter(|(_, _, who)| who.is_some())
        .collect();
    if running.is_empty() {
        return Ok(());
    }
    let members = ctx.db.run(conductors::list).await?;
    let now = chrono::Utc::now();
    for (id, state, who) in running {
        let Some(who) = who else { continue };
        let Some(op) = ctx.db.run(move |c| ops::get(c, id)).await? else {
            continue;
        };
        let member = members.iter().find(|m| m.id == who);
        let lost = match member {
            None => true,
            Some(m) => !m.is_alive(now, ctx.dead_after) || m.started_at > op.state_entered_time,
        };
        if !lost {
            continue;
        }
        let detail = format!("conductor {who} was lost while the operation was {state}");
        tracing::warn!(op_occ_id = %id, %detail, "recovering an abandoned operation");
        let (to, release) = match state {
            OperationState::Starting => (OperationState::RolledBack, true),
            _ => (OperationState::FailedTemp, false),
        };
        let t = Transition {
            from: vec![state],
            to: Some(to),
            error: Some(Some(ProblemDetails::new(500, detail))),
            runner: Runner::Clear,
            release,
            ..Default::default()
        };
        ctx.db.run(move |c| ops::transition(c, id, &t)).await?;
    }
    Ok(())
}
