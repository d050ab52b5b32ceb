//! VIM credentials: sealed at rest, never answered or notified; VIM types refused at the API.

use super::*;

#[tokio::test]
async fn vim_credentials_never_come_back_from_occurrences() {
    let app = cluster(TestDb::sqlite()).await;
    app.onboarded_package().await;
    let i = app.create_instance().await;
    let vim = json!({"vim1": {"vimType": "TACKER.SIM.V_1",
        "interfaceInfo": {"endpoint": "sim://local", "client_key": "ck-5e1"},
        "accessInfo": {"username": "admin", "password": "pw-5e1", "bearer_token": "bt-5e1",
            "apiKey": "ak-5e1", "accessToken": "at-5e1", "client_secret": "cs-5e1"}}});
    let op = app
        .task(
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": vim,
            "additionalParams": {"proxy": "http://u:pp-5e1@proxy:3128"}}),
        )
        .await;
    assert_eq!(
        app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await["operationState"],
        "COMPLETED"
    );
    let mut answers = String::new();
    for path in [
        format!("/vnf_lcm_op_occs/{op}"),
        "/vnf_lcm_op_occs?all_fields".into(),
        "/vnf_lcm_op_occs?fields=operationParams".into(),
        format!("/vnf_instances/{i}"),
        "/vnf_instances?all_fields".into(),
    ] {
        answers += &app
            .lcm(reqwest::Method::GET, &path)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
    }
    for secret in [
        "pw-5e1", "bt-5e1", "ak-5e1", "at-5e1", "cs-5e1", "ck-5e1", "pp-5e1",
    ] {
        assert!(!answers.contains(secret), "{secret} answered: {answers}");
        // No filter is an oracle for it either.
        let r = app
            .lcm(
                reqwest::Method::GET,
                &format!("/vnf_lcm_op_occs?filter=(cont,operationParams/vimConnectionInfo/vim1/accessInfo/apiKey,{secret})"),
            )
            .send()
            .await
            .unwrap();
        let listed: Value = r.json().await.unwrap();
        assert_eq!(listed, json!([]), "{secret}");
    }
    assert!(answers.contains("\"username\":\"admin\""), "{answers}");
}

