//! Cancelling running occurrences (SOL003 `…/vnf_lcm_op_occs/{id}/cancel`), with
//! in-process conductors and the simulated VIM held in its step.

use super::*;

impl TestApp {
    async fn cancel(&self, version: &str, op: &str, body: Value) -> reqwest::Response {
        let v = if version == "v2" { "2.0.0" } else { "1.3.0" };
        self.http
            .post(self.url(&format!("/vnflcm/{version}/vnf_lcm_op_occs/{op}/cancel")))
            .header("Version", v)
            .json(&body)
            .send()
            .await
            .unwrap()
    }
}

#[tokio::test]
async fn graceful_waits_for_the_step_forceful_interrupts_it_and_both_end_failed_temp() {
    let app = cluster(TestDb::sqlite()).await;
    let sub = Subscriber::start(Expect::Nothing);
    let (i, _) = app.instantiated(Some(&sub)).await;

    // GRACEFUL (through v1): the held scale step finishes, then the occurrence stops.
    let hold = tempfile::NamedTempFile::new().unwrap();
    let held = json!({"sim": {"holdFile": hold.path()}});
    let op = app
        .task(
            &i,
            "scale",
            json!({"type": "SCALE_OUT", "aspectId": "vdu1_aspect", "additionalParams": held}),
        )
        .await;
    let running = app.wait_op(&op, &["PROCESSING"]).await;
    assert_eq!(running["isCancelPending"], false);
    assert!(
        running["_links"]["cancel"]["href"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/vnf_lcm_op_occs/{op}/cancel")),
        "{running}"
    );
    for bad in [json!({}), json!({"cancelMode": "SOON"})] {
        assert_problem(app.cancel("v2", &op, bad).await, 400, "cancelMode").await;
    }
    let r = app
        .cancel("v1", &op, json!({"cancelMode": "GRACEFUL"}))
        .await;
    assert_eq!(r.status(), 202);
    let pending = app.op(&op).await;
    assert_eq!(pending["operationState"], "PROCESSING");
    assert_eq!(pending["isCancelPending"], true);
    assert_eq!(pending["cancelMode"], "GRACEFUL");
    assert!(pending["_links"].get("cancel").is_none(), "{pending}");
    assert_problem(
        app.cancel("v2", &op, json!({"cancelMode": "FORCEFUL"}))
            .await,
        409,
        "being cancelled already",
    )
    .await;
    // Graceful: nothing happens while the step runs.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(app.op(&op).await["operationState"], "PROCESSING");
    drop(hold);
    let ended = app.wait_op(&op, &["FAILED_TEMP", "COMPLETED"]).await;
    assert_eq!(ended["operationState"], "FAILED_TEMP", "{ended}");
    assert_eq!(ended["error"]["title"], "Operation cancelled");
    assert!(
        ended["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("GRACEFUL")
    );
    assert_eq!(ended["isCancelPending"], false);
    assert!(ended.get("cancelMode").is_none());
    assert_problem(
        app.cancel("v2", &op, json!({"cancelMode": "GRACEFUL"}))
            .await,
        409,
        "is FAILED_TEMP",
    )
    .await;
    // From FAILED_TEMP a retry completes it.
    assert_eq!(app.op_action(&op, "retry").await, 202);
    assert_eq!(
        app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await["operationState"],
        "COMPLETED"
    );

    // FORCEFUL: the held step is interrupted while its hold is still there.
    let hold = tempfile::NamedTempFile::new().unwrap();
    let held = json!({"sim": {"holdFile": hold.path()}});
    let op = app
        .task(
            &i,
            "scale",
            json!({"type": "SCALE_OUT", "aspectId": "vdu1_aspect", "additionalParams": held}),
        )
        .await;
    app.wait_op(&op, &["PROCESSING"]).await;
    let before = app.instance(&i).await["instantiatedVnfInfo"]["vnfcResourceInfo"]
        .as_array()
        .unwrap()
        .len();
    let r = app
        .cancel("v2", &op, json!({"cancelMode": "FORCEFUL"}))
        .await;
    assert_eq!(r.status(), 202);
    let ended = app.wait_op(&op, &["FAILED_TEMP", "COMPLETED"]).await;
    assert!(hold.path().exists(), "ended before its step was let go");
    assert_eq!(ended["operationState"], "FAILED_TEMP", "{ended}");
    assert!(
        ended["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("FORCEFUL")
    );
    // Nothing was recorded of the interrupted step; rollback settles it.
    let now = app.instance(&i).await["instantiatedVnfInfo"]["vnfcResourceInfo"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(now, before);
    drop(hold);
    assert_eq!(app.op_action(&op, "rollback").await, 202);
    assert_eq!(
        app.wait_op(&op, &["ROLLED_BACK", "FAILED_TEMP"]).await["operationState"],
        "ROLLED_BACK"
    );
    // Subscribers heard every end.
    sub.wait("the cancelled scale's FAILED_TEMP", |g| {
        states_of(g, &op).contains(&"RESULT:FAILED_TEMP".to_owned())
    })
    .await;
    // A completed occurrence cannot be cancelled.
    assert_problem(
        app.cancel("v2", &op, json!({"cancelMode": "GRACEFUL"}))
            .await,
        409,
        "ROLLED_BACK",
    )
    .await;
}
