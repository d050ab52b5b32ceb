//! The reads every table module writes the same way, over its own `Row`: one row by a
//! query, every row oldest first, the rows of a tenant; and the due reads of the two
//! tables of pending automatic work.

/// The one `Row` query `$q` finds (`None`: none), read into its domain type by `$read`.
macro_rules! one {
    ($c:expr, $q:expr, $read:expr) => {
        crate::connection::native!($c, |conn| $q
            .select(Row::as_select())
            .first(conn)
            .optional())?
        .map($read)
        .transpose()
    };
}

/// Every `Row` query `$q` finds, oldest first (`created_at`, then `id`, of table `$dsl`),
/// each read by `$read`.
macro_rules! oldest_first {
    ($c:expr, $q:expr, $dsl:ident, $read:expr) => {
        $q.order(($dsl::created_at.asc(), $dsl::id.asc()))
            .select(Row::as_select())
            .load($c)?
            .into_iter()
            .map($read)
            .collect()
    };
}

/// `$table` narrowed to the rows whose `$column` is `$tenant` (`None`: every row).
macro_rules! of_tenant {
    ($table:expr, $column:expr, $tenant:expr) => {{
        let mut q = $table.into_boxed::<crate::scan::Backend>();
        if let Some(t) = $tenant {
            q = q.filter($column.eq(t.to_owned()));
        }
        q
    }};
}

/// `due` and `next_due` of a table of pending automatic work (`$table`: rows with
/// `vnf_instance_id`, `due_at`, and `op_occ_id` null while pending); `$what` names one
/// pending row in the docs.
macro_rules! pending_work {
    ($table:ident, $what:literal) => {
        #[doc = concat!("The instances with a ", $what, " due now.")]
        pub fn due(c: &mut DbConnection) -> Result<Vec<Uuid>> {
            let ids: Vec<String> = dsl::$table
                .filter(dsl::op_occ_id.is_null())
                .filter(dsl::due_at.le(now()))
                .select(dsl::vnf_instance_id)
                .distinct()
                .load(c)?;
            Ok(ids.iter().filter_map(|i| i.parse().ok()).collect())
        }

        #[doc = concat!("Removes every ", $what, " taken by an operation that ended (or is gone); how many.")]
        pub fn settle(c: &mut DbConnection) -> Result<usize> {
            let taken: Vec<String> = dsl::$table
                .filter(dsl::op_occ_id.is_not_null())
                .select(dsl::op_occ_id.assume_not_null())
                .distinct()
                .load(c)?;
            let mut removed = 0;
            for id in taken {
                if crate::op_occs::has_ended(c, &id)? {
                    removed +=
                        diesel::delete(dsl::$table.filter(dsl::op_occ_id.eq(Some(id)))).execute(c)?;
                }
            }
            Ok(removed)
        }

        #[doc = concat!("Write-locks `instance`'s pending rows (writes first, so SQLite takes its write lock at once: a read first could not be upgraded under load); whether it has any ", $what, ".")]
        fn lock_pending(c: &mut DbConnection, instance: Uuid) -> Result<bool> {
            let n = diesel::update(
                dsl::$table
                    .filter(dsl::vnf_instance_id.eq(instance.to_string()))
                    .filter(dsl::op_occ_id.is_null()),
            )
            .set(dsl::due_at.eq(dsl::due_at))
            .execute(c)?;
            Ok(n > 0)
        }

        #[doc = concat!("When `instance`'s earliest ", $what, " is due (none pending: `None`).")]
        pub fn next_due(c: &mut DbConnection, instance: Uuid) -> Result<Option<NaiveDateTime>> {
            Ok(dsl::$table
                .filter(dsl::vnf_instance_id.eq(instance.to_string()))
                .filter(dsl::op_occ_id.is_null())
                .select(diesel::dsl::min(dsl::due_at))
                .first(c)?)
        }
    };
}

