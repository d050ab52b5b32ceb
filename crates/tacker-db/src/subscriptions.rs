//! `lccn_subscriptions`.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use tacker_domain::lcm::{Subscription, SubscriptionAuth, SubscriptionFilter};
use uuid::Uuid;

use crate::schema::lccn_subscriptions::{self, dsl};
use crate::schema::notification_outbox::dsl as ob;
use crate::{DbConnection, Result, json_text, now};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = lccn_subscriptions)]
struct Row {
    id: String,
    callback_uri: String,
    filter: String,
    authentication: Option<String>,
    verbosity: String,
    created_at: NaiveDateTime,
    api_version: String,
    tenant: Option<String>,
    scope: Option<String>,
}

crate::rows::corrupt_in!("lccn_subscriptions");

impl Row {
    fn into_domain(self) -> Result<Subscription> {
        Ok(Subscription {
            id: self.id.parse().map_err(|e| corrupt("id", e))?,
            callback_uri: self.callback_uri,
            filter: serde_json::from_str::<SubscriptionFilter>(&self.filter)
                .map_err(|e| corrupt("filter", e))?,
            authentication: self
                .authentication
                .map(|a| serde_json::from_str::<SubscriptionAuth>(&a))
                .transpose()
                .map_err(|e| corrupt("authentication", e))?,
            verbosity: self.verbosity,
            api_version: self
                .api_version
                .parse()
                .map_err(|e| corrupt("api_version", e))?,
            tenant: self.tenant,
            confinement: crate::scope_column::read(self.scope.as_deref())
                .map_err(|e| corrupt("scope", e))?,
        })
    }
}

pub use crate::subscription_table::Insert;

crate::subscription_table::insert_fn!(lccn_subscriptions, Subscription, "LCM subscriptions");

/// How many subscriptions `tenant` has (`None`: those of no tenant).
pub fn count_of_tenant(c: &mut DbConnection, tenant: Option<&str>) -> Result<u64> {
    Ok(crate::quota::count_of_tenant!(
        c,
        dsl::lccn_subscriptions,
        dsl::tenant,
        tenant
    ))
}

fn insert_row(c: &mut DbConnection, s: &Subscription) -> Result<()> {
    let row = Row {
        id: s.id.to_string(),
        callback_uri: s.callback_uri.clone(),
        filter: json_text(&s.filter),
        authentication: s.authentication.as_ref().map(json_text),
        verbosity: s.verbosity.clone(),
        created_at: now(),
        api_version: s.api_version.as_str().into(),
        tenant: s.tenant.clone(),
        scope: crate::scope_column::write(&s.confinement),
    };
    diesel::insert_into(lccn_subscriptions::table)
        .values(row)
        .execute(c)?;
    Ok(())
}

/// The subscription `id`.
pub fn get(c: &mut DbConnection, id: Uuid) -> Result<Option<Subscription>> {
    crate::rows::one!(
        c,
        dsl::lccn_subscriptions.filter(dsl::id.eq(id.to_string())),
        Row::into_domain
    )
}

/// Every subscription, oldest first, with its creation time.
pub fn list(c: &mut DbConnection) -> Result<Vec<(Subscription, chrono::DateTime<chrono::Utc>)>> {
    crate::rows::oldest_first!(c, dsl::lccn_subscriptions, dsl, |r: Row| {
        let t = r.created_at.and_utc();
        r.into_domain().map(|s| (s, t))
    })
}

/// Deletes a subscription and what it has not received yet; false when absent.
pub fn delete(c: &mut DbConnection, id: Uuid) -> Result<bool> {
    c.transaction(|c| {
        let n = diesel::delete(dsl::lccn_subscriptions.filter(dsl::id.eq(id.to_string())))
            .execute(c)?;
        diesel::delete(ob::notification_outbox.filter(ob::subscription_id.eq(id.to_string())))
            .execute(c)?;
        Ok(n == 1)
    })
}

crate::handle::handle! {
    /// LCM notification subscriptions.
    Subscriptions = subscriptions {
        fn insert(s: &Subscription, refuse_duplicates: bool, quota: u64) -> Insert;
        fn count_of_tenant(tenant: Option<&str>) -> u64;
        fn get(id: Uuid) -> Option<Subscription>;
        fn list() -> Vec<(Subscription, chrono::DateTime<chrono::Utc>)>;
        fn delete(id: Uuid) -> bool;
    }
}
