use serde_json::json;
use tacker_db::packages;
use tacker_domain::package::{OnboardingState, OperationalState, VnfPackage};
use tacker_testkit::TestDb;
use uuid::Uuid;

use crate::open;

fn new_pkg(data: serde_json::Value) -> VnfPackage {
    VnfPackage::new(
        Uuid::new_v4(),
        data.as_object().unwrap().clone(),
        chrono::Utc::now(),
    )
}

#[tokio::test]
async fn insert_get_list_round_trip_on_both_backends() {
    for t in TestDb::each() {
        let db = open(&t);
        db.migrate().await.unwrap(); // idempotent on a migrated database
        let a = new_pkg(json!({"k": "v", "n": 1}));
        let b = new_pkg(json!({}));
        for p in [a.clone(), b.clone()] {
            db.packages().insert(&p).await.unwrap();
        }
        let id = a.id;
        let got = db.packages().get(id).await.unwrap().unwrap();
        assert_eq!(got.package.user_defined_data, a.user_defined_data);
        assert_eq!(got.package.onboarding_state, OnboardingState::Created);
        assert_eq!(got.revision, 0);
        let all = db.packages().list().await.unwrap();
        assert_eq!(
            all.iter().map(|p| p.id).collect::<Vec<_>>(),
            vec![a.id, b.id]
        );
        let missing = db.packages().get(Uuid::new_v4()).await.unwrap();
        assert!(missing.is_none(), "{}", t.url);
    }
}

#[tokio::test]
async fn modify_is_optimistic_and_delete_is_conditional() {
    for t in TestDb::each() {
        let db = open(&t);
        let p = new_pkg(json!({"a": 1}));
        let id = p.id;
        db.packages().insert(&p).await.unwrap();
        let data = json!({"a": 2}).as_object().unwrap().clone();
        let d2 = data.clone();
        assert!(db.packages().modify(id, 0, None, Some(&d2)).await.unwrap());
        // A writer holding the old revision loses.
        let d3 = data.clone();
        assert!(!db.packages().modify(id, 0, None, Some(&d3)).await.unwrap());
        let got = db.packages().get(id).await.unwrap().unwrap();
        assert_eq!(got.revision, 1);
        assert_eq!(got.package.user_defined_data, data);

        // ENABLED packages cannot be deleted.
        let en = Some(OperationalState::Enabled);
        assert!(db.packages().modify(id, 1, en, None).await.unwrap());
        assert!(!db.packages().soft_delete(id).await.unwrap());
        let dis = Some(OperationalState::Disabled);
        assert!(db.packages().modify(id, 2, dis, None).await.unwrap());
        assert!(db.packages().soft_delete(id).await.unwrap());
        assert!(!db.packages().soft_delete(id).await.unwrap());
        assert!(db.packages().get(id).await.unwrap().is_none());
        assert!(db.packages().list().await.unwrap().is_empty());
    }
}

/// Filters on paths into `userDefinedData` narrow in the database (PostgreSQL jsonb
/// paths, SQLite json_extract) and keep every row the in-memory filter matches: values
/// behind arrays (nested too), booleans and null as text, quotes in values.
#[tokio::test]
async fn json_path_equalities_narrow_in_the_database_and_keep_every_match() {
    use tacker_db::scan::{From, Narrow};
    use tacker_domain::sol013::Filter;
    let rows = [
        json!({"site": {"zone": "a"}}),
        json!({"site": {"zone": "b"}}),
        json!({"site": [{"zone": "b"}, {"zone": "a"}]}),
        json!({"site": {"zone": ["x", "a"]}}),
        json!({"site": [[{"zone": "a"}]]}),
        json!({"site": {"zone": "it's \"q\""}}),
        json!({"other": "a", "zone": "a"}),
        json!({"site": {"zone": true}}),
        json!({"site": {"zone": "true"}}),
        json!({"site": {"zone": null}}),
        json!({"site": {"zone": 1}}),
        json!({"sité": {"zöne": "a"}}),
    ];
    for t in TestDb::each() {
        let db = open(&t);
        let pkgs: Vec<VnfPackage> = rows.iter().map(|d| new_pkg(d.clone())).collect();
        let ids: Vec<Uuid> = pkgs.iter().map(|p| p.id).collect();
        db.run(move |c| pkgs.iter().try_for_each(|p| packages::insert(c, p)))
            .await
            .unwrap();
        for (path, values, narrowed) in [
            ("userDefinedData/site/zone", vec!["a"], true),
            ("userDefinedData/site/zone", vec!["b", "true"], true),
            ("userDefinedData/site/zone", vec!["null"], true),
            ("userDefinedData/site/zone", vec!["it's \"q\""], true),
            ("userDefinedData/sité/zöne", vec!["a"], true),
            // Numbers are compared by the filter only.
            ("userDefinedData/site/zone", vec!["1"], false),
        ] {
            let values: Vec<String> = values.into_iter().map(str::to_owned).collect();
            let quoted: Vec<String> = values
                .iter()
                .map(|v| format!("'{}'", v.replace('\'', "''")))
                .collect();
            let filter = Filter::parse(
                &format!("(in,{path},{})", quoted.join(",")),
                &["userDefinedData"],
            )
            .unwrap();
            let wanted: Vec<Uuid> = rows
                .iter()
                .zip(&ids)
                .filter(|(d, _)| filter.matches(&json!({ "userDefinedData": d })))
                .map(|(_, id)| *id)
                .collect();
            assert!(!wanted.is_empty(), "{path} {values:?}");
            let narrow = Narrow(vec![(path.to_owned(), values.clone())]);
            let got: Vec<Uuid> = db
                .packages()
                .list_from(&From::Start, &narrow, 100)
                .await
                .unwrap()
                .into_iter()
                .map(|p| p.id)
                .filter(|id| ids.contains(id))
                .collect();
            for id in &wanted {
                assert!(got.contains(id), "{} {path} {values:?} lost {id}", t.url);
            }
            // Rows that match nothing and have no array on the path stay in the database.
            let plain_misses = [ids[1], ids[6], ids[10]]
                .into_iter()
                .filter(|id| !wanted.contains(id));
            for id in plain_misses {
                assert_eq!(
                    got.contains(&id),
                    !narrowed,
                    "{} {path} {values:?}: row {id}",
                    t.url
                );
            }
        }
    }
}
