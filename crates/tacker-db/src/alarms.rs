//! `alarms`: VNF FM alarms, each raise and clear queued as FM notifications in the same
//! transaction.

use std::time::Duration;

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as D};
use tacker_domain::fm::notification::FmFacts;
use tacker_domain::fm::{AckState, Alarm};
use tacker_domain::lcm::VnfInstance;
use uuid::Uuid;

use crate::schema::alarms::{self, dsl};
use crate::{DbConnection, Result, instances, json_text, now};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = alarms)]
struct Row {
    id: String,
    vnf_instance_id: String,
    fingerprint: String,
    tenant: Option<String>,
    body: String,
    cleared_at: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
}

crate::rows::corrupt_in!("alarms");

impl Row {
    fn into_domain(self) -> Result<(Alarm, DateTime<Utc>)> {
        let a: Alarm = serde_json::from_str(&self.body).map_err(|e| corrupt("body", e))?;
        Ok((a, self.created_at.and_utc()))
    }
}

/// What raising an alarm did.
#[derive(Debug, Clone, PartialEq)]
pub enum Raised {
    /// A new alarm (notified).
    New(Box<Alarm>),
    /// The alert's alarm is open already: unchanged.
    Open(Box<Alarm>),
    /// The alert's alarm of this firing (same fingerprint, same start) was cleared
    /// already: a late or repeated delivery of it (Alertmanager retries a notification
    /// that timed out), which raises nothing again.
    Cleared(Box<Alarm>),
    /// The instance is gone.
    NoInstance,
}

/// Takes SQLite's write lock first in a transaction that reads before it writes (a read
/// lock could not be upgraded under load); a no-op on PostgreSQL's rows.
fn touch(c: &mut DbConnection, instance: Uuid, fingerprint: &str) -> Result<()> {
    diesel::update(
        dsl::alarms
            .filter(dsl::vnf_instance_id.eq(instance.to_string()))
            .filter(dsl::fingerprint.eq(fingerprint))
            .filter(dsl::cleared_at.is_null()),
    )
    .set(dsl::fingerprint.eq(dsl::fingerprint))
    .execute(c)?;
    Ok(())
}

fn open_one(c: &mut DbConnection, instance: Uuid, fingerprint: &str) -> Result<Option<Alarm>> {
    let q = dsl::alarms
        .filter(dsl::vnf_instance_id.eq(instance.to_string()))
        .filter(dsl::fingerprint.eq(fingerprint))
        .filter(dsl::cleared_at.is_null());
    crate::rows::one!(c, q, |r: Row| r.into_domain().map(|(a, _)| a))
}

/// The cleared alarm of the same firing as `alarm` (its alert's fingerprint and start):
/// an alert that fires again after it resolved starts anew.
fn cleared_firing(c: &mut DbConnection, alarm: &Alarm) -> Result<Option<Alarm>> {
    let rows: Vec<Row> = dsl::alarms
        .filter(dsl::vnf_instance_id.eq(alarm.vnf_instance_id.to_string()))
        .filter(dsl::fingerprint.eq(&alarm.fingerprint))
        .filter(dsl::cleared_at.is_not_null())
        .select(Row::as_select())
        .load(c)?;
    for r in rows {
        let (a, _) = r.into_domain()?;
        if a.event_time == alarm.event_time {
            return Ok(Some(a));
        }
    }
    Ok(None)
}

