//! Secrets at rest across many rows: the start-up check and the rotation read the tables
//! a chunk at a time and still reach every row.

use diesel::RunQueryDsl;
use tacker_db::secrets::Keyring;
use tacker_db::{instances, sealed};
use tacker_testkit::TestDb;

use crate::open;

/// More rows than one chunk (500) holds, twice over.
const ROWS: usize = 1_234;

fn keyring(specs: &[&String]) -> std::sync::Arc<Keyring> {
    let specs: Vec<String> = specs.iter().map(|s| (*s).clone()).collect();
    std::sync::Arc::new(Keyring::parse(&specs).unwrap())
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

#[tokio::test]
async fn every_sealed_row_is_checked_and_resealed_a_chunk_at_a_time() {
    for t in TestDb::each() {
        let db = open(&t);
        let [s1, s2, s9] = ["k1", "k2", "k9"].map(|id| Keyring::generate(id).unwrap());
        let (k1, k2_k1, k2) = (keyring(&[&s1]), keyring(&[&s2, &s1]), keyring(&[&s2]));
        let k = k1.clone();
        db.run(move |c| {
            insert(c, &k, 0..ROWS);
            Ok(())
        })
        .await
        .unwrap();
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
        let k9 = keyring(&[&s9]);
        db.run(move |c| {
            insert(c, &k9, ROWS..ROWS + 1);
            Ok(())
        })
        .await
        .unwrap();
        let k = k2.clone();
        let e = db.run(move |c| sealed::open_all(c, &k)).await.unwrap_err();
        assert!(e.to_string().contains("k9"), "{e}");
        let k = k2.clone();
        let e = db
            .run(move |c| instances::open_sealed(c, &k))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("k9"), "{e}");
    }
}
