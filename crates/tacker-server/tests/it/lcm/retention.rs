//! What is pruned and when: delivered and expired notifications, ended occurrences.

use super::*;

/// Delivered notifications leave the outbox after `lcm.notification_retention`;
/// undelivered ones stay.
#[tokio::test]
async fn delivered_notifications_are_pruned_after_their_retention() {
    let app = TestApp::with(
        TestDb::postgres(),
        Options {
            conductors: 1,
            notification_retention: Duration::from_secs(1),
            ..Options::default()
        },
    )
    .await;
    let sub = Subscriber::start(Expect::Nothing);
    let (_, op) = app.instantiated(Some(&sub)).await;
    sub.wait("the result", |g| states_of(g, &op).len() == 3)
        .await;
    let kept = || app.db.outbox().kept();
    assert!(kept().await.unwrap() > 0, "delivered rows are kept a while");
    let deadline = tokio::time::Instant::now() + T;
    while kept().await.unwrap() > 0 {
        assert!(tokio::time::Instant::now() < deadline, "never pruned");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // A subscriber that is down keeps its backlog however old.
    let down = Subscriber::start(Expect::Nothing);
    app.subscribe(&down, json!({})).await;
    down.set_down(true);
    let i = app.create_instance().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        app.db.outbox().undelivered().await.unwrap() > 0,
        "the creation of {i} waits for its subscriber"
    );
}

#[tokio::test]
async fn ended_operations_are_pruned_after_their_retention_and_open_ones_kept() {
    let app = TestApp::with(
        TestDb::postgres(),
        Options {
            conductors: 1,
            op_retention: Duration::from_secs(1),
            ..Options::default()
        },
    )
    .await;
    let (done, _) = app.instantiated(None).await;
    let _ = done;
    // Another instance whose instantiate stays FAILED_TEMP.
    let i = app.create_instance().await;
    let body = json!({"flavourId": "simple", "vimConnectionInfo": sim_vim(),
        "additionalParams": {"sim": {"fail": ["instantiate"], "failTimes": 1}}});
    let open = app.task(&i, "instantiate", body).await;
    assert_eq!(
        app.wait_op(&open, &["FAILED_TEMP", "COMPLETED"]).await["operationState"],
        "FAILED_TEMP"
    );
    let listed = || async {
        let r = app
            .lcm(reqwest::Method::GET, "/vnf_lcm_op_occs")
            .send()
            .await
            .unwrap();
        r.json::<Vec<Value>>()
            .await
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let deadline = tokio::time::Instant::now() + T;
    while listed().await.len() > 1 {
        assert!(tokio::time::Instant::now() < deadline, "never pruned");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        listed().await,
        vec![open.clone()],
        "the FAILED_TEMP one stays"
    );
    // What the conductors report as tacker_lcm_op_occurrences{state}.
    let counts = app.db.op_occs().counts().await.unwrap();
    assert_eq!(counts, vec![("FAILED_TEMP".to_owned(), 1)]);
}

#[tokio::test]
async fn notifications_undelivered_past_their_max_age_are_dropped() {
    let app = TestApp::with(
        TestDb::postgres(),
        Options {
            conductors: 1,
            notification_max_age: Duration::from_secs(1),
            ..Options::default()
        },
    )
    .await;
    app.onboarded_package().await;
    let down = Subscriber::start(Expect::Nothing);
    app.subscribe(&down, json!({})).await;
    down.set_down(true);
    let _ = app.create_instance().await;
    let undelivered = || app.db.outbox().undelivered();
    assert!(
        undelivered().await.unwrap() > 0,
        "queued while the subscriber is down"
    );
    let deadline = tokio::time::Instant::now() + T;
    while undelivered().await.unwrap() > 0 {
        assert!(tokio::time::Instant::now() < deadline, "never dropped");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Back up, it gets nothing of what expired.
    down.set_down(false);
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(down.received().is_empty(), "{:?}", down.received());
}
