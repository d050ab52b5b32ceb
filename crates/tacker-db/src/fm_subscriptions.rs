//! `fm_subscriptions`: SOL003 FM subscriptions, and queueing FM notifications with the
//! alarm change they report.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use tacker_domain::fm::notification::FmFacts;
use tacker_domain::fm::subscription::{FmFilter, FmSubscription};
use tacker_domain::lcm::{SubscriptionAuth, VnfInstance};
use uuid::Uuid;

use crate::pkgm_subscriptions::Insert;
use crate::schema::fm_subscriptions::{self, dsl};
use crate::schema::notification_outbox::dsl as ob;
use crate::{DbConnection, Error, Result, json_text, now};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = fm_subscriptions)]
struct Row {
    id: String,
    callback_uri: String,
    filter: String,
    authentication: Option<String>,
    scope: Option<String>,
    tenant: Option<String>,
    created_at: NaiveDateTime,
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Corrupt(format!("fm_subscriptions.{what}: {e}"))
}

impl Row {
    fn into_domain(self) -> Result<(FmSubscription, chrono::DateTime<chrono::Utc>)> {
        Ok((
            FmSubscription {
                id: self.id.parse().map_err(|e| corrupt("id", e))?,
                callback_uri: self.callback_uri,
                filter: serde_json::from_str::<FmFilter>(&self.filter)
                    .map_err(|e| corrupt("filter", e))?,
                authentication: self
                    .authentication
                    .map(|a| serde_json::from_str::<SubscriptionAuth>(&a))
                    .transpose()
                    .map_err(|e| corrupt("authentication", e))?,
                confinement: crate::scope_column::read(self.scope.as_deref())
                    .map_err(|e| corrupt("scope", e))?,
                tenant: self.tenant,
            },
            self.created_at.and_utc(),
        ))
    }
}

/// Stores `s` unless the same one of the same tenant exists and duplicates are refused,
/// or its tenant has `quota` FM subscriptions already (0: no limit).
pub fn insert(
    c: &mut DbConnection,
    s: &FmSubscription,
    refuse_duplicates: bool,
    quota: u64,
) -> Result<Insert> {
    let stored = crate::quota::within(
        c,
        "fm_subscriptions",
        s.tenant.as_deref(),
        quota,
        count_of_tenant,
        |c| {
            if refuse_duplicates
                && let Some((d, _)) = list(c)?
                    .into_iter()
                    .find(|(d, _)| d.tenant == s.tenant && d.same_as(s))
            {
                return Ok(Insert::Duplicate(d.id));
            }
            diesel::insert_into(fm_subscriptions::table)
                .values(Row {
                    id: s.id.to_string(),
                    callback_uri: s.callback_uri.clone(),
                    filter: json_text(&s.filter),
                    authentication: s.authentication.as_ref().map(json_text),
                    scope: crate::scope_column::write(&s.confinement),
                    tenant: s.tenant.clone(),
                    created_at: now(),
                })
                .execute(c)?;
            Ok(Insert::Created)
        },
    )?;
    Ok(stored.unwrap_or(Insert::OverQuota))
}

/// How many FM subscriptions `tenant` has (`None`: those of no tenant).
fn count_of_tenant(c: &mut DbConnection, tenant: Option<&str>) -> Result<u64> {
    Ok(crate::quota::count_of_tenant!(
        c,
        dsl::fm_subscriptions,
        dsl::tenant,
        tenant
    ))
}

/// The subscription `id`.
pub fn get(c: &mut DbConnection, id: Uuid) -> Result<Option<FmSubscription>> {
    dsl::fm_subscriptions
        .filter(dsl::id.eq(id.to_string()))
        .select(Row::as_select())
        .first(c)
        .optional()?
        .map(|r| r.into_domain().map(|(s, _)| s))
        .transpose()
}

/// Every subscription, oldest first, with its creation time.
pub fn list(c: &mut DbConnection) -> Result<Vec<(FmSubscription, chrono::DateTime<chrono::Utc>)>> {
    dsl::fm_subscriptions
        .order((dsl::created_at.asc(), dsl::id.asc()))
        .select(Row::as_select())
        .load(c)?
        .into_iter()
        .map(Row::into_domain)
        .collect()
}

/// Deletes a subscription and what it has not received yet; false when absent.
pub fn delete(c: &mut DbConnection, id: Uuid) -> Result<bool> {
    c.transaction(|c| {
        let n =
            diesel::delete(dsl::fm_subscriptions.filter(dsl::id.eq(id.to_string()))).execute(c)?;
        diesel::delete(ob::notification_outbox.filter(ob::subscription_id.eq(id.to_string())))
            .execute(c)?;
        Ok(n == 1)
    })
}

/// Queues `facts` (under a notification id of its own) for every FM subscription that
/// may hear of `instance` and whose filter passes; in the caller's transaction.
/// Queues one `AlarmListRebuiltNotification` for each subscription that hears of any of
/// `instances` (none: nothing).
pub(crate) fn enqueue_rebuilt(c: &mut DbConnection, instances: &[VnfInstance]) -> Result<()> {
    if instances.is_empty() {
        return Ok(());
    }
    let subs = list(c)?;
    let areas = if subs.iter().any(|(s, _)| !s.confinement.areas.is_empty()) {
        crate::vims::areas(c)?
    } else {
        tacker_domain::scope::VimAreas::default()
    };
    let facts = FmFacts::rebuilt();
    for (s, _) in subs {
        if instances
            .iter()
            .any(|i| s.may_hear_of(i, &areas) && s.filter.matches(facts.fm_kind, None, i))
        {
            let mine = facts.renewed();
            crate::outbox::push(c, s.id, mine.id, &json_text(&mine))?;
        }
    }
    Ok(())
}

pub(crate) fn enqueue(c: &mut DbConnection, facts: &FmFacts, instance: &VnfInstance) -> Result<()> {
    let subs = list(c)?;
    if subs.is_empty() {
        return Ok(());
    }
    let areas = if subs.iter().any(|(s, _)| !s.confinement.areas.is_empty()) {
        crate::vims::areas(c)?
    } else {
        tacker_domain::scope::VimAreas::default()
    };
    for (s, _) in subs {
        if s.may_hear_of(instance, &areas)
            && s.filter
                .matches(facts.fm_kind, facts.alarm.as_ref(), instance)
        {
            let mine = facts.renewed();
            crate::outbox::push(c, s.id, mine.id, &json_text(&mine))?;
        }
    }
    Ok(())
}