/// Everything stored, as text: `pg_dump` of a PostgreSQL database, the file of SQLite.
fn dump(url: &str) -> String {
    if url.starts_with("postgres") {
        let out = std::process::Command::new("pg_dump")
            .arg(url)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    } else {
        let path = url.trim_start_matches("sqlite://");
        let out = std::process::Command::new("sqlite3")
            .arg(path)
            .arg(".dump")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

#[tokio::test]
async fn planted_secrets_are_sealed_at_rest_and_never_answered_or_notified() {
    for tdb in [TestDb::postgres(), TestDb::sqlite()] {
        let url = tdb.url.clone();
        let app = cluster(tdb).await;
        let lcm_sub = Subscriber::start(Expect::Basic("dXNlcjpzdWItcHctN2Ex"));
        let pkg_sub = Subscriber::start(Expect::Nothing);
        app.subscribe(
            &lcm_sub,
            json!({"authentication": {"authType": ["BASIC"],
            "paramsBasic": {"userName": "user", "password": "sub-pw-7a1"}}}),
        )
        .await;
        let r = app
            .http
            .post(app.url("/vnfpkgm/v1/subscriptions"))
            .json(
                &json!({"callbackUri": pkg_sub.url, "authentication": {"authType": ["BASIC"],
                "paramsBasic": {"userName": "u", "password": "pkg-pw-7a1"}}}),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
        app.onboarded_package().await;
        let i = app.create_instance().await;
        let vim = json!({"vim1": {"vimType": "TACKER.SIM.V_1", "interfaceInfo": {"endpoint": "sim://local"},
            "accessInfo": {"username": "admin", "password": "vim-pw-7a1", "bearer_token": "bt-7a1",
                "client_secret": "cs-7a1", "apiKey": "ak-7a1"}}});
        let op = app
            .task(
                &i,
                "instantiate",
                json!({"flavourId": "simple", "vimConnectionInfo": vim,
                "additionalParams": {"sim": {"fail": ["instantiate"], "failTimes": 1},
                    "db": {"password": "param-pw-7a1"}}}),
            )
            .await;
        assert_eq!(
            app.wait_op(&op, &["FAILED_TEMP", "COMPLETED"]).await["operationState"],
            "FAILED_TEMP"
        );
        let r = app
            .lcm(
                reqwest::Method::POST,
                &format!("/vnf_lcm_op_occs/{op}/retry"),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202);
        assert_eq!(
            app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await["operationState"],
            "COMPLETED"
        );
        // The stored credentials still work: the heal runs with them.
        let heal = app.task(&i, "heal", json!({})).await;
        assert_eq!(
            app.wait_op(&heal, &["COMPLETED", "FAILED_TEMP"]).await["operationState"],
            "COMPLETED"
        );
        lcm_sub.wait("notifications", |g| g.len() >= 9).await;
        let planted = [
            "sub-pw-7a1",
            "pkg-pw-7a1",
            "vim-pw-7a1",
            "bt-7a1",
            "cs-7a1",
            "ak-7a1",
            "param-pw-7a1",
        ];
        let stored = dump(&url);
        assert!(
            stored.contains("enc:v1:t1:"),
            "sealed values are in the database"
        );
        let mut shown = String::new();
        for path in [
            "/vnflcm/v2/vnf_lcm_op_occs?all_fields",
            "/vnflcm/v2/vnf_instances?all_fields",
            "/vnflcm/v2/subscriptions",
            "/vnfpkgm/v1/subscriptions",
        ] {
            shown += &app
                .http
                .get(app.url(path))
                .header("Version", "2.0.0")
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
        }
        let notified = Value::Array(lcm_sub.received()).to_string();
        for secret in planted {
            assert!(!stored.contains(secret), "{secret} stored in clear ({url})");
            assert!(!shown.contains(secret), "{secret} answered");
            assert!(!notified.contains(secret), "{secret} notified");
        }
    }
}

/// A VIM type nothing drives, or the simulated VIM while `lcm.simulated_vim` is off, is
/// refused when the request arrives (naming the setting), and no occurrence is made.
#[tokio::test]
async fn unknown_or_disabled_vim_types_are_refused_at_the_api() {
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            conductors: 1,
            simulated_vim: false,
            kubernetes: true,
            ..Options::default()
        },
    )
    .await;
    app.onboarded_package().await;
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            "/vnf_instances",
            json!({"vnfdId": 5}),
        )
        .await;
    assert_problem(
        r,
        400,
        "/vnfdId: invalid type: integer `5`, expected a string",
    )
    .await;
    let i = app.create_instance().await;
    for (vim, says) in [
        (sim_vim(), "lcm.simulated_vim = true"),
        (
            json!({"v": {"vimType": "VMWARE.VCENTER", "interfaceInfo": {"endpoint": "https://vc"}}}),
            "unknown VIM type \"VMWARE.VCENTER\"",
        ),
        (
            json!({"h": {"vimType": "ETSINFV.HELM.V_3", "interfaceInfo": {"endpoint": "https://k8s"}}}),
            "needs the helm binary",
        ),
    ] {
        let r = app
            .lcm_json(
                reqwest::Method::POST,
                &format!("/vnf_instances/{i}/instantiate"),
                json!({"flavourId": "simple", "vimConnectionInfo": vim}),
            )
            .await;
        assert_problem(r, 422, says).await;
    }
    let r = app
        .lcm_json(
            reqwest::Method::PATCH,
            &format!("/vnf_instances/{i}"),
            json!({"vimConnectionInfo": sim_vim()}),
        )
        .await;
    assert_eq!(r.status(), 422);
    let ops: Value = app
        .lcm(reqwest::Method::GET, "/vnf_lcm_op_occs")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(ops, json!([]), "no occurrence was made");
    // A Kubernetes VIM registered for Helm (Tacker's extra.use_helm), named by vimId only.
    let cluster = crate::support::kube_sim("t");
    let r = app
        .http
        .post(app.url("/v1.0/vims"))
        .json(
            &json!({"vim": {"name": "helm", "type": "kubernetes", "auth_url": cluster.url,
            "auth_cred": {"bearer_token": "t"}, "vim_project": {"name": "default"},
            "extra": {"use_helm": true}}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let vim: Value = r.json().await.unwrap();
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            &format!("/vnf_instances/{i}/instantiate"),
            json!({"flavourId": "simple", "vimConnectionInfo": {"v": {"vimId": vim["vim"]["id"], "vimType": "kubernetes"}}}),
        )
        .await;
    assert_problem(r, 422, "is a Helm VIM (extra.use_helm)").await;
}
