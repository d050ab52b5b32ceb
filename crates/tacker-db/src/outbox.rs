//! `notification_outbox`: notifications written with the state change they report,
//! delivered by conductors in order per subscription, retried until delivered.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use serde_json::Value;
use tacker_domain::lcm::{Notification, VnfInstance};
use uuid::Uuid;

use crate::schema::notification_outbox::{self, dsl};
use crate::{DbConnection, Result, json_text, now, subscriptions};

#[derive(Debug, Insertable)]
#[diesel(table_name = notification_outbox)]
struct NewRow {
    subscription_id: String,
    notification_id: String,
    payload: String,
    next_attempt_at: NaiveDateTime,
    created_at: NaiveDateTime,
}

/// Queues `n` (under a notification id of its own) for every subscription of the
/// instance's tenant (or of none) whose creator sees the instance (vendor, areas) and
/// whose filter passes.
pub(crate) fn enqueue_matching(
    c: &mut DbConnection,
    n: &Notification,
    instance: &VnfInstance,
) -> Result<()> {
    let op = n.op.as_ref().map(|o| (o.operation, o.state));
    let subs = subscriptions::list(c)?;
    // VIM areas are read only when a subscription is confined to areas.
    let areas = if subs.iter().any(|(s, _)| !s.confinement.areas.is_empty()) {
        crate::vims::areas(c)?
    } else {
        tacker_domain::scope::VimAreas::default()
    };
    for (s, _) in subs {
        if !s.may_hear_of(instance, &areas) || !s.filter.matches(n.kind, instance, op) {
            continue;
        }
        let mine = n.renewed();
        push(c, s.id, mine.id, &json_text(&mine))?;
    }
    Ok(())
}

/// Queues one notification (`payload`, its facts) for `subscription`.
pub(crate) fn push(
    c: &mut DbConnection,
    subscription: Uuid,
    notification: Uuid,
    payload: &str,
) -> Result<()> {
    let t = now();
    diesel::insert_into(notification_outbox::table)
        .values(NewRow {
            subscription_id: subscription.to_string(),
            notification_id: notification.to_string(),
            payload: payload.to_owned(),
            next_attempt_at: t,
            created_at: t,
        })
        .execute(c)?;
    Ok(())
}

/// A notification waiting for delivery.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// Its place in the outbox.
    pub seq: i64,
    /// Whom it is for.
    pub subscription_id: Uuid,
    /// What it reports (rows written before notifications were stored as facts hold
    /// the rendered body instead: [`Stored::Rendered`]).
    pub payload: Stored,
    /// Attempts so far.
    pub attempts: i32,
}

/// A queued notification as stored.
#[derive(Debug, Clone, PartialEq)]
pub enum Stored {
    /// Facts, rendered at delivery.
    Facts(Box<Notification>),
    /// Package notification facts, rendered at delivery.
    Package(Box<tacker_domain::pkgm::PkgFacts>),
    /// FM notification facts, rendered at delivery.
    Fm(Box<tacker_domain::fm::notification::FmFacts>),
    /// A PM report's notification, rendered at delivery.
    PmReport(Box<tacker_domain::pm::report::ReportFacts>),
    /// A threshold crossing's notification, rendered at delivery.
    Crossing(Box<tacker_domain::pm::threshold::CrossingFacts>),
    /// A body rendered when it was queued (rows of older versions).
    Rendered(Value),
}

