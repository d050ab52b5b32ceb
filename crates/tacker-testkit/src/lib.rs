#![doc = include_str!("../README.md")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

pub mod cnf;
pub mod csar;
pub mod helm;
mod infra;
pub mod keystone;
pub mod mgmt;
pub mod moto;
pub mod oidc;
pub mod peers;
pub mod pgpair;
pub mod rabbit;
pub mod relay;
pub mod samples;
pub mod vm;

use std::path::PathBuf;

use diesel::pg::PgConnection;
use diesel::{Connection, RunQueryDsl};

/// The resource id a `Location` header names (its last path segment).
pub fn id_of(location: &str) -> String {
    location.rsplit('/').next().unwrap_or_default().to_owned()
}

/// The PostgreSQL server tests use (without a database name).
pub fn pg_server() -> String {
    std::env::var("TACKER_TEST_PG").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".into())
}

/// The URL of database `name` on [`pg_server`]. Without TLS: the server is local, and a
/// test process exiting while a pool thread is still in OpenSSL (opening or closing a
/// connection) raced OpenSSL's exit-time cleanup ("double free or corruption").
pub fn pg_url(name: &str) -> String {
    format!("{}/{name}?sslmode=disable", pg_server())
}

/// The RabbitMQ broker tests use.
pub fn amqp_url() -> String {
    std::env::var("TACKER_TEST_AMQP")
        .unwrap_or_else(|_| "amqp://guest:guest@127.0.0.1:5672/%2f".into())
}

/// A bus prefix no other test uses.
pub fn unique_prefix() -> String {
    format!("t-{}", &uuid::Uuid::new_v4().simple().to_string()[..12])
}

/// A database for one test, removed when dropped.
pub struct TestDb {
    /// `database.url` for it.
    pub url: String,
    pg_name: Option<String>,
    _dir: Option<tempfile::TempDir>,
}

impl std::fmt::Debug for TestDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.url)
    }
}

#[derive(diesel::QueryableByName)]
struct Exists {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

fn admin() -> PgConnection {
    let url = pg_url("postgres");
    PgConnection::establish(&url)
        .unwrap_or_else(|e| panic!("cannot reach PostgreSQL at {url}: {e}"))
}

fn db_exists(c: &mut PgConnection, name: &str) -> bool {
    diesel::sql_query(format!(
        "SELECT count(*) AS n FROM pg_database WHERE datname = '{name}'"
    ))
    .get_result::<Exists>(c)
    .unwrap()
    .n > 0
}

/// Creates the migrated template once (under an advisory lock) and returns its name.
fn template(c: &mut PgConnection) -> String {
    let name = format!("tacker_tpl_{}", tacker_db::MIGRATIONS_FINGERPRINT);
    if db_exists(c, &name) {
        return name;
    }
    diesel::sql_query("SELECT pg_advisory_lock(727274)")
        .execute(c)
        .unwrap();
    if !db_exists(c, &name) {
        let building = format!("{name}_building");
        diesel::sql_query(format!("DROP DATABASE IF EXISTS {building}"))
            .execute(c)
            .unwrap();
        diesel::sql_query(format!("CREATE DATABASE {building}"))
            .execute(c)
            .unwrap();
        {
            let url = pg_url(&building);
            let mut conn = tacker_db::DbUrl::Postgres(url).establish().unwrap();
            tacker_db::migrate_connection(&mut conn).unwrap();
        }
        diesel::sql_query(format!("ALTER DATABASE {building} RENAME TO {name}"))
            .execute(c)
            .unwrap();
    }
    diesel::sql_query("SELECT pg_advisory_unlock(727274)")
        .execute(c)
        .unwrap();
    name
}

impl TestDb {
    /// A fresh, migrated PostgreSQL database.
    pub fn postgres() -> Self {
        let mut c = admin();
        let tpl = template(&mut c);
        let name = format!("tacker_t_{}", uuid::Uuid::new_v4().simple());
        diesel::sql_query(format!("CREATE DATABASE {name} TEMPLATE {tpl}"))
            .execute(&mut c)
            .unwrap();
        Self {
            url: pg_url(&name),
            pg_name: Some(name),
            _dir: None,
        }
    }

    /// A fresh, migrated SQLite database file.
    pub fn sqlite() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path: PathBuf = dir.path().join("tacker.db");
        let url = format!("sqlite://{}", path.display());
        let mut conn = tacker_db::DbUrl::parse(&url).unwrap().establish().unwrap();
        tacker_db::migrate_connection(&mut conn).unwrap();
        Self {
            url,
            pg_name: None,
            _dir: Some(dir),
        }
    }

    /// Both backends, for tests that must pass on each.
    pub fn each() -> [Self; 2] {
        [Self::postgres(), Self::sqlite()]
    }
}

impl TestDb {
    /// Drops a PostgreSQL database now, under whoever uses it (outage tests).
    pub fn drop_now(&self) {
        if let Some(name) = &self.pg_name {
            let mut c = admin();
            let _ = diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .execute(&mut c);
        }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        self.drop_now();
    }
}

/// A temp dir for one test's files.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}
