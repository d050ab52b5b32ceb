//! The reads every table module writes the same way, over its own `Row`: one row by a
//! query, every row oldest first, the rows of a tenant; and the due reads of the two
//! tables of pending automatic work.

/// The one `Row` query `$q` finds (`None`: none), read into its domain type by `$read`.
macro_rules! one {
    ($c:expr, $q:expr, $read:expr) => {
        $q.select(Row::as_select())
            .first($c)
            .optional()?
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

pub(crate) use {of_tenant, oldest_first, one, pending_work};