impl Stored {
    fn parse(text: &str) -> serde_json::Result<Self> {
        let v: Value = serde_json::from_str(text)?;
        if let Ok(n) = serde_json::from_value::<Notification>(v.clone()) {
            return Ok(Stored::Facts(Box::new(n)));
        }
        if let Ok(p) = serde_json::from_value::<tacker_domain::pkgm::PkgFacts>(v.clone()) {
            return Ok(Stored::Package(Box::new(p)));
        }
        if let Ok(f) = serde_json::from_value::<tacker_domain::fm::notification::FmFacts>(v.clone())
        {
            return Ok(Stored::Fm(Box::new(f)));
        }
        if let Ok(f) = serde_json::from_value::<tacker_domain::pm::report::ReportFacts>(v.clone()) {
            return Ok(Stored::PmReport(Box::new(f)));
        }
        Ok(
            match serde_json::from_value::<tacker_domain::pm::threshold::CrossingFacts>(v.clone()) {
                Ok(f) => Stored::Crossing(Box::new(f)),
                Err(_) => Stored::Rendered(v),
            },
        )
    }
}

/// The sequence numbers of the oldest undelivered notification of every subscription,
/// due or not (by the pending index).
pub fn heads(c: &mut DbConnection) -> Result<Vec<i64>> {
    Ok(dsl::notification_outbox
        .filter(dsl::delivered_at.is_null())
        .group_by(dsl::subscription_id)
        .select(diesel::dsl::min(dsl::seq))
        .load::<Option<i64>>(c)?
        .into_iter()
        .flatten()
        .collect())
}

/// The oldest undelivered notification of every subscription that is due now. Only the
/// heads are read (by the pending index: one row per subscription with a backlog), not
/// the backlog itself.
pub fn due_heads(c: &mut DbConnection) -> Result<Vec<Pending>> {
    let heads = heads(c)?;
    if heads.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<(
        i64,
        String,
        String,
        i32,
        NaiveDateTime,
        Option<NaiveDateTime>,
    )> = dsl::notification_outbox
        .filter(dsl::seq.eq_any(heads))
        .filter(dsl::delivered_at.is_null())
        .order(dsl::seq.asc())
        .select((
            dsl::seq,
            dsl::subscription_id,
            dsl::payload,
            dsl::attempts,
            dsl::next_attempt_at,
            dsl::claimed_until,
        ))
        .load(c)?;
    let t = now();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (seq, sub, payload, attempts, next, claimed) in rows {
        if !seen.insert(sub.clone()) {
            continue;
        }
        if next > t || claimed.is_some_and(|u| u > t) {
            continue;
        }
        let (Ok(subscription_id), Ok(payload)) = (sub.parse(), Stored::parse(&payload)) else {
            continue;
        };
        out.push(Pending {
            seq,
            subscription_id,
            payload,
            attempts,
        });
    }
    Ok(out)
}

/// Claims `seq` for delivery by `who` for `lease`; false when someone else has it.
pub fn claim(
    c: &mut DbConnection,
    seq: i64,
    who: &str,
    lease: std::time::Duration,
) -> Result<bool> {
    let t = now();
    let until = t + chrono::Duration::from_std(lease).unwrap_or(chrono::Duration::seconds(30));
    let n = diesel::update(
        dsl::notification_outbox
            .filter(dsl::seq.eq(seq))
            .filter(dsl::delivered_at.is_null())
            .filter(dsl::claimed_until.is_null().or(dsl::claimed_until.lt(t))),
    )
    .set((
        dsl::claimed_by.eq(Some(who)),
        dsl::claimed_until.eq(Some(until)),
    ))
    .execute(c)?;
    Ok(n == 1)
}

/// Releases the delivery claims `who` holds (its earlier incarnation died mid-delivery:
/// the notifications are due again now, not when the lease runs out); how many.
pub fn release_claims(c: &mut DbConnection, who: &str) -> Result<usize> {
    release_claims_of(c, &[who.to_owned()])
}

/// Releases the delivery claims any of `who` holds (conductors lost); how many.
pub fn release_claims_of(c: &mut DbConnection, who: &[String]) -> Result<usize> {
    Ok(diesel::update(
        dsl::notification_outbox
            .filter(dsl::delivered_at.is_null())
            .filter(dsl::claimed_by.eq_any(who))
            .filter(dsl::claimed_until.is_not_null()),
    )
    .set(dsl::claimed_until.eq(None::<NaiveDateTime>))
    .execute(c)?)
}

