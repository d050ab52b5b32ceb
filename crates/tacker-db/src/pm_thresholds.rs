//! `pm_thresholds`: thresholds, the side of each they were last seen on, and the
//! `ThresholdCrossedNotification`s of their crossings (queued in the transaction that
//! records the crossing, under the threshold's id).

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;
use tacker_domain::lcm::SubscriptionAuth;
use tacker_domain::pm::threshold::{CrossingFacts, Threshold};
use uuid::Uuid;

use crate::schema::notification_outbox::dsl as ob;
use crate::schema::pm_thresholds::{self, dsl};
use crate::{DbConnection, Result, json_text, now};

crate::rows::corrupt_in!("pm_thresholds");

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = pm_thresholds)]
struct Row {
    id: String,
    tenant: Option<String>,
    body: String,
    created_at: NaiveDateTime,
}

fn read(r: Row) -> Result<(Threshold, DateTime<Utc>)> {
    let t: Threshold = serde_json::from_str(&r.body).map_err(|e| corrupt("body", e))?;
    Ok((t, r.created_at.and_utc()))
}

crate::rows::insert_body!(pm_thresholds, Threshold, "threshold");

/// The threshold `id`.
pub fn get(c: &mut DbConnection, id: Uuid) -> Result<Option<Threshold>> {
    crate::rows::one!(
        c,
        dsl::pm_thresholds.filter(dsl::id.eq(id.to_string())),
        |r| read(r).map(|(t, _)| t)
    )
}

/// The thresholds of `tenant` (`None`: all), oldest first.
pub fn list(c: &mut DbConnection, tenant: Option<&str>) -> Result<Vec<(Threshold, DateTime<Utc>)>> {
    let q = crate::rows::of_tenant!(dsl::pm_thresholds, dsl::tenant, tenant);
    crate::rows::oldest_first!(c, q, dsl, read)
}

fn update_with(
    c: &mut DbConnection,
    id: Uuid,
    change: impl FnOnce(&mut Threshold),
) -> Result<Option<Threshold>> {
    diesel::update(dsl::pm_thresholds.filter(dsl::id.eq(id.to_string())))
        .set(dsl::id.eq(dsl::id))
        .execute(c)?;
    let Some(mut t) = get(c, id)? else {
        return Ok(None);
    };
    change(&mut t);
    diesel::update(dsl::pm_thresholds.filter(dsl::id.eq(id.to_string())))
        .set(dsl::body.eq(json_text(&t)))
        .execute(c)?;
    Ok(Some(t))
}

/// Changes where crossings are announced.
pub fn set_callback(
    c: &mut DbConnection,
    id: Uuid,
    callback_uri: Option<String>,
    authentication: Option<Option<SubscriptionAuth>>,
) -> Result<Option<Threshold>> {
    c.transaction(|c| {
        update_with(c, id, |t| {
            if let Some(u) = callback_uri {
                t.callback_uri = u;
            }
            if let Some(a) = authentication {
                t.authentication = a;
            }
        })
    })
}

/// Records `value` of `sub` (`None`: the object): its side of the threshold, and, when
/// that is a crossing, queues its notification; the crossing.
pub fn observe(
    c: &mut DbConnection,
    id: Uuid,
    sub: Option<&str>,
    value: f64,
    at: DateTime<Utc>,
) -> Result<Option<CrossingFacts>> {
    c.transaction(|c| {
        let mut crossing = None;
        let updated = update_with(c, id, |t| {
            let key = sub.unwrap_or_default().to_owned();
            let (side, crossed) = t.observe(&key, value);
            t.state.insert(key, side);
            crossing = crossed.map(|d| CrossingFacts {
                id: Uuid::new_v4(),
                time_stamp: at,
                threshold_id: t.id,
                crossing_direction: d,
                object_type: t.object_type,
                object_instance_id: t.object_instance_id,
                sub_object_instance_id: sub.map(str::to_owned),
                performance_metric: t.criteria.performance_metric.clone(),
                performance_value: value,
            });
        })?;
        if updated.is_none() {
            return Ok(None);
        }
        if let Some(f) = &crossing {
            crate::outbox::push(c, id, f.id, &json_text(f))?;
        }
        Ok(crossing)
    })
}

/// Deletes a threshold and its undelivered notifications; false when absent.
pub fn delete(c: &mut DbConnection, id: Uuid) -> Result<bool> {
    c.transaction(|c| {
        let n = diesel::delete(dsl::pm_thresholds.filter(dsl::id.eq(id.to_string()))).execute(c)?;
        diesel::delete(ob::notification_outbox.filter(ob::subscription_id.eq(id.to_string())))
            .execute(c)?;
        Ok(n == 1)
    })
}

crate::handle::handle! {
    /// PM thresholds.
    PmThresholds = pm_thresholds {
        fn insert(threshold: &Threshold, quota: u64) -> bool;
        fn get(id: Uuid) -> Option<Threshold>;
        fn list(tenant: Option<&str>) -> Vec<(Threshold, DateTime<Utc>)>;
        fn set_callback(id: Uuid, callback_uri: Option<String>, authentication: Option<Option<SubscriptionAuth>>) -> Option<Threshold>;
        fn observe(id: Uuid, sub: Option<&str>, value: f64, at: DateTime<Utc>) -> Option<CrossingFacts>;
        fn delete(id: Uuid) -> bool;
    }
}
