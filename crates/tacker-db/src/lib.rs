#![doc = include_str!("../README.md")]

pub mod alarms;
pub mod auto_heals;
pub mod auto_scales;
pub mod conductors;
mod connection;
mod error;
pub mod fm_subscriptions;
mod handle;
pub mod host_keys;
pub mod instances;
mod json_path;
pub mod op_occs;
pub mod outbox;
pub mod packages;
pub mod pkgm_subscriptions;
pub mod pm_jobs;
pub mod pm_thresholds;
pub mod quota;
mod rows;
pub mod scan;
pub mod schema;
mod scope_column;
pub mod sealed;
pub mod secrets;
pub mod sim_faults;
mod subscription_table;
pub mod subscriptions;
mod usage;
pub mod vims;
mod workers;

use std::sync::Arc;
use std::time::Duration;

use diesel::RunQueryDsl;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

pub use connection::{DbConnection, DbUrl, Pooled};
pub use error::{Error, Result};

const PG_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/postgres");
const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/sqlite");

/// A fingerprint of the migration files (test databases are cloned from a template
/// named after it).
pub const MIGRATIONS_FINGERPRINT: &str = env!("TACKER_MIGRATIONS_HASH");

type Pool = r2d2::Pool<connection::Manager>;

/// A pool of connections to PostgreSQL or SQLite.
#[derive(Clone)]
pub struct Db {
    pool: Pool,
    url: DbUrl,
    /// One permit per connection, handed out first come, first served: callers queue
    /// here (fairly, without holding a blocking thread) rather than on the pool's
    /// condition variable, where a busy caller could overtake a waiting one again and
    /// again and leave it waiting for hundreds of milliseconds.
    turns: Arc<tokio::sync::Semaphore>,
    /// The threads that run the calls, at most one per connection.
    workers: Arc<workers::Workers>,
    timeout: Duration,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("backend", &self.url.backend())
            .finish()
    }
}

impl Db {
    /// Opens a pool of `size` connections to `url` (`postgres://...` or `sqlite://<path>`).
    /// The pool is lazy: it does not fail when the database is down at start.
    pub fn connect(url: &str, size: u32, timeout: Duration) -> Result<Self> {
        let url = DbUrl::parse(url)?;
        url.prepare()?;
        let pool = r2d2::Pool::builder()
            .max_size(size)
            .min_idle(Some(0))
            // Connections are checked by their use: a lost one is dropped (see `run`).
            .test_on_check_out(false)
            .connection_timeout(timeout)
            .build_unchecked(connection::Manager::new(url.clone()));
        let turns = Arc::new(tokio::sync::Semaphore::new(size as usize));
        Ok(Self {
            pool,
            url,
            turns,
            workers: workers::Workers::new(size as usize),
            timeout,
        })
    }

    /// Which backend this pool talks to.
    pub fn backend(&self) -> &'static str {
        self.url.backend()
    }

    /// Runs `f` with a pooled connection on one of the pool's threads.
    pub async fn run<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> Result<T> + Send + 'static,
    {
        let pool = self.pool.clone();
        let turn = tokio::time::timeout(self.timeout, self.turns.clone().acquire_owned())
            .await
            .map_err(|_| {
                Error::Unavailable(format!(
                    "no database connection free within {:?}",
                    self.timeout
                ))
            })?
            .map_err(|e| Error::Unavailable(e.to_string()))?;
        let (answer, answered) = tokio::sync::oneshot::channel();
        self.workers
            .submit(Box::new(move || {
                let _turn = turn;
                let _ = answer.send(call(&pool, f));
            }))
            .map_err(|e| Error::Unavailable(format!("no database thread: {e}")))?;
        answered
            .await
            .map_err(|_| Error::Unavailable("database call panicked".into()))?
    }

    /// Applies every pending migration; returns the versions applied.
    pub async fn migrate(&self) -> Result<Vec<String>> {
        self.run(migrate_connection).await
    }

    /// Migrations not yet applied (empty when the schema is current).
    pub async fn pending_migrations(&self) -> Result<Vec<String>> {
        self.run(|conn| match conn {
            DbConnection::Pg(c) => migration_names(c.pending_migrations(PG_MIGRATIONS)),
            DbConnection::Sqlite(c) => migration_names(c.pending_migrations(SQLITE_MIGRATIONS)),
        })
        .await
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<()> {
        self.run(|c| {
            diesel::sql_query("SELECT 1").execute(c)?;
            Ok(())
        })
        .await
    }
}

/// Applies every pending migration on one connection.
pub fn migrate_connection(conn: &mut DbConnection) -> Result<Vec<String>> {
    let applied = match conn {
        DbConnection::Pg(c) => c.run_pending_migrations(PG_MIGRATIONS),
        DbConnection::Sqlite(c) => c.run_pending_migrations(SQLITE_MIGRATIONS),
    }
    .map_err(|e| Error::Migration(e.to_string()))?;
    Ok(applied.iter().map(ToString::to_string).collect())
}

/// A value as the JSON text stored in a column.
pub(crate) fn json_text(v: &impl serde::Serialize) -> String {
    // Serialising plain JSON values, maps and our own types cannot fail.
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

/// Now, to the microsecond: what PostgreSQL keeps, and what page markers carry, so
/// both backends store and order the same instants.
pub(crate) fn now() -> chrono::NaiveDateTime {
    use chrono::SubsecRound;
    chrono::Utc::now().naive_utc().trunc_subsecs(6)
}

/// The time `age` ago (the start of time for an age too large to count).
pub(crate) fn ago(age: std::time::Duration) -> chrono::NaiveDateTime {
    chrono::Duration::from_std(age)
        .ok()
        .and_then(|d| now().checked_sub_signed(d))
        .unwrap_or(chrono::NaiveDateTime::MIN)
}

/// The names of the migrations `pending` lists.
fn migration_names<B: diesel::backend::Backend>(
    pending: diesel::migration::Result<Vec<Box<dyn diesel::migration::Migration<B>>>>,
) -> Result<Vec<String>> {
    Ok(pending
        .map_err(|e| Error::Migration(e.to_string()))?
        .iter()
        .map(|m| m.name().to_string())
        .collect())
}

/// One call on a pooled connection; a connection found lost is not returned to the pool,
/// so the next caller gets a fresh one.
fn call<T>(pool: &Pool, f: impl FnOnce(&mut DbConnection) -> Result<T>) -> Result<T> {
    let mut conn = pool.get().map_err(|e| Error::Unavailable(e.to_string()))?;
    let result = f(&mut conn.conn);
    if let Err(e) = &result
        && e.is_connection_lost()
    {
        conn.broken = true;
        return Err(Error::Unavailable(e.to_string()));
    }
    result
}
