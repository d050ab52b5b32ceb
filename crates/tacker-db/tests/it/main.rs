//! tacker-db against real PostgreSQL and SQLite.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

mod conductors;
mod packages;
mod quota;
mod schema;
mod sealed;

use std::time::Duration;

use tacker_db::Db;
use tacker_testkit::TestDb;

fn open(t: &TestDb) -> Db {
    Db::connect(&t.url, 4, Duration::from_secs(5)).unwrap()
}
