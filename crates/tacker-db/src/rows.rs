//! The reads every table module writes the same way, over its own `Row`: one row by a
//! query, every row oldest first, the rows of a tenant.

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

pub(crate) use {of_tenant, oldest_first, one};
