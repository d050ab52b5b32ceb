//! Delivers queued notifications: the oldest undelivered one of each subscription, so the
//! order per subscription (and per operation occurrence) is kept; retries with backoff
//! until the subscriber takes it, across conductor restarts (the queue is the database).

use std::sync::Arc;
use std::time::Duration;

use tacker_db::outbox;
use tacker_domain::lcm::SubscriptionAuth;
use tokio_util::sync::CancellationToken;

use crate::Ctx;

const LEASE: Duration = Duration::from_secs(30);

pub async fn run(ctx: Arc<Ctx>, stop: CancellationToken) {
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        if let Err(e) = sweep(&ctx).await {
            tracing::debug!(error = %e, "notification sweep failed");
        }
    }
}

async fn sweep(ctx: &Arc<Ctx>) -> crate::Result<()> {
    let heads = ctx.db.outbox().due_heads().await?;
    let sends = heads.into_iter().map(|p| {
        let ctx = ctx.clone();
        async move {
            // Deliver this subscription's queue in order, as far as it goes now.
            let mut next = Some(p);
            while let Some(p) = next.take() {
                let seq = p.seq;
                if !ctx.db.outbox().claim(seq, &ctx.id, LEASE).await.unwrap_or(false) {
                    return;
                }
                let sid = p.subscription_id;
                let Some(mut sub) = subscriber(&ctx, sid).await else { return };
                if let Some(a) = sub.authentication.as_mut()
                    && let Err(e) = a.open(&mut |s| ctx.keys.open(s))
                {
                    return tracing::error!(subscription_id = %sid, error = %e, "cannot open the subscription's credentials");
                }
                let body = render(&ctx, &p, &sub);
                match ctx.notify.deliver(&sub.callback_uri, sub.authentication.as_ref(), &body).await {
                    Ok(()) => {
                        ctx.metrics.notification(true);
                        let _ = ctx.db.outbox().delivered(seq).await;
                        let heads = ctx.db.outbox().due_heads().await.unwrap_or_default();
                        next = heads.into_iter().find(|h| h.subscription_id == sid);
                    }
                    Err(e) => {
                        ctx.metrics.notification(false);
                        let backoff = Duration::from_millis(250 * 2u64.saturating_pow(p.attempts.clamp(0, 16) as u32))
                            .min(ctx.lcm.notification_max_backoff);
                        tracing::debug!(subscription_id = %sid, error = %e, retry_in = ?backoff, "notification not delivered");
                        let err = e.to_string();
                        let _ = ctx.db.outbox().failed(seq, &err, backoff).await;
                    }
                }
            }
        }
    });
    futures::future::join_all(sends).await;
    Ok(())
}

/// Where a subscription's notifications go, and the base their links are written under.
struct Subscriber {
    callback_uri: String,
    authentication: Option<SubscriptionAuth>,
    /// `<public url>/vnflcm/<version>`, `<public url>/vnfpkgm/v1` or
    /// `<public url>/vnffm/v1`.
    base: String,
}

/// The LCM, package or FM subscription `id`.
async fn subscriber(ctx: &Ctx, id: uuid::Uuid) -> Option<Subscriber> {
    if let Ok(Some(s)) = ctx.db.subscriptions().get(id).await {
        return Some(Subscriber {
            callback_uri: s.callback_uri,
            authentication: s.authentication,
            base: s.api_version.base(&ctx.lcm.public_url),
        });
    }
    let root = ctx.lcm.public_url.trim_end_matches('/');
    if let Ok(Some(s)) = ctx.db.pkgm_subscriptions().get(id).await {
        return Some(Subscriber {
            callback_uri: s.callback_uri,
            authentication: s.authentication,
            base: format!("{root}/vnfpkgm/v1"),
        });
    }
    if let Ok(Some(s)) = ctx.db.fm_subscriptions().get(id).await {
        return Some(Subscriber {
            callback_uri: s.callback_uri,
            authentication: s.authentication,
            base: format!("{root}/vnffm/v1"),
        });
    }
    // PM jobs and thresholds are their own subscriptions.
    if let Ok(Some(j)) = ctx.db.pm_jobs().get(id).await {
        return Some(Subscriber {
            callback_uri: j.callback_uri,
            authentication: j.authentication,
            base: format!("{root}/vnfpm/v2"),
        });
    }
    let t = ctx.db.pm_thresholds().get(id).await.ok().flatten()?;
    Some(Subscriber {
        callback_uri: t.callback_uri,
        authentication: t.authentication,
        base: format!("{root}/vnfpm/v2"),
    })
}

/// The body delivered: rendered from the stored facts, links under the configured API
/// base (of the subscription's API and version; rows of older versions were stored
/// rendered).
fn render(ctx: &Ctx, p: &outbox::Pending, sub: &Subscriber) -> serde_json::Value {
    let lcm = || tacker_domain::lcm::ApiVersion::V2.base(&ctx.lcm.public_url);
    match &p.payload {
        outbox::Stored::Fm(n) => n.render(&sub.base, &lcm(), p.subscription_id),
        outbox::Stored::PmReport(n) => n.render(&sub.base, &lcm()),
        outbox::Stored::Crossing(n) => n.render(&sub.base, &lcm()),
        outbox::Stored::Facts(n) => n.render(&sub.base, p.subscription_id),
        outbox::Stored::Package(n) => n.render(&sub.base, p.subscription_id),
        outbox::Stored::Rendered(body) => body.clone(),
    }
}
