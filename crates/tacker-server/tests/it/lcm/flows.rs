//! Operation occurrences from start to end: notifications in order, FAILED_TEMP, retry, rollback, fail, hooks.

use super::*;

#[tokio::test]
async fn notifications_arrive_in_order_for_a_successful_lifecycle() {
    for tdb in TestDb::each() {
        let app = cluster(tdb).await;
        let sub = Subscriber::start(Expect::Nothing);
        let (i, inst_op) = app.instantiated(Some(&sub)).await;
        let got = sub
            .wait("instantiate result", |g| states_of(g, &inst_op).len() == 3)
            .await;
        assert_eq!(
            got[0]["notificationType"],
            "VnfIdentifierCreationNotification"
        );
        assert_eq!(got[0]["vnfInstanceId"], i.as_str());
        assert_eq!(
            states_of(&got, &inst_op),
            ["START:STARTING", "START:PROCESSING", "RESULT:COMPLETED"]
        );
        let result = got
            .iter()
            .find(|n| n["vnfLcmOpOccId"] == inst_op.as_str() && n["notificationStatus"] == "RESULT")
            .unwrap();
        assert_eq!(result["operation"], "INSTANTIATE");
        assert_eq!(result["affectedVnfcs"].as_array().unwrap().len(), 2);
        assert!(
            result["_links"]["vnfLcmOpOcc"]["href"]
                .as_str()
                .unwrap()
                .ends_with(&inst_op)
        );
        assert!(result["_links"]["subscription"]["href"].as_str().is_some());

        // The instance holds its VNFCs; credentials never come back.
        let v = app.instance(&i).await;
        assert_eq!(v["instantiationState"], "INSTANTIATED");
        assert_eq!(
            v["instantiatedVnfInfo"]["vnfcInfo"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        assert!(!v.to_string().contains("vim-secret"), "{v}");
        assert_eq!(
            v["vimConnectionInfo"]["vim1"]["accessInfo"]["username"],
            "admin"
        );
        let op = app.op(&inst_op).await;
        assert!(op["grantId"].is_string());
        assert_eq!(
            op["resourceChanges"]["affectedVnfcs"]
                .as_array()
                .unwrap()
                .len(),
            2
        );

        // Scale out, heal one VNFC, scale in, terminate, delete.
        let scale = app
            .task(
                &i,
                "scale",
                json!({"type": "SCALE_OUT", "aspectId": "vdu1_aspect"}),
            )
            .await;
        assert_eq!(
            app.wait_op(&scale, &["COMPLETED", "FAILED_TEMP"]).await["operationState"],
            "COMPLETED"
        );
        let v = app.instance(&i).await;
        assert_eq!(
            v["instantiatedVnfInfo"]["vnfcInfo"]
                .as_array()
                .unwrap()
                .len(),
            3
        );
        assert_eq!(v["instantiatedVnfInfo"]["scaleStatus"][0]["scaleLevel"], 1);
        let vnfc = v["instantiatedVnfInfo"]["vnfcInfo"][0]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let heal = app
            .task(
                &i,
                "heal",
                json!({"vnfcInstanceId": [vnfc.clone()], "cause": "test"}),
            )
            .await;
        assert_eq!(
            app.wait_op(&heal, &["COMPLETED", "FAILED_TEMP"]).await["operationState"],
            "COMPLETED"
        );
        let v = app.instance(&i).await;
        let ids: Vec<&str> = v["instantiatedVnfInfo"]["vnfcInfo"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        assert!(
            !ids.contains(&vnfc.as_str()) && ids.len() == 3,
            "the healed VNFC was replaced: {ids:?}"
        );
        let scale_in = app
            .task(
                &i,
                "scale",
                json!({"type": "SCALE_IN", "aspectId": "vdu1_aspect"}),
            )
            .await;
        assert_eq!(
            app.wait_op(&scale_in, &["COMPLETED", "FAILED_TEMP"]).await["operationState"],
            "COMPLETED"
        );
        let term = app
            .task(&i, "terminate", json!({"terminationType": "GRACEFUL"}))
            .await;
        assert_eq!(
            app.wait_op(&term, &["COMPLETED", "FAILED_TEMP"]).await["operationState"],
            "COMPLETED"
        );
        let got = sub
            .wait("terminate result", |g| states_of(g, &term).len() == 3)
            .await;
        assert_eq!(
            states_of(&got, &term),
            ["START:STARTING", "START:PROCESSING", "RESULT:COMPLETED"]
        );
        assert_eq!(
            app.instance(&i).await["instantiationState"],
            "NOT_INSTANTIATED"
        );
        let r = app
            .lcm(reqwest::Method::DELETE, &format!("/vnf_instances/{i}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 204);
        sub.wait("deletion", |g| {
            g.iter()
                .any(|n| n["notificationType"] == "VnfIdentifierDeletionNotification")
        })
        .await;
    }
}

#[tokio::test]
async fn failed_temp_then_retry_then_completed() {
    let app = cluster(TestDb::sqlite()).await;
    let sub = Subscriber::start(Expect::Nothing);
    app.onboarded_package().await;
    app.subscribe(
        &sub,
        json!({"filter": {"notificationTypes": ["VnfLcmOperationOccurrenceNotification"]}}),
    )
    .await;
    let i = app.create_instance().await;
    let body = json!({"flavourId": "simple", "vimConnectionInfo": sim_vim(),
        "additionalParams": {"sim": {"fail": ["instantiate"], "failTimes": 1}}});
    let op = app.task(&i, "instantiate", body).await;
    let failed = app.wait_op(&op, &["FAILED_TEMP", "COMPLETED"]).await;
    assert_eq!(failed["operationState"], "FAILED_TEMP");
    assert_eq!(failed["error"]["status"], 500);
    assert!(
        failed["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("simulated failure at instantiate")
    );
    assert!(failed["_links"]["retry"].is_object());
    // Another operation on the instance is refused while it is FAILED_TEMP.
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/instantiate"),
            json!({"flavourId": "simple"}),
        )
        .await;
    assert_problem(r, 409, "FAILED_TEMP").await;
    assert_eq!(app.op_action(&op, "retry").await, 202);
    let done = app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await;
    assert_eq!(done["operationState"], "COMPLETED");
    assert!(done.get("error").is_none());
    let got = sub
        .wait("retry result", |g| states_of(g, &op).len() == 5)
        .await;
    assert_eq!(
        states_of(&got, &op),
        [
            "START:STARTING",
            "START:PROCESSING",
            "RESULT:FAILED_TEMP",
            "START:PROCESSING",
            "RESULT:COMPLETED"
        ]
    );
    assert!(
        got.iter()
            .all(|n| n["notificationType"] == "VnfLcmOperationOccurrenceNotification"),
        "filter by type"
    );
    // retry on a COMPLETED occurrence is a conflict.
    let r = app
        .lcm(
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{op}/retry"),
        )
        .send()
        .await
        .unwrap();
    assert_problem(r, 409, "needs FAILED_TEMP").await;
}

#[tokio::test]
async fn failed_temp_then_fail_is_final_and_frees_the_instance() {
    let app = cluster(TestDb::postgres()).await;
    let sub = Subscriber::start(Expect::Nothing);
    let (i, _) = app.instantiated(Some(&sub)).await;
    let op = app.task(&i, "scale", json!({"type": "SCALE_OUT", "aspectId": "vdu1_aspect", "additionalParams": {"sim": {"fail": ["scale"]}}})).await;
    app.wait_op(&op, &["FAILED_TEMP"]).await;
    let r = app
        .lcm(
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{op}/fail"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["operationState"], "FAILED");
    assert_eq!(body["id"], op.as_str());
    let got = sub.wait("fail", |g| states_of(g, &op).len() == 4).await;
    assert_eq!(
        states_of(&got, &op),
        [
            "START:STARTING",
            "START:PROCESSING",
            "RESULT:FAILED_TEMP",
            "RESULT:FAILED"
        ]
    );
    // The instance is free again.
    let heal = app.task(&i, "heal", json!({})).await;
    assert_eq!(
        app.wait_op(&heal, &["COMPLETED", "FAILED_TEMP"]).await["operationState"],
        "COMPLETED"
    );
    let r = app
        .lcm(
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{op}/fail"),
        )
        .send()
        .await
        .unwrap();
    assert_problem(r, 409, "needs FAILED_TEMP").await;
}

#[tokio::test]
async fn rollback_of_instantiate_and_of_scale_out() {
    let app = cluster(TestDb::sqlite()).await;
    let sub = Subscriber::start(Expect::Nothing);
    app.onboarded_package().await;
    app.subscribe(&sub, json!({})).await;
    let i = app.create_instance().await;
    let op = app
        .task(
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": sim_vim(),
        "additionalParams": {"sim": {"fail": ["instantiate_end"]}}}),
        )
        .await;
    let failed = app.wait_op(&op, &["FAILED_TEMP", "COMPLETED"]).await;
    assert_eq!(failed["operationState"], "FAILED_TEMP");
    assert!(
        failed["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("instantiate_end"),
        "the end hook failed: {failed}"
    );
    assert_eq!(app.op_action(&op, "rollback").await, 202);
    assert_eq!(
        app.wait_op(&op, &["ROLLED_BACK", "FAILED_TEMP"]).await["operationState"],
        "ROLLED_BACK"
    );
    let got = sub.wait("rollback", |g| states_of(g, &op).len() == 5).await;
    assert_eq!(
        states_of(&got, &op),
        [
            "START:STARTING",
            "START:PROCESSING",
            "RESULT:FAILED_TEMP",
            "START:ROLLING_BACK",
            "RESULT:ROLLED_BACK"
        ]
    );
    assert_eq!(
        app.instance(&i).await["instantiationState"],
        "NOT_INSTANTIATED"
    );

    // Now instantiate for real, then a scale-out that fails and is rolled back.
    let op = app
        .task(
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}),
        )
        .await;
    app.wait_op(&op, &["COMPLETED"]).await;
    let before = app.instance(&i).await["instantiatedVnfInfo"].clone();
    let scale = app.task(&i, "scale", json!({"type": "SCALE_OUT", "aspectId": "vdu1_aspect", "additionalParams": {"sim": {"fail": ["scale"]}}})).await;
    app.wait_op(&scale, &["FAILED_TEMP"]).await;
    app.lcm(
        reqwest::Method::POST,
        &format!("/vnf_lcm_op_occs/{scale}/rollback"),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(
        app.wait_op(&scale, &["ROLLED_BACK", "FAILED_TEMP"]).await["operationState"],
        "ROLLED_BACK"
    );
    assert_eq!(app.instance(&i).await["instantiatedVnfInfo"], before);
    // Rollback is not offered for terminate.
    let term = app.task(&i, "terminate", json!({"terminationType": "FORCEFUL", "additionalParams": {"sim": {"fail": ["terminate"]}}})).await;
    app.wait_op(&term, &["FAILED_TEMP"]).await;
    let r = app
        .lcm(
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{term}/rollback"),
        )
        .send()
        .await
        .unwrap();
    assert_problem(r, 409, "rollback is supported for").await;
}

#[tokio::test]
async fn failure_at_each_step() {
    let app = cluster(TestDb::sqlite()).await;
    let (i, _) = app.instantiated(None).await;
    // heal_start has no hook in the package; heal_end has one; the driver can fail too.
    for (fail, expect) in [
        ("heal", "simulated failure at heal"),
        ("heal_end", "simulated failure at heal_end"),
    ] {
        let op = app
            .task(
                &i,
                "heal",
                json!({"additionalParams": {"sim": {"fail": [fail]}}}),
            )
            .await;
        let failed = app.wait_op(&op, &["FAILED_TEMP", "COMPLETED"]).await;
        assert_eq!(failed["operationState"], "FAILED_TEMP", "{fail}");
        assert!(
            failed["error"]["detail"].as_str().unwrap().contains(expect),
            "{failed}"
        );
        app.lcm(
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{op}/fail"),
        )
        .send()
        .await
        .unwrap();
    }
    // A VIM type without a driver: FAILED_TEMP with 422 (the grant passed, so not rolled back).
    let i2 = app.create_instance().await;
    let op = app.task(&i2, "instantiate", json!({"flavourId": "simple", "vimConnectionInfo": {"k": {"vimType": "ETSINFV.KUBERNETES.V_1"}}})).await;
    let failed = app.wait_op(&op, &["FAILED_TEMP", "COMPLETED"]).await;
    assert_eq!(failed["error"]["status"], 422);
    assert!(
        failed["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("no infra driver"),
        "{failed}"
    );
}

#[tokio::test]
async fn a_slow_operation_holds_the_instance_against_a_second_one() {
    let app = cluster(TestDb::postgres()).await;
    let (i, _) = app.instantiated(None).await;
    let op = app
        .task(
            &i,
            "heal",
            json!({"additionalParams": {"sim": {"delayMs": 1500}}}),
        )
        .await;
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/scale"),
            json!({"type": "SCALE_OUT", "aspectId": "vdu1_aspect"}),
        )
        .await;
    assert_problem(r, 409, "operation in progress").await;
    let r = app
        .lcm(reqwest::Method::DELETE, &format!("/vnf_instances/{i}"))
        .send()
        .await
        .unwrap();
    assert_problem(r, 409, "INSTANTIATED").await;
    assert_eq!(
        app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await["operationState"],
        "COMPLETED"
    );
}

#[tokio::test]
async fn a_retry_after_an_end_hook_failure_runs_only_the_hook_and_passwords_stay_sealed() {
    let app = cluster(TestDb::postgres()).await;
    app.onboarded_package().await;
    let i = app.create_instance().await;
    let body = json!({"flavourId": "simple", "vimConnectionInfo": sim_vim(),
        "additionalParams": {"sim": {"fail": ["instantiate_end"], "failTimes": 1},
            "login": {"username": "ops", "ssh_password": "pw-9f3e1c"}}});
    let op = app.task(&i, "instantiate", body).await;
    let failed = app.wait_op(&op, &["FAILED_TEMP", "COMPLETED"]).await;
    assert_eq!(failed["operationState"], "FAILED_TEMP", "{failed}");
    assert_eq!(failed["error"]["title"], "Mgmt driver execution failed");
    let detail = failed["error"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("instantiate_end") && detail.contains("simulated failure"),
        "{detail}"
    );
    assert_eq!(
        failed["operationParams"]["additionalParams"]["login"]["ssh_password"],
        "***"
    );
    assert_eq!(
        failed["operationParams"]["additionalParams"]["login"]["username"],
        "ops"
    );
    assert_eq!(app.op_action(&op, "retry").await, 202);
    let done = app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    let opid: uuid::Uuid = op.parse().unwrap();
    let sim = crate::support::sim();
    assert_eq!(sim.runs(opid, "instantiate"), 1, "the VMs were made once");
    assert_eq!(
        sim.runs(opid, "instantiate_start"),
        0,
        "no start hook in this VNFD"
    );
    assert_eq!(sim.runs(opid, "instantiate_end"), 2, "the hook ran again");
    assert!(
        done["resourceChanges"]["affectedVnfcs"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    );
    // The password is in no answer and only sealed in the database.
    let mut answers = String::new();
    for path in [
        format!("/vnf_lcm_op_occs/{op}"),
        "/vnf_lcm_op_occs?all_fields".to_owned(),
        format!("/vnf_instances/{i}"),
        "/vnf_lcm_op_occs?filter=(eq,operationParams/additionalParams/login/ssh_password,pw-9f3e1c)"
            .to_owned(),
    ] {
        answers += &app.lcm(reqwest::Method::GET, &path).send().await.unwrap().text().await.unwrap();
    }
    assert!(!answers.contains("pw-9f3e1c"), "{answers}");
    let iid: uuid::Uuid = i.parse().unwrap();
    let sealed = app
        .db
        .instances()
        .instantiate_params(iid)
        .await
        .unwrap()
        .unwrap();
    assert!(
        sealed.starts_with("enc:v1:") && !sealed.contains("pw-9f3e1c"),
        "{sealed}"
    );
    assert!(app.keys.open(&sealed).unwrap().contains("pw-9f3e1c"));
    let stored = app.db.op_occs().get(opid).await.unwrap().unwrap();
    assert!(!format!("{:?} {}", stored.request, stored.operation_params).contains("pw-9f3e1c"));
}

#[tokio::test]
async fn a_hook_without_a_driver_is_refused_by_the_api_and_by_a_conductor_before_the_grant() {
    // The API knows no driver for the package's Scripts/mgmt.py: 422, nothing created.
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            conductors: 1,
            server_mgmt: vec!["Scripts/sample_script.py=noop"],
            conductor_mgmt: Some(vec!["Scripts/sample_script.py=noop"]),
            ..Options::default()
        },
    )
    .await;
    app.onboarded_package().await;
    let i = app.create_instance().await;
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/instantiate"),
            json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}),
        )
        .await;
    assert_problem(r, 422, "Scripts/mgmt.py").await;
    let ops: Value = app
        .lcm(reqwest::Method::GET, "/vnf_lcm_op_occs")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(ops, json!([]));
    assert_eq!(
        app.instance(&i).await["instantiationState"],
        "NOT_INSTANTIATED"
    );

    // A conductor configured otherwise than the API (a rolling upgrade) stops before
    // the grant: ROLLED_BACK, nothing made.
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            conductors: 1,
            conductor_mgmt: Some(vec!["Scripts/sample_script.py=noop"]),
            ..Options::default()
        },
    )
    .await;
    app.onboarded_package().await;
    let i = app.create_instance().await;
    let op = app
        .task(
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}),
        )
        .await;
    let ended = app
        .wait_op(&op, &["ROLLED_BACK", "FAILED_TEMP", "COMPLETED"])
        .await;
    assert_eq!(ended["operationState"], "ROLLED_BACK", "{ended}");
    assert_eq!(ended["error"]["status"], 422);
    assert!(
        ended["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("Scripts/mgmt.py")
    );
    assert!(ended.get("grantId").is_none(), "no grant: {ended}");
    assert_eq!(
        crate::support::sim().runs(op.parse().unwrap(), "instantiate"),
        0
    );
    assert_eq!(
        app.instance(&i).await["instantiationState"],
        "NOT_INSTANTIATED"
    );
}
