//! Per-tenant quotas. A creation inserts its row, then counts its tenant's rows and
//! rolls back when the count passes the limit; concurrent creations of one tenant are
//! serialized for that (a PostgreSQL advisory lock per table and tenant; SQLite
//! serializes writers already), so they cannot pass the limit together.

use diesel::sql_types::BigInt;
use diesel::{Connection, RunQueryDsl};

use crate::{DbConnection, Error, Result};

/// Runs `create` in one transaction, `tenant`'s quota checks on `table` serialized, and
/// rolls it back when `count` then passes `quota` (0: no limit): `None`, nothing stored.
pub fn within<T>(
    c: &mut DbConnection,
    table: &str,
    tenant: Option<&str>,
    quota: u64,
    count: fn(&mut DbConnection, Option<&str>) -> Result<u64>,
    create: impl FnOnce(&mut DbConnection) -> Result<T>,
) -> Result<Option<T>> {
    let done = c.transaction(|c| {
        write_first(c, table)?;
        if quota > 0 {
            lock(c, table, tenant)?;
        }
        let made = create(c)?;
        if quota > 0 && count(c, tenant)? > quota {
            return Err(exceeded());
        }
        Ok(Some(made))
    });
    match done {
        Err(e) if over(&e) => Ok(None),
        other => other,
    }
}

/// How many rows of `$table` belong to `$tenant` (an `Option<&str>`; `None`: the rows of
/// no tenant), by its `$column`, as a `u64`; `?` on the query's error.
macro_rules! count_of_tenant {
    ($c:expr, $table:expr, $column:expr, $tenant:expr) => {{
        let n: i64 = match $tenant {
            Some(t) => $table.filter($column.eq(t)).count().get_result($c)?,
            None => $table.filter($column.is_null()).count().get_result($c)?,
        };
        u64::try_from(n).unwrap_or(0)
    }};
}
pub(crate) use count_of_tenant;

/// On SQLite, makes the transaction a writer before it reads: a creation reads (its
/// duplicates, its tenant's count) and then writes, and a reader that becomes a writer
/// after another connection committed fails at once with SQLITE_BUSY (the busy timeout
/// does not apply to that upgrade); a writer from the start waits its turn instead.
pub(crate) fn write_first(c: &mut DbConnection, table: &str) -> Result<()> {
    if let DbConnection::Sqlite(lite) = c {
        // `table` is one of this crate's table names, never input.
        diesel::sql_query(format!("UPDATE {table} SET id = id WHERE 0")).execute(lite)?;
    }
    Ok(())
}

/// Serializes, until the transaction ends, the quota checks of `tenant` on `table`.
pub fn lock(c: &mut DbConnection, table: &str, tenant: Option<&str>) -> Result<()> {
    if let DbConnection::Pg(pg) = c {
        diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
            .bind::<BigInt, _>(key(table, tenant))
            .execute(pg)?;
    }
    Ok(())
}

/// The error that rolls a creation over its quota back (see [`over`]).
pub fn exceeded() -> Error {
    Error::Query(diesel::result::Error::RollbackTransaction)
}

/// Whether a transaction's error is [`exceeded`].
pub fn over(e: &Error) -> bool {
    matches!(e, Error::Query(diesel::result::Error::RollbackTransaction))
}

/// A stable 64-bit key (FNV-1a) of the table and tenant.
fn key(table: &str, tenant: Option<&str>) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in table
        .bytes()
        .chain([0u8])
        .chain(tenant.unwrap_or_default().bytes())
    {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    i64::from_ne_bytes(h.to_ne_bytes())
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_differ_by_table_and_tenant() {
        use super::key;
        assert_ne!(key("a", Some("t")), key("a", Some("u")));
        assert_ne!(key("a", Some("t")), key("b", Some("t")));
        assert_eq!(key("a", Some("t")), key("a", Some("t")));
    }
}
