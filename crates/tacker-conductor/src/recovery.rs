//! Nothing stays in a transient state forever: what a conductor owned when it died (or
//! what an earlier incarnation of a conductor that came back under the same id owned) is
//! settled. At start, before READY, a conductor settles its own earlier incarnations'
//! work; every conductor periodically settles work of incarnations that are gone,
//! uploads that stalled, the content of deleted packages whose removal was missed, and
//! brings its cache to the ONBOARDED set.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use tacker_db::op_occs::{Runner, Running, Transition};
use tacker_db::packages::InFlight;
use tacker_domain::conductor::Conductor;
use tacker_domain::lcm::OperationState;
use tacker_domain::{Failure, ProblemDetails};
use tacker_rpc::proto::RunLcmOp;
use tokio_util::sync::CancellationToken;

use crate::cache::ensure_cached;
use crate::{Ctx, onboarding};

pub async fn run(ctx: Arc<Ctx>, stop: CancellationToken) {
    let period = ctx.onboarding.recovery_interval;
    crate::periodic::every(&ctx, period, stop, || async {
        if let Err(e) = sweep(&ctx).await {
            tracing::warn!(error = %e, "recovery sweep failed");
        }
        if ctx.is_ready()
            && let Err(e) = converge_cache(&ctx).await
        {
            tracing::warn!(error = %e, "cache convergence failed");
        }
        gauges(&ctx).await;
        prune_notifications(&ctx).await;
        prune_operations(&ctx).await;
        prune_alarms(&ctx).await;
        prune_reports(&ctx).await;
    })
    .await;
}

/// The live set's size and this cache's package count, for /metrics.
async fn gauges(ctx: &Ctx) {
    let Ok(members) = ctx.db.conductors().list().await else {
        return;
    };
    let now = chrono::Utc::now();
    let live = members
        .iter()
        .filter(|m| m.is_live(now, ctx.dead_after))
        .count();
    let cached = ctx.cache.list().map(|l| l.len()).unwrap_or(0);
    ctx.metrics.set_cluster(live, cached);
    if let Ok(n) = ctx.db.outbox().undelivered().await {
        ctx.metrics.set_undelivered(n);
    }
    if let Ok(counts) = ctx.db.op_occs().counts().await {
        ctx.metrics.set_occurrences(&counts);
    }
    if let Ok(n) = ctx.db.alarms().open_count().await {
        ctx.metrics.set_open_alarms(n);
    }
}

/// Deletes alarms cleared longer than `fm.alarm_retention` ago (a batch per sweep).
async fn prune_alarms(ctx: &Ctx) {
    let keep = ctx.fm.alarm_retention;
    if keep.is_zero() {
        return;
    }
    match ctx.db.alarms().prune_cleared(keep, 1000).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(pruned = n, "cleared alarms past their retention removed"),
        Err(e) => tracing::warn!(error = %e, "could not prune cleared alarms"),
    }
}

/// Deletes PM reports older than `pm.report_retention` (a batch per sweep).
async fn prune_reports(ctx: &Ctx) {
    let keep = ctx.pm.report_retention;
    if keep.is_zero() {
        return;
    }
    match ctx.db.pm_jobs().prune_reports(keep, 1000).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(pruned = n, "PM reports past their retention removed"),
        Err(e) => tracing::warn!(error = %e, "could not prune PM reports"),
    }
}

/// Deletes ended operation occurrences older than `lcm.op_retention` (a batch per
/// sweep).
async fn prune_operations(ctx: &Ctx) {
    let keep = ctx.lcm.op_retention;
    if keep.is_zero() {
        return;
    }
    match ctx.db.op_occs().prune_ended(keep, 1000).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(
            pruned = n,
            "ended operation occurrences past their retention removed"
        ),
        Err(e) => tracing::warn!(error = %e, "could not prune ended operation occurrences"),
    }
}

/// Deletes delivered notifications older than `lcm.notification_retention`, and drops
/// those undelivered past `lcm.notification_max_age` (a batch each per sweep, so a large
/// backlog of old rows goes over a few sweeps without a long lock).
async fn prune_notifications(ctx: &Ctx) {
    let max_age = ctx.lcm.notification_max_age;
    if !max_age.is_zero() {
        match ctx.db.outbox().expire_undelivered(max_age, 1000).await {
            Ok(expired) => {
                for (subscription, n) in expired {
                    tracing::warn!(subscription_id = %subscription, dropped = n, "notifications undelivered past lcm.notification_max_age dropped");
                }
            }
            Err(e) => tracing::warn!(error = %e, "could not expire undelivered notifications"),
        }
    }
    let keep = ctx.lcm.notification_retention;
    if keep.is_zero() {
        return;
    }
    match ctx.db.outbox().prune_delivered(keep, 1000).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(
            pruned = n,
            "delivered notifications past their retention removed"
        ),
        Err(e) => tracing::warn!(error = %e, "could not prune delivered notifications"),
    }
}