/// Stores `alarm` unless its alert's alarm is open already (then answers that one), and
/// queues its `AlarmNotification`.
pub fn raise(c: &mut DbConnection, alarm: &Alarm) -> Result<Raised> {
    c.transaction(|c| {
        touch(c, alarm.vnf_instance_id, &alarm.fingerprint)?;
        if let Some(a) = open_one(c, alarm.vnf_instance_id, &alarm.fingerprint)? {
            return Ok(Raised::Open(Box::new(a)));
        }
        if let Some(a) = cleared_firing(c, alarm)? {
            return Ok(Raised::Cleared(Box::new(a)));
        }
        let Some(instance) = instances::get(c, alarm.vnf_instance_id)? else {
            return Ok(Raised::NoInstance);
        };
        let row = Row {
            id: alarm.id.to_string(),
            vnf_instance_id: alarm.vnf_instance_id.to_string(),
            fingerprint: alarm.fingerprint.clone(),
            tenant: alarm.tenant.clone(),
            body: json_text(alarm),
            cleared_at: None,
            created_at: now(),
        };
        // A concurrent raise of the same alert won: answer its alarm.
        let inserted =
            c.transaction(|c| diesel::insert_into(alarms::table).values(&row).execute(c));
        match inserted {
            Ok(_) => {}
            Err(D::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {
                return open_one(c, alarm.vnf_instance_id, &alarm.fingerprint)?
                    .map(|a| Raised::Open(Box::new(a)))
                    .ok_or_else(|| corrupt("fingerprint", "the open alarm vanished"));
            }
            Err(e) => return Err(e.into()),
        }
        crate::fm_subscriptions::enqueue(c, &FmFacts::raised(alarm), &instance)?;
        Ok(Raised::New(Box::new(alarm.clone())))
    })
}

/// Clears the open alarm of the alert `fingerprint` on `instance` (cleared at `at`) and
/// queues its `AlarmClearedNotification`; `None` when none is open.
pub fn clear(
    c: &mut DbConnection,
    instance: Uuid,
    fingerprint: &str,
    at: DateTime<Utc>,
) -> Result<Option<Alarm>> {
    c.transaction(|c| {
        touch(c, instance, fingerprint)?;
        let Some(mut a) = open_one(c, instance, fingerprint)? else {
            return Ok(None);
        };
        a.cleared_at = Some(at);
        a.changed_at = Some(Utc::now());
        if !store_cleared(c, &a)? {
            return Ok(None);
        }
        if let Some(i) = instances::get(c, instance)? {
            crate::fm_subscriptions::enqueue(c, &FmFacts::cleared(&a), &i)?;
        }
        Ok(Some(a))
    })
}

/// Clears every open alarm of `instance`, which is being deleted (its alerts can no
/// longer resolve them), and queues their `AlarmClearedNotification`s; how many. Runs in
/// the caller's transaction, before the instance's row goes.
pub(crate) fn clear_all_of(c: &mut DbConnection, instance: &VnfInstance) -> Result<usize> {
    let rows: Vec<Row> = dsl::alarms
        .filter(dsl::vnf_instance_id.eq(instance.id.to_string()))
        .filter(dsl::cleared_at.is_null())
        .select(Row::as_select())
        .load(c)?;
    let n = rows.len();
    for row in rows {
        let (mut a, _) = row.into_domain()?;
        let t = Utc::now();
        a.cleared_at = Some(t);
        a.changed_at = Some(t);
        diesel::update(dsl::alarms.filter(dsl::id.eq(a.id.to_string())))
            .set((dsl::cleared_at.eq(Some(now())), dsl::body.eq(json_text(&a))))
            .execute(c)?;
        crate::fm_subscriptions::enqueue(c, &FmFacts::cleared(&a), instance)?;
    }
    Ok(n)
}

/// Clears the open alarms raised by Alertmanager alerts that are not among `firing`
/// (the fingerprints of its active alerts) and were last changed before `settled`,
/// queues their `AlarmClearedNotification`s and one `AlarmListRebuiltNotification` per
/// FM subscription that hears of any of their instances; how many were cleared.
pub fn reconcile(
    c: &mut DbConnection,
    firing: &std::collections::HashSet<String>,
    settled: DateTime<Utc>,
) -> Result<usize> {
    c.transaction(|c| {
        let rows: Vec<Row> = dsl::alarms
            .filter(dsl::cleared_at.is_null())
            .select(Row::as_select())
            .load(c)?;
        let mut touched: Vec<VnfInstance> = Vec::new();
        let mut n = 0;
        for row in rows {
            let (mut a, _) = row.into_domain()?;
            let changed = a.changed_at.unwrap_or(a.raised_at);
            if !a.raised_by_alert() || firing.contains(&a.fingerprint) || changed >= settled {
                continue;
            }
            let t = Utc::now();
            a.cleared_at = Some(t);
            a.changed_at = Some(t);
            if !store_cleared(c, &a)? {
                continue;
            }
            n += 1;
            if let Some(i) = instances::get(c, a.vnf_instance_id)? {
                crate::fm_subscriptions::enqueue(c, &FmFacts::cleared(&a), &i)?;
                if !touched.iter().any(|t| t.id == i.id) {
                    touched.push(i);
                }
            }
        }
        crate::fm_subscriptions::enqueue_rebuilt(c, &touched)?;
        Ok(n)
    })
}

/// The alarm `id`.
pub fn get(c: &mut DbConnection, id: Uuid) -> Result<Option<Alarm>> {
    crate::rows::one!(c, dsl::alarms.filter(dsl::id.eq(id.to_string())), |r| r
        .into_domain()
        .map(|(a, _)| a))
}

/// The alarms of `tenant` (`None`: every alarm), oldest first, with their creation time.
pub fn list(c: &mut DbConnection, tenant: Option<&str>) -> Result<Vec<(Alarm, DateTime<Utc>)>> {
    let q = crate::rows::of_tenant!(dsl::alarms, dsl::tenant, tenant);
    crate::rows::oldest_first!(c, q, dsl, Row::into_domain)
}

/// What acknowledging did.
#[derive(Debug, Clone, PartialEq)]
pub enum Acknowledged {
    /// Changed: the alarm now.
    Changed(Box<Alarm>),
    /// It was in that state already.
    Same,
    /// No such alarm.
    Missing,
}

/// Sets the acknowledgement of alarm `id`.
pub fn acknowledge(c: &mut DbConnection, id: Uuid, state: AckState) -> Result<Acknowledged> {
    c.transaction(|c| {
        diesel::update(dsl::alarms.filter(dsl::id.eq(id.to_string())))
            .set(dsl::id.eq(dsl::id))
            .execute(c)?;
        let Some(a) = get(c, id)? else {
            return Ok(Acknowledged::Missing);
        };
        let Some(a) = a.acknowledge(state, Utc::now()) else {
            return Ok(Acknowledged::Same);
        };
        diesel::update(dsl::alarms.filter(dsl::id.eq(id.to_string())))
            .set(dsl::body.eq(json_text(&a)))
            .execute(c)?;
        Ok(Acknowledged::Changed(Box::new(a)))
    })
}

/// Open alarms (for metrics).
pub fn open_count(c: &mut DbConnection) -> Result<i64> {
    Ok(dsl::alarms
        .filter(dsl::cleared_at.is_null())
        .count()
        .get_result(c)?)
}

/// Stores alarm `a` cleared, if it was still open; whether it was.
fn store_cleared(c: &mut DbConnection, a: &Alarm) -> Result<bool> {
    let n = diesel::update(
        dsl::alarms
            .filter(dsl::id.eq(a.id.to_string()))
            .filter(dsl::cleared_at.is_null()),
    )
    .set((dsl::cleared_at.eq(Some(now())), dsl::body.eq(json_text(a))))
    .execute(c)?;
    Ok(n == 1)
}

/// Deletes up to `limit` alarms cleared more than `keep` ago; how many.
pub fn prune_cleared(c: &mut DbConnection, keep: Duration, limit: i64) -> Result<usize> {
    crate::rows::prune!(c, dsl::alarms, dsl::alarms, dsl::id => String, dsl::cleared_at, keep, dsl::cleared_at, limit)
}

crate::handle::handle! {
    /// Alarms raised from alerts.
    Alarms = alarms {
        fn raise(alarm: &Alarm) -> Raised;
        fn clear(instance: Uuid, fingerprint: &str, at: DateTime<Utc>) -> Option<Alarm>;
        fn reconcile(firing: &std::collections::HashSet<String>, settled: DateTime<Utc>) -> usize;
        fn get(id: Uuid) -> Option<Alarm>;
        fn list(tenant: Option<&str>) -> Vec<(Alarm, DateTime<Utc>)>;
        fn acknowledge(id: Uuid, state: AckState) -> Acknowledged;
        fn open_count() -> i64;
        fn prune_cleared(keep: Duration, limit: i64) -> usize;
    }
}
