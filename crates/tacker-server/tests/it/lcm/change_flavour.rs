//! `change_flavour` (SOL003), with in-process conductors and the simulated VIM.

use super::*;

#[tokio::test]
async fn change_flavour_moves_the_vnf_to_another_flavour_of_its_vnfd() {
    let app = cluster(TestDb::sqlite()).await;
    let (i, _) = app.instantiated(None).await;
    let before = app.instance(&i).await;
    assert_eq!(before["instantiatedVnfInfo"]["flavourId"], "simple");
    let old: Vec<Value> = before["instantiatedVnfInfo"]["vnfcResourceInfo"]
        .as_array()
        .unwrap()
        .clone();

    for (body, status, text) in [
        (json!({}), 400, "newFlavourId"),
        (
            json!({"newFlavourId": "large", "bogus": 1}),
            400,
            "unknown field",
        ),
        (
            json!({"newFlavourId": "simple"}),
            422,
            "runs flavour \"simple\" already",
        ),
        (
            json!({"newFlavourId": "huge"}),
            422,
            "not a flavour of the VNFD",
        ),
        (
            json!({"newFlavourId": "large", "instantiationLevelId": "nope"}),
            422,
            "not in flavour",
        ),
    ] {
        let r = app
            .lcm_json(
                reqwest::Method::POST,
                &format!("/vnf_instances/{i}/change_flavour"),
                body.clone(),
            )
            .await;
        assert_problem(r, status, text).await;
    }

    // A package change is not something the simulated VIM's driver does: refused at
    // the request, no occurrence made.
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/change_vnfpkg"),
            json!({"vnfdId": "b1bb0ce7-ebca-4fa7-95ed-4840d70a1177",
                "additionalParams": {"upgrade_type": "RollingUpdate"}}),
        )
        .await;
    assert_problem(r, 422, "change_vnfpkg is not supported for VIM type").await;

    let op = app
        .task(&i, "change_flavour", json!({"newFlavourId": "large"}))
        .await;
    let done = app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    assert_eq!(done["operation"], "CHANGE_FLAVOUR");
    let after = app.instance(&i).await;
    let info = &after["instantiatedVnfInfo"];
    assert_eq!(info["flavourId"], "large", "{after}");
    // The large flavour's VDU1 starts with its minimum of 2.
    let vdu1 = info["vnfcResourceInfo"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["vduId"] == "VDU1")
        .count();
    assert_eq!(vdu1, 2, "{after}");
    let changes = done["resourceChanges"]["affectedVnfcs"].as_array().unwrap();
    let removed = changes
        .iter()
        .filter(|c| c["changeType"] == "REMOVED")
        .count();
    assert_eq!(removed, old.len());
    assert_eq!(
        changes
            .iter()
            .filter(|c| c["changeType"] == "ADDED")
            .count(),
        info["vnfcResourceInfo"].as_array().unwrap().len()
    );
}