/// `get` (by id), `list` (oldest first) and `list_from` (a keyset chunk, narrowed by the
/// attributes' columns and, where given, paths into JSON columns) of table `$table`,
/// whose rows `Row::into_domain` reads as `$domain` (`$what` names one in the docs), and
/// the same three on the table's handle `$Handle`.
macro_rules! reads {
    ($table:ident, $domain:ty, $what:literal, $order:literal, $Handle:ident,
     { $( $attr:expr => $col:expr ),+ $(,)? }
     $(, json { $( $jattr:literal => $jcol:literal ),+ $(,)? })?) => {
        impl $Handle<'_> {
            crate::handle::handle!(@fns
                fn get(id: Uuid) -> Option<$domain>;
                fn list() -> Vec<$domain>;
                fn list_from(from: &crate::scan::From, narrow: &crate::scan::Narrow, limit: i64) -> Vec<$domain>;
            );
        }

        #[doc = concat!("The ", $what, " `id`.")]
        pub fn get(c: &mut DbConnection, id: Uuid) -> Result<Option<$domain>> {
            crate::rows::one!(c, dsl::$table.filter(dsl::id.eq(id.to_string())), Row::into_domain)
        }

        #[doc = concat!("Every ", $what, ", oldest first.")]
        pub fn list(c: &mut DbConnection) -> Result<Vec<$domain>> {
            crate::rows::oldest_first!(c, dsl::$table, dsl, Row::into_domain)
        }

        #[doc = concat!("Up to `limit` of the ", $what, " rows from `from` on, in ", $order, " order.")]
        pub fn list_from(
            c: &mut DbConnection,
            from: &crate::scan::From,
            narrow: &crate::scan::Narrow,
            limit: i64,
        ) -> Result<Vec<$domain>> {
            crate::connection::native!(c, |conn, B| {
                let q = dsl::$table.into_boxed::<B>();
                let q = crate::scan::narrowed!(q, narrow, { $( $attr => $col ),+ });
                $(let q = crate::json_path::json_narrowed!(q, B, narrow, { $( $jattr => $jcol ),+ });)?
                crate::scan::chunk!(q, dsl, from, limit)
                    .select(Row::as_select())
                    .load(conn)
            })?
            .into_iter()
            .map(Row::into_domain)
            .collect()
        }
    };
}

/// Deletes up to `$limit` of the rows of `$table` that `$q` selects and whose `$time`
/// is more than `$older_than` ago, the first by `$order` (an indexed column) first; how
/// many. `$key` (of type `$kt`) names a row.
macro_rules! prune {
    ($c:expr, $table:expr, $q:expr, $key:expr => $kt:ty, $time:expr, $older_than:expr,
     $order:expr, $limit:expr) => {{
        let keys: Vec<$kt> = $q
            .filter($time.lt(crate::ago($older_than)))
            .order($order.asc())
            .limit($limit)
            .select($key)
            .load($c)?;
        if keys.is_empty() {
            return Ok(0);
        }
        Ok(diesel::delete($table.filter($key.eq_any(keys))).execute($c)?)
    }};
}

/// `insert` of table `$table` of JSON bodies (`Row`: id, tenant, body, created_at) of
/// `$domain`s (`$what` names them in the docs), within the tenant's quota.
macro_rules! insert_body {
    ($table:ident, $domain:ty, $what:literal) => {
        #[doc = concat!("Stores a new ", $what, " unless its tenant has `quota` of them already (0: no limit); whether it was stored.")]
        pub fn insert(c: &mut DbConnection, x: &$domain, quota: u64) -> Result<bool> {
            let count = |c: &mut DbConnection, t: Option<&str>| {
                Ok(crate::quota::count_of_tenant!(c, dsl::$table, dsl::tenant, t))
            };
            let row = Row {
                id: x.id.to_string(),
                tenant: x.tenant.clone(),
                body: json_text(x),
                created_at: now(),
            };
            let insert = |c: &mut DbConnection| {
                diesel::insert_into($table::table)
                    .values(row)
                    .execute(c)
                    .map_err(Into::into)
            };
            let stored = crate::quota::within(c, stringify!($table), x.tenant.as_deref(), quota, count, insert)?;
            Ok(stored.is_some())
        }
    };
}

/// `corrupt(what, e)`: an [`crate::Error::Corrupt`] naming column `what` of table
/// `$table`.
macro_rules! corrupt_in {
    ($table:expr) => {
        fn corrupt(what: &str, e: impl std::fmt::Display) -> crate::Error {
            crate::Error::Corrupt(format!("{}.{what}: {e}", $table))
        }
    };
}

pub(crate) use {
    corrupt_in, insert_body, of_tenant, oldest_first, one, pending_work, prune, reads,
};
