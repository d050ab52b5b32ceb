//! Keyset scans: a list read in its key order (creation time, then id) a chunk at a
//! time, so that a request holds one chunk and one page in memory, never the table.

use chrono::{DateTime, Utc};

/// The backend of [`crate::DbConnection`], for boxed queries off the hot paths (a list
/// chunk boxes its query for the backend's own connection: `connection::native!`).
pub(crate) type Backend = <crate::DbConnection as diesel::Connection>::Backend;

/// Where a scan resumes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum From {
    /// At the first row.
    Start,
    /// At the rows created at or after this instant (a client's page marker, which has
    /// microseconds: the caller skips the rows its marker already covered).
    AtOrAfter(DateTime<Utc>),
    /// Strictly after this row: its creation time as stored, and its id.
    After(DateTime<Utc>, String),
}

/// Attributes a list is narrowed by (attribute path joined by '/', the values it must
/// equal one of); a store applies those that map onto a column holding the attribute's
/// value as is or onto a path into a JSON column, and ignores the rest (the caller's
/// filter decides on every row it gets).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Narrow(pub Vec<(String, Vec<String>)>);

/// The pseudo attribute narrowing a scan to one tenant's rows (tables with a `tenant`
/// column); callers check every row's tenant too.
pub const TENANT: &str = "@tenant";

impl Narrow {
    /// The values attribute `name` must equal one of, if it is narrowed.
    pub fn values(&self, name: &str) -> impl Iterator<Item = &Vec<String>> {
        self.0
            .iter()
            .filter(move |(a, _)| a == name)
            .map(|(_, v)| v)
    }
}

/// One chunk of a keyset scan of a boxed query on a table with `created_at` and `id`
/// columns: the rows from `from` on, ordered by (created_at, id), at most `limit`.
macro_rules! chunk {
    ($query:expr, $dsl:ident, $from:expr, $limit:expr) => {{
        use diesel::prelude::*;
        let q = $query;
        let q = match $from {
            $crate::scan::From::Start => q,
            $crate::scan::From::AtOrAfter(t) => q.filter($dsl::created_at.ge(t.naive_utc())),
            $crate::scan::From::After(t, id) => q.filter(
                $dsl::created_at.gt(t.naive_utc()).or($dsl::created_at
                    .eq(t.naive_utc())
                    .and($dsl::id.gt(id.clone()))),
            ),
        };
        q.order(($dsl::created_at.asc(), $dsl::id.asc()))
            .limit($limit)
    }};
}
pub(crate) use chunk;

/// Applies `narrow`'s values of each `"attribute" => column` pair to a boxed query.
macro_rules! narrowed {
    ($query:expr, $narrow:expr, { $( $attr:expr => $col:expr ),+ $(,)? }) => {{
        use diesel::prelude::*;
        let mut q = $query;
        // One value as `=`, so the index also gives the order (no sort of every match).
        $( for values in $narrow.values($attr) {
            q = match values.as_slice() {
                [one] => q.filter($col.eq(one.clone())),
                _ => q.filter($col.eq_any(values.clone())),
            };
        } )+
        q
    }};
}
pub(crate) use narrowed;