/// Whether work owned by `runner` (incarnation `incarnation`, since `since`) is lost.
fn lost(
    ctx: &Ctx,
    members: &[Conductor],
    runner: &str,
    incarnation: Option<&str>,
    since: chrono::DateTime<chrono::Utc>,
) -> bool {
    let now = chrono::Utc::now();
    !members
        .iter()
        .any(|m| m.id == runner && m.still_owns(incarnation, since, now, ctx.dead_after))
}

/// At start (registered, not READY): settles what earlier incarnations of this
/// conductor owned. Their onboardings fail ("coordinator restarted": back to CREATED,
/// content dropped from storage and caches), their operations end as a lost
/// conductor's do, their notification deliveries are released.
pub async fn settle_own(ctx: &Ctx) -> crate::Result<()> {
    let mine = |who: &Option<String>, inc: &Option<String>| {
        who.as_deref() == Some(ctx.id.as_str()) && inc.as_deref() != Some(ctx.incarnation.as_str())
    };
    let in_flight = ctx.db.packages().in_flight().await?;
    for p in in_flight
        .into_iter()
        .filter(|p| mine(&p.coordinator, &p.coordinator_incarnation))
    {
        let reason = format!(
            "coordinator restarted: conductor {} started again while the package was {}",
            ctx.id, p.state
        );
        tracing::warn!(package_id = %p.id, %reason, "settling an onboarding of an earlier incarnation");
        onboarding::fail(ctx, p.id, &Failure::internal(reason)).await;
    }
    let running = ctx.db.op_occs().in_progress().await?;
    for r in running
        .into_iter()
        .filter(|r| mine(&r.runner, &r.incarnation))
    {
        let detail = format!(
            "conductor {} restarted while the operation was {}",
            ctx.id, r.state
        );
        end_lost(ctx, &r, detail).await?;
    }
    // Notifications it was delivering are due again at once (not after the lease).
    let released = ctx.db.outbox().release_claims(&ctx.id).await?;
    if released > 0 {
        tracing::warn!(
            released,
            "released notification deliveries of an earlier incarnation"
        );
    }
    Ok(())
}

async fn sweep(ctx: &Ctx) -> crate::Result<()> {
    if !ctx.may_judge_liveness() {
        tracing::debug!("the database was just unreachable: heartbeats are judged later");
        return Ok(());
    }
    lost_operations(ctx).await?;
    release_lost_deliveries(ctx).await?;
    let in_flight = ctx.db.packages().in_flight().await?;
    let deleted = ctx
        .db
        .packages()
        .deleted_with_content(Duration::from_secs(60))
        .await?;
    if in_flight.is_empty() && deleted.is_empty() {
        return Ok(());
    }
    let members = ctx.db.conductors().list().await?;
    for p in in_flight {
        if let Some(reason) = abandoned(ctx, &members, &p) {
            tracing::warn!(package_id = %p.id, %reason, "recovering an abandoned onboarding");
            onboarding::fail(ctx, p.id, &Failure::internal(reason)).await;
        }
    }
    for id in deleted {
        onboarding::purge(ctx, id).await;
        ctx.db.packages().mark_purged(id).await?;
    }
    Ok(())
}

/// Releases the notification deliveries claimed by conductors that stopped heartbeating:
/// they are due again now, not when their lease (30 s) runs out, so the notifications
/// queued behind them for the same subscriber are not held up by a dead conductor.
async fn release_lost_deliveries(ctx: &Ctx) -> crate::Result<()> {
    let now = chrono::Utc::now();
    let lost: Vec<String> = ctx
        .db
        .conductors()
        .list()
        .await?
        .into_iter()
        .filter(|m| !m.is_live(now, ctx.dead_after))
        .map(|m| m.id)
        .collect();
    if lost.is_empty() {
        return Ok(());
    }
    let released = ctx.db.outbox().release_claims_of(&lost).await?;
    if released > 0 {
        tracing::warn!(conductors = ?lost, released, "released the notification deliveries of lost conductors");
    }
    Ok(())
}

/// Why an onboarding in flight is abandoned, if it is.
fn abandoned(ctx: &Ctx, members: &[Conductor], p: &InFlight) -> Option<String> {
    let now = chrono::Utc::now();
    match &p.coordinator {
        Some(c) => {
            // Work from before incarnations were recorded counts as owned since ever.
            let since = chrono::DateTime::<chrono::Utc>::MIN_UTC;
            lost(ctx, members, c, p.coordinator_incarnation.as_deref(), since).then(|| {
                format!(
                    "coordinator lost: conductor {c} stopped heartbeating or restarted while the package was {}",
                    p.state
                )
            })
        }
        None => {
            let stall = chrono::Duration::from_std(ctx.onboarding.stall_timeout)
                .unwrap_or(chrono::Duration::MAX);
            p.progress_at.filter(|t| now - *t > stall).map(|_| {
                format!(
                    "upload stalled: no progress for over {:?} while {} (uploader lost?)",
                    ctx.onboarding.stall_timeout, p.state
                )
            })
        }
    }
}