/// Marks `seq` delivered.
pub fn delivered(c: &mut DbConnection, seq: i64) -> Result<()> {
    diesel::update(dsl::notification_outbox.filter(dsl::seq.eq(seq)))
        .set((
            dsl::delivered_at.eq(Some(now())),
            dsl::claimed_until.eq(None::<NaiveDateTime>),
        ))
        .execute(c)?;
    Ok(())
}

/// Deletes up to `batch` notifications delivered more than `older_than` ago; how many.
pub fn prune_delivered(
    c: &mut DbConnection,
    older_than: std::time::Duration,
    batch: i64,
) -> Result<usize> {
    crate::rows::prune!(c, dsl::notification_outbox, dsl::notification_outbox, dsl::seq => i64, dsl::delivered_at, older_than, dsl::seq, batch)
}

/// Deletes up to `batch` notifications still undelivered `older_than` after they were
/// queued; `(subscription, how many)` per subscription affected.
pub fn expire_undelivered(
    c: &mut DbConnection,
    older_than: std::time::Duration,
    batch: i64,
) -> Result<Vec<(String, usize)>> {
    let before = crate::ago(older_than);
    let rows: Vec<(i64, String)> = dsl::notification_outbox
        .filter(dsl::delivered_at.is_null())
        .filter(dsl::created_at.lt(before))
        .order(dsl::seq.asc())
        .limit(batch)
        .select((dsl::seq, dsl::subscription_id))
        .load(c)?;
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let seqs: Vec<i64> = rows.iter().map(|(s, _)| *s).collect();
    diesel::delete(dsl::notification_outbox.filter(dsl::seq.eq_any(seqs))).execute(c)?;
    let mut per: std::collections::BTreeMap<String, usize> = Default::default();
    for (_, sub) in rows {
        *per.entry(sub).or_default() += 1;
    }
    Ok(per.into_iter().collect())
}

/// Records a failed attempt; the next one is due after `retry_in`.
pub fn failed(
    c: &mut DbConnection,
    seq: i64,
    error: &str,
    retry_in: std::time::Duration,
) -> Result<()> {
    let next =
        now() + chrono::Duration::from_std(retry_in).unwrap_or(chrono::Duration::seconds(60));
    diesel::update(dsl::notification_outbox.filter(dsl::seq.eq(seq)))
        .set((
            dsl::attempts.eq(dsl::attempts + 1),
            dsl::last_error.eq(Some(error)),
            dsl::next_attempt_at.eq(next),
            dsl::claimed_until.eq(None::<NaiveDateTime>),
        ))
        .execute(c)?;
    Ok(())
}

/// Notifications kept, delivered or not.
pub fn kept(c: &mut DbConnection) -> Result<i64> {
    Ok(dsl::notification_outbox.count().get_result(c)?)
}

/// Notifications not delivered yet.
pub fn undelivered(c: &mut DbConnection) -> Result<i64> {
    Ok(dsl::notification_outbox
        .filter(dsl::delivered_at.is_null())
        .count()
        .get_result(c)?)
}

crate::handle::handle! {
    /// Notifications waiting for delivery.
    Outbox = outbox {
        fn heads() -> Vec<i64>;
        fn due_heads() -> Vec<Pending>;
        fn claim(seq: i64, who: &str, lease: std::time::Duration) -> bool;
        fn release_claims(who: &str) -> usize;
        fn release_claims_of(who: &[String]) -> usize;
        fn delivered(seq: i64) -> ();
        fn prune_delivered(older_than: std::time::Duration, batch: i64) -> usize;
        fn expire_undelivered(older_than: std::time::Duration, batch: i64) -> Vec<(String, usize)>;
        fn failed(seq: i64, error: &str, retry_in: std::time::Duration) -> ();
        fn kept() -> i64;
        fn undelivered() -> i64;
    }
}
