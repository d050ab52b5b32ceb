//! Secrets at rest across many rows: the start-up check and the rotation read the tables
//! a chunk at a time and still reach every row.

use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::RunQueryDsl;
use diesel::connection::SimpleConnection;
use tacker_db::secrets::Keyring;
use tacker_db::{instances, sealed};
use tacker_testkit::TestDb;

use crate::open;

/// More rows than one chunk (500) holds, twice over.
const ROWS: usize = 1_234;

fn keyring(specs: &[&String]) -> Arc<Keyring> {
    let specs: Vec<String> = specs.iter().map(|s| (*s).clone()).collect();
    Arc::new(Keyring::parse(&specs).unwrap())
}

/// `rows` occurrences and instances; every other one carries a secret sealed with
/// `keys`, the others plaintext JSON; ids sort in creation order.
fn insert(c: &mut tacker_db::DbConnection, keys: &Keyring, rows: std::ops::Range<usize>) {
    let q = |s: &str| s.replace('\'', "''");
    for chunk in rows.collect::<Vec<_>>().chunks(100) {
        let (mut occs, mut insts) = (Vec::new(), Vec::new());
        for n in chunk {
            let secret = if n % 2 == 0 {
                keys.seal(&format!("pw-{n}")).unwrap()
            } else {
                format!("plain-{n}")
            };
            let request = serde_json::json!({"vimConnectionInfo": {"v": {"accessInfo": {"password": secret}}}});
            occs.push(format!(
                "('occ-{n:05}', 'i', 'INSTANTIATE', 'COMPLETED', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, '{}', CURRENT_TIMESTAMP)",
                q(&request.to_string())
            ));
            let params = if n % 2 == 0 {
                format!("'{}'", q(&secret))
            } else {
                "NULL".into()
            };
            insts.push(format!(
                "('inst-{n:05}', 'd', 'p', 'P', 'N', '1', '1', 'NOT_INSTANTIATED', {params}, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            ));
        }
        diesel::sql_query(format!(
            "INSERT INTO vnf_lcm_op_occs (id, vnf_instance_id, operation, operation_state, \
             state_entered_time, start_time, request, created_at) VALUES {}",
            occs.join(", ")
        ))
        .execute(c)
        .unwrap();
        diesel::sql_query(format!(
            "INSERT INTO vnf_instances (id, vnfd_id, vnf_pkg_id, vnf_provider, vnf_product_name, \
             vnf_software_version, vnfd_version, instantiation_state, instantiate_params, \
             created_at, updated_at) VALUES {}",
            insts.join(", ")
        ))
        .execute(c)
        .unwrap();
    }
}

/// [`insert`] through the pool.
async fn seed(db: &tacker_db::Db, keys: &Arc<Keyring>, rows: std::ops::Range<usize>) {
    let k = keys.clone();
    db.run(move |c| {
        insert(c, &k, rows);
        Ok(())
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn every_sealed_row_is_checked_and_resealed_a_chunk_at_a_time() {
    for t in TestDb::each() {
        let db = open(&t);
        let [s1, s2, s9] = ["k1", "k2", "k9"].map(|id| Keyring::generate(id).unwrap());
        let (k1, k2_k1, k2) = (keyring(&[&s1]), keyring(&[&s2, &s1]), keyring(&[&s2]));
        seed(&db, &k1, 0..ROWS).await;
        let sealed_rows = ROWS.div_ceil(2);

        // Every sealed value opens, in the JSON of occurrences and in instances' params.
        let k = k1.clone();
        let (json, params) = db
            .run(move |c| Ok((sealed::open_all(c, &k)?, instances::open_sealed(c, &k)?)))
            .await
            .unwrap();
        assert_eq!((json, params), (sealed_rows, sealed_rows), "{}", t.url);

        // Rotation re-seals all of them with the new key...
        let k = k2_k1.clone();
        let (json, params) = db
            .run(move |c| Ok((sealed::reseal_all(c, &k)?, instances::reseal(c, &k)?)))
            .await
            .unwrap();
        assert_eq!((json, params), (sealed_rows, sealed_rows));
        // A second run finds nothing left to do.
        let k = k2_k1.clone();
        let again = db
            .run(move |c| Ok((sealed::reseal_all(c, &k)?, instances::reseal(c, &k)?)))
            .await
            .unwrap();
        assert_eq!(again, (0, 0));
        // ...so the new key alone opens everything, the old one nothing.
        let k = k2.clone();
        let opened = db
            .run(move |c| Ok((sealed::open_all(c, &k)?, instances::open_sealed(c, &k)?)))
            .await
            .unwrap();
        assert_eq!(opened, (sealed_rows, sealed_rows));
        let k = k1.clone();
        assert!(db.run(move |c| sealed::open_all(c, &k)).await.is_err());

        // One value sealed with a key nobody configured, past the first chunks: named.
        seed(&db, &keyring(&[&s9]), ROWS..ROWS + 1).await;
        let k = k2.clone();
        let e = db.run(move |c| sealed::open_all(c, &k)).await.unwrap_err();
        assert!(e.to_string().contains("k9"), "{e}");
        let k = k2.clone();
        let e = db.instances().open_sealed(&k).await.unwrap_err();
        assert!(e.to_string().contains("k9"), "{e}");
    }
}

/// Backends of this database waiting for a row lock in an UPDATE.
fn lock_waiters(c: &mut tacker_db::DbConnection) -> i64 {
    diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
        "(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
         AND wait_event_type = 'Lock' AND query LIKE 'UPDATE%')",
    ))
    .get_result(c)
    .unwrap()
}

/// A value written while the rotation runs is re-sealed, not overwritten by the value
/// the rotation read before: the rotation waits on the row (locked by the writer), the
/// writer commits a new secret, and the row ends with the new secret under the new key.
#[tokio::test]
async fn a_secret_written_during_the_rotation_is_kept() {
    let t = TestDb::postgres();
    let db = open(&t);
    let [s1, s2] = ["k1", "k2"].map(|id| Keyring::generate(id).unwrap());
    let (k1, k2_k1, k2) = (keyring(&[&s1]), keyring(&[&s2, &s1]), keyring(&[&s2]));
    seed(&db, &k1, 0..ROWS).await;
    let url = tacker_db::DbUrl::parse(&t.url).unwrap();
    let mut writer = url.establish().unwrap();
    let mut watcher = url.establish().unwrap();
    writer
        .batch_execute("BEGIN; SELECT id FROM vnf_lcm_op_occs WHERE id = 'occ-00600' FOR UPDATE")
        .unwrap();
    let k = k2_k1.clone();
    let pool = db.clone();
    let rotation = tokio::spawn(async move { pool.run(move |c| sealed::reseal_all(c, &k)).await });
    let deadline = Instant::now() + Duration::from_secs(20);
    while lock_waiters(&mut watcher) == 0 {
        assert!(
            Instant::now() < deadline,
            "the rotation never reached the row"
        );
        assert!(
            !rotation.is_finished(),
            "the rotation went past a locked row"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let changed = k1.seal("pw-changed").unwrap();
    let request =
        serde_json::json!({"vimConnectionInfo": {"v": {"accessInfo": {"password": changed}}}});
    writer
        .batch_execute(&format!(
            "UPDATE vnf_lcm_op_occs SET request = '{request}' WHERE id = 'occ-00600'; COMMIT"
        ))
        .unwrap();
    let n = rotation.await.unwrap().unwrap();
    assert_eq!(n, ROWS.div_ceil(2), "each sealed row re-sealed once");
    let stored: String = diesel::select(diesel::dsl::sql::<diesel::sql_types::Text>(
        "(SELECT request FROM vnf_lcm_op_occs WHERE id = 'occ-00600')",
    ))
    .get_result(&mut watcher)
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&stored).unwrap();
    let sealed = v["vimConnectionInfo"]["v"]["accessInfo"]["password"]
        .as_str()
        .unwrap();
    assert!(sealed.starts_with("enc:v1:k2:"), "{sealed}");
    assert_eq!(
        k2.open(sealed).unwrap(),
        "pw-changed",
        "the writer's secret kept"
    );
}
