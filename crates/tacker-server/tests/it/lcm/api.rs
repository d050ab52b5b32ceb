//! The API contract: errors, modify_info, list filters.

use super::*;

#[tokio::test]
async fn api_contract_errors() {
    let app = cluster(TestDb::sqlite()).await;
    // Version header: missing 400, unsupported 406, echoed.
    let r = app
        .http
        .get(app.url("/vnflcm/v2/vnf_instances"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["version"], "2.0.0");
    assert_problem(r, 400, "Version header is required").await;
    let r = app
        .http
        .get(app.url("/vnflcm/v2/vnf_instances"))
        .header("Version", "9.9.9")
        .send()
        .await
        .unwrap();
    assert_problem(r, 406, "not supported").await;
    let r = app
        .http
        .get(app.url("/vnflcm/v2/api_versions"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.json::<Value>().await.unwrap()["apiVersions"][0]["version"],
        "2.0.0"
    );
    // No usable package: 422.
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            "/vnf_instances",
            json!({"vnfdId": VNFD}),
        )
        .await;
    assert_problem(r, 422, "ONBOARDED and ENABLED").await;
    let pkg = app.onboarded_package().await;
    let purl = app.url(&format!("/vnfpkgm/v1/vnf_packages/{pkg}"));
    let disable = |s: &'static str| {
        app.http
            .patch(&purl)
            .header("content-type", "application/merge-patch+json")
            .body(format!(r#"{{"operationalState":"{s}"}}"#))
            .send()
    };
    disable("DISABLED").await.unwrap();
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            "/vnf_instances",
            json!({"vnfdId": VNFD}),
        )
        .await;
    assert_eq!(r.status(), 422);
    disable("ENABLED").await.unwrap();
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            "/vnf_instances",
            json!({"vnfdId": VNFD, "bogus": 1}),
        )
        .await;
    assert_problem(r, 400, "unknown field").await;
    // The package is IN_USE while an instance exists, NOT_IN_USE after.
    let i = app.create_instance().await;
    assert_eq!(app.get_package(&pkg).await["usageState"], "IN_USE");
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/instantiate"),
            json!({"flavourId": "nope"}),
        )
        .await;
    assert_problem(r, 400, "flavourId \"nope\"").await;
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/instantiate"),
            json!({"flavourId": "simple", "instantiationLevelId": "x"}),
        )
        .await;
    assert_problem(r, 400, "instantiationLevelId").await;
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/instantiate"),
            json!({"flavourId": "simple", "vimConnectionInfo": {"v": {}}}),
        )
        .await;
    assert_problem(r, 400, "vimType is required").await;
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/heal"),
            json!({}),
        )
        .await;
    assert_problem(r, 409, "NOT_INSTANTIATED").await;
    // Internal virtual links on existing networks: the OpenStack driver's only, refused
    // here rather than ignored.
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/instantiate"),
            json!({"flavourId": "simple", "vimConnectionInfo": sim_vim(),
                "extManagedVirtualLinks": [{"id": "m", "vnfVirtualLinkDescId": "internalVL1",
                    "resourceId": "net"}]}),
        )
        .await;
    assert_problem(r, 422, "extManagedVirtualLinks needs an OpenStack VIM").await;
    let op = app
        .task(
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}),
        )
        .await;
    app.wait_op(&op, &["COMPLETED"]).await;
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/heal"),
            json!({"vnfcInstanceId": ["no-such-vnfc"]}),
        )
        .await;
    assert_problem(r, 400, "no-such-vnfc").await;
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/heal"),
            json!({"additionalParams": {"all": "yes"}}),
        )
        .await;
    assert_problem(r, 400, "additionalParams.all must be a boolean").await;
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/scale"),
            json!({"type": "SCALE_UP", "aspectId": "vdu1_aspect"}),
        )
        .await;
    assert_problem(r, 400, "SCALE_OUT or SCALE_IN").await;
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/scale"),
            json!({"type": "SCALE_OUT", "aspectId": "x"}),
        )
        .await;
    assert_problem(r, 400, "aspectId").await;
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/terminate"),
            json!({}),
        )
        .await;
    assert_problem(r, 400, "terminationType is required").await;
    // Beyond the aspect's maximum: refused up front, with the reason.
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/scale"),
            json!({"type": "SCALE_OUT", "aspectId": "vdu1_aspect", "numberOfSteps": 5}),
        )
        .await;
    assert_problem(r, 400, "over its maximum").await;
    // PATCH is an operation: 202, then the change shows.
    let r = app
        .lcm(reqwest::Method::PATCH, &format!("/vnf_instances/{i}"))
        .header("content-type", "application/merge-patch+json")
        .body(r#"{"vnfInstanceName": "renamed", "metadata": {"tier": "gold"}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let op = tacker_testkit::id_of(r.headers()["location"].to_str().unwrap());
    let done = app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await;
    assert_eq!(done["operation"], "MODIFY_INFO");
    assert_eq!(done["changedInfo"]["vnfInstanceName"], "renamed");
    let v = app.instance(&i).await;
    assert_eq!(v["vnfInstanceName"], "renamed");
    assert_eq!(v["metadata"]["tier"], "gold");
    // Lists: filters and selectors.
    let r = app
        .lcm(
            reqwest::Method::GET,
            "/vnf_lcm_op_occs?filter=(eq,operation,MODIFY_INFO)",
        )
        .send()
        .await
        .unwrap();
    let ops: Vec<Value> = r.json().await.unwrap();
    assert_eq!(ops.len(), 1);
    assert!(
        ops[0].get("changedInfo").is_none(),
        "complex attributes left out by default"
    );
    let r = app
        .lcm(
            reqwest::Method::GET,
            "/vnf_instances?filter=(eq,vnfInstanceName,renamed)&all_fields",
        )
        .send()
        .await
        .unwrap();
    let list: Vec<Value> = r.json().await.unwrap();
    assert_eq!(list.len(), 1);
    assert!(list[0]["instantiatedVnfInfo"].is_object());
    // A path into metadata (the conductor wrote it) is matched in the database.
    for (tier, found) in [("gold", 1), ("silver", 0)] {
        let r = app
            .lcm(
                reqwest::Method::GET,
                &format!("/vnf_instances?filter=(eq,metadata/tier,{tier})"),
            )
            .send()
            .await
            .unwrap();
        let list: Vec<Value> = r.json().await.unwrap();
        assert_eq!(list.len(), found, "{tier}");
    }
    // U+0000, which jsonb cannot hold, is refused with the reason; nothing changes.
    let r = app
        .lcm(reqwest::Method::PATCH, &format!("/vnf_instances/{i}"))
        .header("content-type", "application/merge-patch+json")
        .body(r#"{"metadata": {"tier": "a\u0000b"}}"#)
        .send()
        .await
        .unwrap();
    assert_problem(r, 400, "U+0000").await;
    assert_eq!(app.instance(&i).await["metadata"]["tier"], "gold");
    let r = app
        .lcm(
            reqwest::Method::GET,
            &format!("/vnf_lcm_op_occs/{}", uuid::Uuid::new_v4()),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    // Terminate and delete: the package is NOT_IN_USE again.
    let op = app
        .task(&i, "terminate", json!({"terminationType": "FORCEFUL"}))
        .await;
    app.wait_op(&op, &["COMPLETED"]).await;
    assert_eq!(
        app.lcm(reqwest::Method::DELETE, &format!("/vnf_instances/{i}"))
            .send()
            .await
            .unwrap()
            .status(),
        204
    );
    assert_eq!(app.get_package(&pkg).await["usageState"], "NOT_IN_USE");
}

/// PATCHes `body` (a merge patch) and waits for the MODIFY_INFO to end.
async fn modify(app: &TestApp, i: &str, body: Value) -> (u16, Value) {
    let r = app
        .lcm(reqwest::Method::PATCH, &format!("/vnf_instances/{i}"))
        .header("content-type", "application/merge-patch+json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    if status != 202 {
        return (status, r.json().await.unwrap_or(Value::Null));
    }
    let op = tacker_testkit::id_of(r.headers()["location"].to_str().unwrap());
    (
        status,
        app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await,
    )
}

#[tokio::test]
async fn modify_info_moves_to_a_compatible_package_and_sets_vnfc_properties() {
    const V2: &str = "22222222-2222-3333-4444-555555555555";
    let app = cluster(TestDb::postgres()).await;
    let (i, _) = app.instantiated(None).await;
    let (p2, _) = app
        .upload(tacker_testkit::csar::valid_with_vnfd_id(V2).zip())
        .await;
    assert_eq!(app.settled(&p2, T).await["onboardingState"], "ONBOARDED");
    let p1 = app.instance(&i).await;
    let vnfc = p1["instantiatedVnfInfo"]["vnfcInfo"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Refused: an unknown vnfdId, a vnfcInfo id that is not the instance's.
    let (s, v) = modify(&app, &i, json!({"vnfdId": "no-such-vnfd"})).await;
    assert_eq!(s, 422, "{v}");
    let (s, v) = modify(
        &app,
        &i,
        json!({"vnfcInfoModifications": [{"id": "nope", "vnfcConfigurableProperties": {"a": 1}}]}),
    )
    .await;
    assert_eq!(s, 422, "{v}");

    // A compatible package (the same flavour and VDUs) and VNFC properties.
    let (s, done) = modify(
        &app,
        &i,
        json!({"vnfdId": V2, "vnfcInfoModifications": [
            {"id": vnfc, "vnfcConfigurableProperties": {"log_level": "debug"}}]}),
    )
    .await;
    assert_eq!(s, 202);
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    assert_eq!(done["changedInfo"]["vnfdId"], V2);
    let v = app.instance(&i).await;
    assert_eq!(v["vnfdId"], V2);
    let c = v["instantiatedVnfInfo"]["vnfcInfo"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == vnfc.as_str())
        .unwrap()
        .clone();
    assert_eq!(c["vnfcConfigurableProperties"]["log_level"], "debug");
    // Usage moved.
    assert_eq!(app.get_package(&p2).await["usageState"], "IN_USE");
    let list: Vec<Value> = app
        .http
        .get(app.url(&format!(
            "/vnfpkgm/v1/vnf_packages?filter=(eq,vnfdId,{VNFD})"
        )))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list[0]["usageState"], "NOT_IN_USE");

    // An incompatible one (another VDU set): 422, nothing changes.
    let other = tacker_testkit::csar::sealed(
        tacker_testkit::csar::valid_with_vnfd_id("33333333-2222-3333-4444-555555555555")
            .edit("Definitions/test_df_simple.yaml", |t| {
                t.replace("VDU2", "VDU9")
            }),
    );
    let (p3, _) = app.upload(other.zip()).await;
    let p3s = app.settled(&p3, T).await;
    assert_eq!(p3s["onboardingState"], "ONBOARDED", "{p3s}");
    let (s, v) = modify(
        &app,
        &i,
        json!({"vnfdId": "33333333-2222-3333-4444-555555555555"}),
    )
    .await;
    assert_eq!(s, 422, "{v}");
    assert!(v["detail"].as_str().unwrap().contains("same VDUs"), "{v}");
    assert_eq!(app.instance(&i).await["vnfdId"], V2);
}

/// Filters on paths into instance metadata are matched in the database on both
/// backends (jsonb paths, json_extract) and answer what the filter says: values behind
/// arrays, booleans, and no instance that merely has the value elsewhere.
#[tokio::test]
async fn instance_lists_filter_on_paths_into_metadata_on_both_backends() {
    for tdb in TestDb::each() {
        let app = cluster(tdb).await;
        app.onboarded_package().await;
        let mut ids = Vec::new();
        for metadata in [
            json!({"site": {"zone": "a"}}),
            json!({"site": [{"zone": "b"}, {"zone": "a"}]}),
            json!({"site": {"zone": "b"}, "zone": "a"}),
            json!({"site": {"zone": true}}),
        ] {
            let r = app
                .lcm_json(
                    reqwest::Method::POST,
                    "/vnf_instances",
                    json!({"vnfdId": VNFD, "metadata": metadata}),
                )
                .await;
            assert_eq!(r.status(), 201);
            ids.push(
                r.json::<Value>().await.unwrap()["id"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
            );
        }
        for (filter, want) in [
            ("(eq,metadata/site/zone,a)", vec![0, 1]),
            ("(in,metadata/site/zone,b,true)", vec![1, 2, 3]),
            ("(eq,metadata/zone,a)", vec![2]),
            ("(eq,metadata/site/zone,c)", vec![]),
        ] {
            let r = app
                .lcm(
                    reqwest::Method::GET,
                    &format!("/vnf_instances?filter={filter}"),
                )
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
            let got: Vec<String> = r
                .json::<Vec<Value>>()
                .await
                .unwrap()
                .iter()
                .map(|i| i["id"].as_str().unwrap().to_owned())
                .collect();
            let want: Vec<String> = want.iter().map(|n: &usize| ids[*n].clone()).collect();
            assert_eq!(got, want, "{filter}");
        }
    }
}
