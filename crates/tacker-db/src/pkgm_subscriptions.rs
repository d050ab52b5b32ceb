//! `pkgm_subscriptions`: SOL005 package notification subscriptions, and queueing package
//! notifications with the change they report.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use tacker_domain::lcm::SubscriptionAuth;
use tacker_domain::package::VnfPackage;
use tacker_domain::pkgm::{PkgFacts, PkgmFilter, PkgmSubscription};
use uuid::Uuid;

use crate::schema::notification_outbox::dsl as ob;
use crate::schema::pkgm_subscriptions::{self, dsl};
use crate::{DbConnection, Error, Result, json_text, now};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = pkgm_subscriptions)]
struct Row {
    id: String,
    callback_uri: String,
    filter: String,
    authentication: Option<String>,
    created_at: NaiveDateTime,
    scope: Option<String>,
    tenant: Option<String>,
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Corrupt(format!("pkgm_subscriptions.{what}: {e}"))
}

impl Row {
    fn into_domain(self) -> Result<(PkgmSubscription, chrono::DateTime<chrono::Utc>)> {
        Ok((
            PkgmSubscription {
                id: self.id.parse().map_err(|e| corrupt("id", e))?,
                callback_uri: self.callback_uri,
                filter: serde_json::from_str::<PkgmFilter>(&self.filter)
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

/// Whether a subscription could be created.
#[derive(Debug, Clone, PartialEq)]
pub enum Insert {
    /// Created.
    Created,
    /// The same subscription exists already: its id.
    Duplicate(Uuid),
    /// Its tenant has as many as its quota allows already: nothing stored.
    OverQuota,
}

/// Stores `s` unless the same one of the same tenant exists and duplicates are refused,
/// or its tenant has `quota` package subscriptions already (0: no limit).
pub fn insert(
    c: &mut DbConnection,
    s: &PkgmSubscription,
    refuse_duplicates: bool,
    quota: u64,
) -> Result<Insert> {
    let stored = crate::quota::within(
        c,
        "pkgm_subscriptions",
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
            diesel::insert_into(pkgm_subscriptions::table)
                .values(Row {
                    id: s.id.to_string(),
                    callback_uri: s.callback_uri.clone(),
                    filter: json_text(&s.filter),
                    authentication: s.authentication.as_ref().map(json_text),
                    created_at: now(),
                    scope: crate::scope_column::write(&s.confinement),
                    tenant: s.tenant.clone(),
                })
                .execute(c)?;
            Ok(Insert::Created)
        },
    )?;
    Ok(stored.unwrap_or(Insert::OverQuota))
}

/// How many package subscriptions `tenant` has (`None`: those of no tenant).
fn count_of_tenant(c: &mut DbConnection, tenant: Option<&str>) -> Result<u64> {
    Ok(crate::quota::count_of_tenant!(
        c,
        dsl::pkgm_subscriptions,
        dsl::tenant,
        tenant
    ))
}

/// The subscription `id`.
pub fn get(c: &mut DbConnection, id: Uuid) -> Result<Option<PkgmSubscription>> {
    dsl::pkgm_subscriptions
        .filter(dsl::id.eq(id.to_string()))
        .select(Row::as_select())
        .first(c)
        .optional()?
        .map(|r| r.into_domain().map(|(s, _)| s))
        .transpose()
}

/// Every subscription, oldest first, with its creation time.
pub fn list(
    c: &mut DbConnection,
) -> Result<Vec<(PkgmSubscription, chrono::DateTime<chrono::Utc>)>> {
    dsl::pkgm_subscriptions
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
        let n = diesel::delete(dsl::pkgm_subscriptions.filter(dsl::id.eq(id.to_string())))
            .execute(c)?;
        diesel::delete(ob::notification_outbox.filter(ob::subscription_id.eq(id.to_string())))
            .execute(c)?;
        Ok(n == 1)
    })
}

/// Queues `facts` about `pkg` (under a notification id of its own) for every package
/// subscription whose filter passes and whose creator sees the package (its tenant, its
/// provider); in the caller's transaction.
pub(crate) fn enqueue(c: &mut DbConnection, facts: &PkgFacts, pkg: &VnfPackage) -> Result<()> {
    for (s, _) in list(c)? {
        if s.hears_of(pkg) && s.filter.matches(facts.kind, pkg) {
            let mine = facts.renewed();
            crate::outbox::push(c, s.id, mine.id, &json_text(&mine))?;
        }
    }
    Ok(())
}
