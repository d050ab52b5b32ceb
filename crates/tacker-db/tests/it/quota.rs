//! Creations under a quota (`quota::within`) on SQLite, where a transaction that reads
//! and then writes must not fail because another connection committed in between.

use std::time::Duration;

use diesel::RunQueryDsl;
use tacker_db::{DbConnection, quota};
use tacker_testkit::TestDb;

use crate::open;

fn none(_: &mut DbConnection, _: Option<&str>) -> tacker_db::Result<u64> {
    Ok(0)
}

fn exec(c: &mut DbConnection, sql: &str) -> tacker_db::Result<usize> {
    Ok(diesel::sql_query(sql).execute(c)?)
}

/// A creation reads, another connection writes and commits, then the creation writes:
/// on SQLite (WAL) that upgrade used to fail at once with "database is locked" (a 500
/// at the API); now the other writer waits for the creation, and both land.
#[tokio::test]
async fn a_creation_is_not_failed_by_a_writer_committing_between_its_read_and_its_write() {
    let t = TestDb::sqlite();
    let db = open(&t);
    db.migrate().await.unwrap();
    db.run(|c| exec(c, "CREATE TABLE scratch (id TEXT)"))
        .await
        .unwrap();
    let other = db.clone();
    let made = db
        .run(move |c| {
            quota::within(c, "scratch", None, 0, none, |c| {
                exec(c, "SELECT id FROM scratch")?;
                let writer = std::thread::spawn(move || {
                    tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .unwrap()
                        .block_on(other.run(|c| exec(c, "INSERT INTO scratch VALUES ('other')")))
                });
                std::thread::sleep(Duration::from_millis(300));
                exec(c, "INSERT INTO scratch VALUES ('created')")?;
                Ok(writer)
            })
        })
        .await
        .unwrap()
        .unwrap();
    made.join().unwrap().unwrap();
    let rows = db
        .run(|c| exec(c, "UPDATE scratch SET id = id"))
        .await
        .unwrap();
    assert_eq!(rows, 2, "both writes landed");
}
