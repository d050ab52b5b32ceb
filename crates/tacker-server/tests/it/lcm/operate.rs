//! `operate` (SOL003 start/stop), with in-process conductors and the simulated VIM.

use super::*;

fn states(instance: &Value) -> Vec<String> {
    instance["instantiatedVnfInfo"]["vnfcInfo"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["vnfcState"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn operate_stops_and_starts_the_vnf_or_named_vnfcs() {
    let app = cluster(TestDb::sqlite()).await;
    let (i, _) = app.instantiated(None).await;
    let before = app.instance(&i).await;
    assert_eq!(before["instantiatedVnfInfo"]["vnfState"], "STARTED");
    let n = states(&before).len();
    assert!(n >= 2, "{before}");

    for (body, text) in [
        (json!({}), "changeStateTo"),
        (
            json!({"changeStateTo": "STARTED", "stopType": "FORCEFUL"}),
            "STOPPED only",
        ),
        (
            json!({"changeStateTo": "STOPPED", "vnfcInstanceId": ["no-such-vnfc"]}),
            "no-such-vnfc",
        ),
    ] {
        let r = app
            .lcm_json(
                reqwest::Method::POST,
                &format!("/vnf_instances/{i}/operate"),
                body,
            )
            .await;
        assert_problem(r, 400, text).await;
    }

    // The whole VNF stops: every VNFC MODIFIED.
    let op = app
        .task(
            &i,
            "operate",
            json!({"changeStateTo": "STOPPED", "stopType": "GRACEFUL", "gracefulStopTimeout": 5}),
        )
        .await;
    let done = app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    assert_eq!(done["operation"], "OPERATE");
    let changed = done["resourceChanges"]["affectedVnfcs"].as_array().unwrap();
    assert_eq!(changed.len(), n);
    assert!(changed.iter().all(|c| c["changeType"] == "MODIFIED"));
    let stopped = app.instance(&i).await;
    assert_eq!(stopped["instantiatedVnfInfo"]["vnfState"], "STOPPED");
    assert!(states(&stopped).iter().all(|s| s == "STOPPED"));
    // Stopping it again would change nothing: refused.
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/operate"),
            json!({"changeStateTo": "STOPPED"}),
        )
        .await;
    assert_problem(r, 409, "STOPPED already").await;
    // A stopped VNF neither scales nor heals until started.
    for (task, body) in [
        (
            "scale",
            json!({"type": "SCALE_OUT", "aspectId": "vdu1_aspect"}),
        ),
        ("heal", json!({})),
    ] {
        let r = app
            .lcm_json(
                reqwest::Method::POST,
                &format!("/vnf_instances/{i}/{task}"),
                body,
            )
            .await;
        assert_problem(r, 409, "is STOPPED").await;
    }

    // One VNFC started again (through v1, by its vnfcResourceInfo id as v1 names it).
    let first = &stopped["instantiatedVnfInfo"]["vnfcInfo"][0];
    let r = app
        .http
        .post(app.url(&format!("/vnflcm/v1/vnf_instances/{i}/operate")))
        .json(&json!({"changeStateTo": "STARTED",
            "vnfcInstanceId": [first["vnfcResourceInfoId"]]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let op = tacker_testkit::id_of(r.headers()["location"].to_str().unwrap());
    let done = app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    assert_eq!(
        done["resourceChanges"]["affectedVnfcs"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let now = app.instance(&i).await;
    let s = states(&now);
    assert_eq!(s.iter().filter(|s| *s == "STARTED").count(), 1, "{now}");
    assert_eq!(now["instantiatedVnfInfo"]["vnfState"], "STOPPED");

    // The whole VNF started.
    let op = app
        .task(&i, "operate", json!({"changeStateTo": "STARTED"}))
        .await;
    assert_eq!(
        app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await["operationState"],
        "COMPLETED"
    );
    let now = app.instance(&i).await;
    assert_eq!(now["instantiatedVnfInfo"]["vnfState"], "STARTED");
    assert!(states(&now).iter().all(|s| s == "STARTED"));
}