/// Operations whose runner is gone (not alive, or another incarnation now):
/// STARTING -> ROLLED_BACK, PROCESSING / ROLLING_BACK -> FAILED_TEMP, each notified.
/// Operations no conductor took are cast again (see [`recast_orphans`]).
async fn lost_operations(ctx: &Ctx) -> crate::Result<()> {
    let (running, orphans): (Vec<Running>, Vec<Running>) = ctx
        .db
        .op_occs()
        .in_progress()
        .await?
        .into_iter()
        .partition(|r| r.runner.is_some());
    recast_orphans(ctx, &orphans).await;
    if running.is_empty() {
        return Ok(());
    }
    let members = ctx.db.conductors().list().await?;
    for r in running {
        let Some(who) = r.runner.clone() else {
            continue;
        };
        if !lost(ctx, &members, &who, r.incarnation.as_deref(), r.since) {
            continue;
        }
        let detail = format!(
            "conductor {who} was lost while the operation was {}",
            r.state
        );
        end_lost(ctx, &r, detail).await?;
    }
    Ok(())
}

/// Casts again the operations in progress that no conductor has taken for `dead_after`:
/// their cast was lost (the broker restarted before it was delivered, or it was
/// dead-lettered after its handler failed twice while the database was away). Taking an
/// occurrence is exclusive ([`ops::claim`]), so a cast that was only slow, or cast by
/// several sweepers, runs it once. Each conductor casts one again at most once per
/// `dead_after`.
async fn recast_orphans(ctx: &Ctx, orphans: &[Running]) {
    let now = chrono::Utc::now();
    let wait = chrono::Duration::from_std(ctx.dead_after).unwrap_or(chrono::Duration::MAX);
    let due: Vec<&Running> = {
        let mut recast = ctx
            .recast
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        recast.retain(|id, _| orphans.iter().any(|r| r.id == *id));
        orphans
            .iter()
            .filter(|r| now - r.since > wait)
            .filter(|r| {
                let last = recast.get(&r.id);
                let due = last.is_none_or(|t| t.elapsed() > ctx.dead_after);
                if due {
                    recast.insert(r.id, std::time::Instant::now());
                }
                due
            })
            .collect()
    };
    for r in due {
        let (id, instance) = (r.id.to_string(), r.vnf_instance_id.to_string());
        tracing::warn!(op_occ_id = %id, state = %r.state, "no conductor took the operation; casting it again");
        let msg = RunLcmOp {
            op_occ_id: id.clone(),
        };
        let context = [("op_occ_id", id.as_str()), ("vnf_instance_id", &instance)];
        if let Err(e) = ctx.bus.cast(&msg, &context).await {
            tracing::warn!(op_occ_id = %id, error = %e, "could not cast it again; next sweep");
        }
    }
}

/// Ends an operation whose runner is lost.
async fn end_lost(ctx: &Ctx, r: &Running, detail: String) -> crate::Result<()> {
    tracing::warn!(op_occ_id = %r.id, %detail, "recovering an abandoned operation");
    let (to, release) = match r.state {
        OperationState::Starting => (OperationState::RolledBack, true),
        _ => (OperationState::FailedTemp, false),
    };
    let t = Transition {
        from: vec![r.state],
        to: Some(to),
        error: Some(Some(ProblemDetails::new(500, detail))),
        runner: Runner::Clear,
        release,
        ..Default::default()
    };
    let id = r.id;
    ctx.db.op_occs().transition(id, &t).await?;
    Ok(())
}

/// Brings this cache to the ONBOARDED set: missing packages are fetched, packages that
/// are neither ONBOARDED nor being onboarded are dropped (a drop fanned out while this
/// conductor was away, or a race with its start-up sync).
async fn converge_cache(ctx: &Ctx) -> crate::Result<()> {
    let onboarded = ctx.db.packages().onboarded().await?;
    let keep: HashSet<String> = onboarded.iter().map(|(id, _)| id.to_string()).collect();
    for (id, digest) in &onboarded {
        if !ctx.cache.holds(&id.to_string(), digest) {
            tracing::info!(package_id = %id, "fetching an ONBOARDED package missing from the cache");
            if let Err(f) = ensure_cached(ctx, *id, digest).await {
                tracing::warn!(package_id = %id, detail = %f.detail, "could not fetch it; retried next sweep");
            }
        }
    }
    for cached in ctx.cache.list()? {
        if keep.contains(&cached) {
            continue;
        }
        // Read again now: it may have been onboarded or be onboarding meanwhile.
        let Ok(id) = cached.parse::<uuid::Uuid>() else {
            continue;
        };
        let state = ctx.db.packages().state_including_deleted(id).await?;
        let stale = match state {
            None => true,
            Some((_, true)) => true,
            Some((s, false)) => s == tacker_domain::package::OnboardingState::Created,
        };
        if stale {
            tracing::info!(package_id = %cached, "dropping a package no longer ONBOARDED from the cache");
            crate::cache::settle_fill(ctx, &cached).await;
            ctx.cache.remove(&cached).await?;
        }
    }
    Ok(())
}
