//! `notification_outbox`: notifications written with the state change they report,
//! delivered by conductors in order per subscription, retried until delivered.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use serde_json::Value;
use tacker_domain::lcm::{LcmOperation, NotificationKind, OperationState, VnfInstance};
use uuid::Uuid;

use crate::schema::notification_outbox::{self, dsl};
use crate::{DbConnection, Result, now, subscriptions};

#[derive(Debug, Insertable)]
#[diesel(table_name = notification_outbox)]
struct NewRow {
    subscription_id: String,
    notification_id: String,
    payload: String,
    next_attempt_at: NaiveDateTime,
    created_at: NaiveDateTime,
}

/// Queues `build(subscription id)` for every subscription whose filter passes.
pub(crate) fn enqueue_matching(
    c: &mut DbConnection,
    kind: NotificationKind,
    instance: &VnfInstance,
    op: Option<(LcmOperation, OperationState)>,
    build: impl Fn(Uuid) -> Value,
) -> Result<()> {
    let t = now();
    for (s, _) in subscriptions::list(c)? {
        if !s.filter.matches(kind, instance, op) {
            continue;
        }
        let payload = build(s.id);
        let row = NewRow {
            subscription_id: s.id.to_string(),
            notification_id: payload
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            payload: payload.to_string(),
            next_attempt_at: t,
            created_at: t,
        };
        diesel::insert_into(notification_outbox::table)
            .values(row)
            .execute(c)?;
    }
    Ok(())
}

/// A notification waiting for delivery.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// Its place in the outbox.
    pub seq: i64,
    /// Whom it is for.
    pub subscription_id: Uuid,
    /// The body.
    pub payload: Value,
    /// Attempts so far.
    pub attempts: i32,
}

/// The oldest undelivered notification of every subscription that is due now.
pub fn due_heads(c: &mut DbConnection) -> Result<Vec<Pending>> {
    let rows: Vec<(
        i64,
        String,
        String,
        i32,
        NaiveDateTime,
        Option<NaiveDateTime>,
    )> = dsl::notification_outbox
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
        let (Ok(subscription_id), Ok(payload)) = (sub.parse(), serde_json::from_str(&payload))
        else {
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

/// Notifications not delivered yet.
pub fn undelivered(c: &mut DbConnection) -> Result<i64> {
    Ok(dsl::notification_outbox
        .filter(dsl::delivered_at.is_null())
        .count()
        .get_result(c)?)
}
