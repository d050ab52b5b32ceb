//! One connection type over PostgreSQL and SQLite, and the pool's connection manager.

use std::path::PathBuf;

use diesel::connection::SimpleConnection;
use diesel::pg::PgConnection;
use diesel::sqlite::SqliteConnection;
use diesel::{Connection, ConnectionError, RunQueryDsl};

use crate::{Error, Result};

/// A connection to either backend; queries are written once for both.
#[derive(diesel::MultiConnection)]
pub enum DbConnection {
    /// PostgreSQL.
    Pg(PgConnection),
    /// SQLite.
    Sqlite(SqliteConnection),
}

/// Runs `$body` with `$conn` bound to the backend's own connection inside `$c` (a
/// `&mut DbConnection`). The multi-backend connection writes a query's SQL text again on
/// each of diesel's passes over it (cache check, binds), every time it runs; on the
/// backend's connection a statically typed query is prepared once and found again by its
/// type. For the hot statements (every `get`, every list chunk, a package's insert);
/// `$body` is compiled once per backend. With `|$conn, $B|`, `$B` names the backend's
/// type in `$body`, for a boxed query (`into_boxed::<B>()`), whose rows are then decoded
/// by the backend's own types too.
macro_rules! native {
    ($c:expr, |$conn:ident| $body:expr) => {
        match $c {
            crate::DbConnection::Pg($conn) => $body,
            crate::DbConnection::Sqlite($conn) => $body,
        }
    };
    ($c:expr, |$conn:ident, $B:ident| $body:expr) => {
        match $c {
            crate::DbConnection::Pg($conn) => {
                type $B = diesel::pg::Pg;
                $body
            }
            crate::DbConnection::Sqlite($conn) => {
                type $B = diesel::sqlite::Sqlite;
                $body
            }
        }
    };
}

pub(crate) use native;

/// A parsed `database.url`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbUrl {
    /// `postgres://...`, passed to libpq as is.
    Postgres(String),
    /// `sqlite://<path>`.
    Sqlite(PathBuf),
}

impl DbUrl {
    /// Parses `postgres://`, `postgresql://` or `sqlite://<path>`.
    pub fn parse(url: &str) -> Result<Self> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(DbUrl::Postgres(url.to_owned()))
        } else if let Some(path) = url.strip_prefix("sqlite://").filter(|p| !p.is_empty()) {
            Ok(DbUrl::Sqlite(PathBuf::from(path)))
        } else {
            Err(Error::InvalidUrl(
                "database url must be postgres://... or sqlite://<path>".into(),
            ))
        }
    }

    /// `postgres` or `sqlite`.
    pub fn backend(&self) -> &'static str {
        match self {
            DbUrl::Postgres(_) => "postgres",
            DbUrl::Sqlite(_) => "sqlite",
        }
    }

    /// Creates what the backend needs on disk (SQLite's parent directory).
    pub(crate) fn prepare(&self) -> Result<()> {
        if let DbUrl::Sqlite(path) = self
            && let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::Unavailable(format!("cannot create {}: {e}", dir.display())))?;
        }
        Ok(())
    }

    /// Opens one connection.
    pub fn establish(&self) -> std::result::Result<DbConnection, ConnectionError> {
        match self {
            DbUrl::Postgres(url) => PgConnection::establish(url).map(DbConnection::Pg),
            DbUrl::Sqlite(path) => {
                let mut c = SqliteConnection::establish(&path.to_string_lossy())?;
                // WAL lets readers run beside the writer; busy_timeout makes writers queue
                // instead of failing when several pool connections write at once.
                c.batch_execute(
                    "PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 15000; \
                     PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;",
                )
                .map_err(ConnectionError::CouldntSetupConfiguration)?;
                Ok(DbConnection::Sqlite(c))
            }
        }
    }
}

/// A pooled connection and whether it was found broken.
pub struct Pooled {
    /// The connection.
    pub conn: DbConnection,
    /// Set when a query found the connection lost; the pool then discards it.
    pub broken: bool,
}

/// The r2d2 manager: opens connections of the backend the URL names, never guessing.
#[derive(Debug)]
pub(crate) struct Manager {
    url: DbUrl,
}

impl Manager {
    pub(crate) fn new(url: DbUrl) -> Self {
        Self { url }
    }
}

impl r2d2::ManageConnection for Manager {
    type Connection = Pooled;
    type Error = ConnectionError;

    fn connect(&self) -> std::result::Result<Pooled, ConnectionError> {
        Ok(Pooled {
            conn: self.url.establish()?,
            broken: false,
        })
    }

    fn is_valid(&self, pooled: &mut Pooled) -> std::result::Result<(), ConnectionError> {
        diesel::sql_query("SELECT 1")
            .execute(&mut pooled.conn)
            .map(|_| ())
            .map_err(ConnectionError::CouldntSetupConfiguration)
    }

    fn has_broken(&self, pooled: &mut Pooled) -> bool {
        pooled.broken
    }
}
