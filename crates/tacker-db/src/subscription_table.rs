//! What the tables of FM and package subscriptions share (the same columns, the same
//! rules): the row, its reading, creation under the tenant's quota with duplicates
//! refused on request, get, list and delete. Each table's module invokes
//! [`subscription_table!`] and keeps what it queues of its own; LCM subscriptions (a row
//! of their own) share its `insert` ([`insert_fn!`]).

use uuid::Uuid;

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

/// `insert` of subscription table `$table` of `$domain`s (`$what` names them), over the
/// module's `insert_row`, `count_of_tenant` and `list`.
macro_rules! insert_fn {
    ($table:ident, $domain:ty, $what:literal) => {
        #[doc = concat!("Stores `s` unless the same one of the same tenant exists and \
            duplicates are refused, or its tenant has `quota` ", $what, " already (0: no limit).")]
        pub fn insert(
            c: &mut crate::DbConnection,
            s: &$domain,
            refuse_duplicates: bool,
            quota: u64,
        ) -> crate::Result<Insert> {
            let stored = crate::quota::within(
                c,
                stringify!($table),
                s.tenant.as_deref(),
                quota,
                count_of_tenant,
                |c| {
                    if refuse_duplicates
                        && let Some((same, _)) =
                            list(c)?.into_iter().find(|(d, _)| d.tenant == s.tenant && d.same_as(s))
                    {
                        return Ok(Insert::Duplicate(same.id));
                    }
                    insert_row(c, s).map(|()| Insert::Created)
                },
            )?;
            Ok(stored.unwrap_or(Insert::OverQuota))
        }
    };
}

/// The row and the functions of subscription table `$table`, holding `$domain`s with
/// filters of type `$filter` (`$what` names them in messages).
macro_rules! subscription_table {
    ($table:ident, $domain:ident, $filter:ty, $what:literal, $(#[$doc:meta])* $Handle:ident) => {
        pub use crate::subscription_table::Insert;

        #[derive(Debug, Clone, Queryable, Selectable, Insertable)]
        #[diesel(table_name = crate::schema::$table)]
        struct Row {
            id: String,
            callback_uri: String,
            filter: String,
            authentication: Option<String>,
            scope: Option<String>,
            tenant: Option<String>,
            created_at: chrono::NaiveDateTime,
        }

        crate::rows::corrupt_in!(stringify!($table));

        impl Row {
            fn into_domain(self) -> crate::Result<($domain, chrono::DateTime<chrono::Utc>)> {
                Ok((
                    $domain {
                        id: self.id.parse().map_err(|e| corrupt("id", e))?,
                        callback_uri: self.callback_uri,
                        filter: serde_json::from_str::<$filter>(&self.filter)
                            .map_err(|e| corrupt("filter", e))?,
                        authentication: self
                            .authentication
                            .map(|a| serde_json::from_str(&a))
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

        crate::subscription_table::insert_fn!($table, $domain, $what);

        fn insert_row(c: &mut crate::DbConnection, s: &$domain) -> crate::Result<()> {
            diesel::insert_into(crate::schema::$table::table)
                .values(Row {
                    id: s.id.to_string(),
                    callback_uri: s.callback_uri.clone(),
                    filter: crate::json_text(&s.filter),
                    authentication: s.authentication.as_ref().map(crate::json_text),
                    scope: crate::scope_column::write(&s.confinement),
                    tenant: s.tenant.clone(),
                    created_at: crate::now(),
                })
                .execute(c)?;
            Ok(())
        }

        #[doc = concat!("How many ", $what, " `tenant` has (`None`: those of no tenant).")]
        fn count_of_tenant(c: &mut crate::DbConnection, tenant: Option<&str>) -> crate::Result<u64> {
            use crate::schema::$table::dsl;
            Ok(crate::quota::count_of_tenant!(
                c,
                dsl::$table,
                dsl::tenant,
                tenant
            ))
        }

        /// The subscription `id`.
        pub fn get(c: &mut crate::DbConnection, id: uuid::Uuid) -> crate::Result<Option<$domain>> {
            use crate::schema::$table::dsl;
            crate::rows::one!(c, dsl::$table.filter(dsl::id.eq(id.to_string())), |r: Row| {
                r.into_domain().map(|(s, _)| s)
            })
        }

        /// Every subscription, oldest first, with its creation time.
        pub fn list(
            c: &mut crate::DbConnection,
        ) -> crate::Result<Vec<($domain, chrono::DateTime<chrono::Utc>)>> {
            use crate::schema::$table::dsl;
            crate::rows::oldest_first!(c, dsl::$table, dsl, Row::into_domain)
        }

        /// Deletes a subscription and what it has not received yet; false when absent.
        pub fn delete(c: &mut crate::DbConnection, id: uuid::Uuid) -> crate::Result<bool> {
            use crate::schema::notification_outbox::dsl as ob;
            use crate::schema::$table::dsl;
            c.transaction(|c| {
                let n = diesel::delete(dsl::$table.filter(dsl::id.eq(id.to_string()))).execute(c)?;
                diesel::delete(
                    ob::notification_outbox.filter(ob::subscription_id.eq(id.to_string())),
                )
                .execute(c)?;
                Ok(n == 1)
            })
        }

        crate::handle::handle! {
            $(#[$doc])*
            $Handle = $table {
                fn insert(s: &$domain, refuse_duplicates: bool, quota: u64) -> Insert;
                fn get(id: uuid::Uuid) -> Option<$domain>;
                fn list() -> Vec<($domain, chrono::DateTime<chrono::Utc>)>;
                fn delete(id: uuid::Uuid) -> bool;
            }
        }
    };
}

pub(crate) use {insert_fn, subscription_table};
