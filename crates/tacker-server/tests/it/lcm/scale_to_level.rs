//! `scale_to_level` (SOL003): to an instantiation level or to levels per aspect, v1 and
//! v2, with in-process conductors and the simulated VIM.

use super::*;

fn vdu1_count(instance: &Value) -> usize {
    instance["instantiatedVnfInfo"]["vnfcResourceInfo"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["vduId"] == "VDU1")
        .count()
}

fn level_of(instance: &Value) -> u64 {
    instance["instantiatedVnfInfo"]["scaleStatus"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["aspectId"] == "vdu1_aspect")
        .unwrap()["scaleLevel"]
        .as_u64()
        .unwrap()
}

#[tokio::test]
async fn scale_to_level_reaches_the_levels_asked_and_refuses_unknown_ones() {
    let app = cluster(TestDb::sqlite()).await;
    let sub = Subscriber::start(Expect::Nothing);
    let (i, _) = app.instantiated(Some(&sub)).await;
    let before = app.instance(&i).await;
    assert_eq!((vdu1_count(&before), level_of(&before)), (1, 0));

    // Refused before anything starts.
    for (body, status, text) in [
        (
            json!({}),
            400,
            "instantiationLevelId or scaleInfo is required",
        ),
        (
            json!({"instantiationLevelId": "instantiation_level_2",
                "scaleInfo": [{"aspectId": "vdu1_aspect", "scaleLevel": 1}]}),
            400,
            "exclusive",
        ),
        (
            json!({"instantiationLevelId": "huge"}),
            422,
            "not an instantiation level",
        ),
        (
            json!({"scaleInfo": [{"aspectId": "vdu1_aspect", "scaleLevel": 3}]}),
            422,
            "maximum is 2",
        ),
        (
            json!({"scaleInfo": [{"aspectId": "no_aspect", "scaleLevel": 1}]}),
            422,
            "not a scaling aspect",
        ),
    ] {
        let r = app
            .lcm_json(
                reqwest::Method::POST,
                &format!("/vnf_instances/{i}/scale_to_level"),
                body.clone(),
            )
            .await;
        assert_problem(r, status, text).await;
    }

    // Up to the largest instantiation level: two VNFCs added, in one occurrence.
    let op = app
        .task(
            &i,
            "scale_to_level",
            json!({"instantiationLevelId": "instantiation_level_2"}),
        )
        .await;
    let done = app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    assert_eq!(done["operation"], "SCALE_TO_LEVEL");
    let added = done["resourceChanges"]["affectedVnfcs"].as_array().unwrap();
    assert_eq!(added.len(), 2, "{done}");
    assert!(added.iter().all(|c| c["changeType"] == "ADDED"));
    let after = app.instance(&i).await;
    assert_eq!((vdu1_count(&after), level_of(&after)), (3, 2));

    // Down by scaleInfo through v1: one VNFC removed.
    let r = app
        .http
        .post(app.url(&format!("/vnflcm/v1/vnf_instances/{i}/scale_to_level")))
        .json(&json!({"scaleInfo": [{"aspectId": "vdu1_aspect", "scaleLevel": 1}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let op = tacker_testkit::id_of(r.headers()["location"].to_str().unwrap());
    let done = app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    let removed = done["resourceChanges"]["affectedVnfcs"].as_array().unwrap();
    assert_eq!(removed.len(), 1);
    assert_eq!(removed[0]["changeType"], "REMOVED");
    let after = app.instance(&i).await;
    assert_eq!((vdu1_count(&after), level_of(&after)), (2, 1));

    // Already there: refused, nothing started (never COMPLETED having done nothing).
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/scale_to_level"),
            json!({"scaleInfo": [{"aspectId": "vdu1_aspect", "scaleLevel": 1}]}),
        )
        .await;
    assert_problem(r, 409, "at the levels asked already").await;
    assert_eq!(vdu1_count(&app.instance(&i).await), 2);
    sub.wait("the scale_to_level results", |g| {
        g.iter()
            .filter(|n| n["operation"] == "SCALE_TO_LEVEL" && n["operationState"] == "COMPLETED")
            .count()
            == 2
    })
    .await;
}
