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
            db.run(move |c| packages::insert(c, &p)).await.unwrap();
        }
        let id = a.id;
        let got = db
            .run(move |c| packages::get(c, id))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(got.package.user_defined_data, a.user_defined_data);
        assert_eq!(got.package.onboarding_state, OnboardingState::Created);
        assert_eq!(got.revision, 0);
        let all = db.run(packages::list).await.unwrap();
        assert_eq!(
            all.iter().map(|p| p.id).collect::<Vec<_>>(),
            vec![a.id, b.id]
        );
        let missing = db.run(|c| packages::get(c, Uuid::new_v4())).await.unwrap();
        assert!(missing.is_none(), "{}", t.url);
    }
}

#[tokio::test]
async fn modify_is_optimistic_and_delete_is_conditional() {
    for t in TestDb::each() {
        let db = open(&t);
        let p = new_pkg(json!({"a": 1}));
        let id = p.id;
        db.run(move |c| packages::insert(c, &p)).await.unwrap();
        let data = json!({"a": 2}).as_object().unwrap().clone();
        let d2 = data.clone();
        assert!(
            db.run(move |c| packages::modify(c, id, 0, None, Some(&d2)))
                .await
                .unwrap()
        );
        // A writer holding the old revision loses.
        let d3 = data.clone();
        assert!(
            !db.run(move |c| packages::modify(c, id, 0, None, Some(&d3)))
                .await
                .unwrap()
        );
        let got = db
            .run(move |c| packages::get(c, id))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(got.revision, 1);
        assert_eq!(got.package.user_defined_data, data);

        // ENABLED packages cannot be deleted.
        let en = Some(OperationalState::Enabled);
        assert!(
            db.run(move |c| packages::modify(c, id, 1, en, None))
                .await
                .unwrap()
        );
        assert!(!db.run(move |c| packages::soft_delete(c, id)).await.unwrap());
        let dis = Some(OperationalState::Disabled);
        assert!(
            db.run(move |c| packages::modify(c, id, 2, dis, None))
                .await
                .unwrap()
        );
        assert!(db.run(move |c| packages::soft_delete(c, id)).await.unwrap());
        assert!(!db.run(move |c| packages::soft_delete(c, id)).await.unwrap());
        assert!(
            db.run(move |c| packages::get(c, id))
                .await
                .unwrap()
                .is_none()
        );
        assert!(db.run(packages::list).await.unwrap().is_empty());
    }
}
