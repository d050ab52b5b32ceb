//! LCM subscriptions and their subscribers; grants from an external NFVO.

use super::*;

#[tokio::test]
async fn a_subscriber_that_is_down_gets_everything_in_order_once_back() {
    let app = cluster(TestDb::sqlite()).await;
    let sub = Subscriber::start(Expect::Basic("dXNlcjpwYXNz"));
    app.onboarded_package().await;
    app.subscribe(&sub, json!({"authentication": {"authType": ["BASIC"], "paramsBasic": {"userName": "user", "password": "pass"}}})).await;
    let i = app.create_instance().await;
    sub.set_down(true);
    let op = app
        .task(
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}),
        )
        .await;
    app.wait_op(&op, &["COMPLETED"]).await;
    let heal = app.task(&i, "heal", json!({})).await;
    app.wait_op(&heal, &["COMPLETED"]).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(sub.received().is_empty());
    sub.set_down(false);
    let got = sub.wait("everything", |g| g.len() == 7).await;
    assert_eq!(
        got[0]["notificationType"],
        "VnfIdentifierCreationNotification"
    );
    assert_eq!(
        states_of(&got, &op),
        ["START:STARTING", "START:PROCESSING", "RESULT:COMPLETED"]
    );
    assert_eq!(
        states_of(&got, &heal),
        ["START:STARTING", "START:PROCESSING", "RESULT:COMPLETED"]
    );
    let first_heal = got
        .iter()
        .position(|n| n["vnfLcmOpOccId"] == heal.as_str())
        .unwrap();
    let last_inst = got
        .iter()
        .rposition(|n| n["vnfLcmOpOccId"] == op.as_str())
        .unwrap();
    assert!(last_inst < first_heal, "order kept across operations");
}

#[tokio::test]
async fn subscriptions_test_the_callback_and_support_oauth2() {
    let app = cluster(TestDb::sqlite()).await;
    let sub = Subscriber::start(Expect::Bearer("tok-123"));
    let token = format!("{}/token", sub.base());
    // Without credentials the callback test fails: no subscription.
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            "/subscriptions",
            json!({"callbackUri": sub.url}),
        )
        .await;
    assert_problem(r, 400, "callbackUri test failed").await;
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            "/subscriptions",
            json!({"callbackUri": format!("{}/gone", sub.base())}),
        )
        .await;
    assert_problem(r, 400, "404").await;
    let r = app
        .lcm_json(
            reqwest::Method::POST,
            "/subscriptions",
            json!({"callbackUri": sub.url, "filter": {"operationTypes": ["DANCE"]}}),
        )
        .await;
    assert_eq!(r.status(), 400);
    let id = app
        .subscribe(&sub, json!({"filter": {"operationTypes": ["INSTANTIATE"], "operationStates": ["COMPLETED"]},
            "authentication": {"authType": ["OAUTH2_CLIENT_CREDENTIALS"],
                "paramsOauth2ClientCredentials": {"clientId": "ops", "clientPassword": "pw", "tokenEndpoint": token}}}))
        .await;
    let shown: Value = app
        .lcm(reqwest::Method::GET, &format!("/subscriptions/{id}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(shown["filter"]["operationTypes"][0], "INSTANTIATE");
    assert!(
        shown.get("authentication").is_none(),
        "credentials are never returned"
    );
    let list: Vec<Value> = app
        .lcm(reqwest::Method::GET, "/subscriptions")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list.len(), 1);
    app.onboarded_package().await;
    let i = app.create_instance().await;
    let op = app
        .task(
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}),
        )
        .await;
    sub.wait("the filtered result", |g| !states_of(g, &op).is_empty())
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let got = sub.received();
    // Operation filters apply to operation notifications; identifier ones pass.
    assert_eq!(
        states_of(&got, &op),
        ["RESULT:COMPLETED"],
        "only INSTANTIATE/COMPLETED passes: {got:#?}"
    );
    assert_eq!(got.len(), 2);
    assert_eq!(
        got[0]["notificationType"],
        "VnfIdentifierCreationNotification"
    );
    let r = app
        .lcm(reqwest::Method::DELETE, &format!("/subscriptions/{id}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let r = app
        .lcm(reqwest::Method::GET, &format!("/subscriptions/{id}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn external_nfvo_grants_synchronously_asynchronously_or_refuses() {
    for mode in [NfvoMode::Grant, NfvoMode::Async, NfvoMode::Refuse] {
        let nfvo = Nfvo::start(mode);
        let opts = Options {
            conductors: 1,
            nfvo_grant_url: Some(nfvo.url.clone()),
            ..Options::default()
        };
        let app = TestApp::with(TestDb::sqlite(), opts).await;
        app.onboarded_package().await;
        let i = app.create_instance().await;
        let op = app
            .task(
                &i,
                "instantiate",
                json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}),
            )
            .await;
        let done = app
            .wait_op(&op, &["COMPLETED", "ROLLED_BACK", "FAILED_TEMP"])
            .await;
        let req = nfvo.requests.lock().unwrap()[0].clone();
        assert_eq!(req["operation"], "INSTANTIATE");
        assert_eq!(req["vnfLcmOpOccId"], op.as_str());
        assert_eq!(req["flavourId"], "simple");
        assert_eq!(req["addResources"].as_array().unwrap().len(), 2, "{req}");
        match mode {
            NfvoMode::Grant | NfvoMode::Async => {
                assert_eq!(done["operationState"], "COMPLETED", "{mode:?}: {done}");
                assert_eq!(done["grantId"], "g-1");
            }
            NfvoMode::Refuse => {
                assert_eq!(done["operationState"], "ROLLED_BACK", "{done}");
                assert!(
                    done["error"]["detail"]
                        .as_str()
                        .unwrap()
                        .contains("no capacity left"),
                    "{done}"
                );
                // Nothing happened and the instance is free.
                assert_eq!(
                    app.instance(&i).await["instantiationState"],
                    "NOT_INSTANTIATED"
                );
                let again = app
                    .lcm_json(
                        reqwest::Method::POST,
                        &format!("/vnf_instances/{i}/instantiate"),
                        json!({"flavourId": "simple"}),
                    )
                    .await;
                assert_eq!(again.status(), 202);
            }
            NfvoMode::AsyncElsewhere(_) => unreachable!("not in this test"),
        }
    }
}

#[tokio::test]
async fn an_nfvo_location_on_another_origin_gets_no_credentials() {
    // A listener on another origin, counting connections.
    let elsewhere = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = elsewhere.local_addr().unwrap().port();
    elsewhere.set_nonblocking(true).unwrap();
    let nfvo = Nfvo::start(NfvoMode::AsyncElsewhere(port));
    let opts = Options {
        conductors: 1,
        nfvo_grant_url: Some(nfvo.url.clone()),
        ..Options::default()
    };
    let app = TestApp::with(TestDb::sqlite(), opts).await;
    app.onboarded_package().await;
    let i = app.create_instance().await;
    let op = app
        .task(
            &i,
            "instantiate",
            json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}),
        )
        .await;
    let done = app
        .wait_op(&op, &["COMPLETED", "ROLLED_BACK", "FAILED_TEMP"])
        .await;
    assert_eq!(done["operationState"], "ROLLED_BACK", "{done}");
    assert!(
        done["error"]["detail"]
            .as_str()
            .unwrap()
            .contains("another origin"),
        "{done}"
    );
    assert!(
        elsewhere.accept().is_err(),
        "the other origin was contacted"
    );
}

#[tokio::test]
async fn duplicate_lcm_subscriptions_are_answered_303_in_both_api_versions() {
    let app = TestApp::start(TestDb::sqlite()).await;
    let sub = Subscriber::start(Expect::Nothing);
    let no_follow = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let post = |version: &'static str, body: Value| {
        let c = no_follow.clone();
        let url = app.url(&format!("/vnflcm/{version}/subscriptions"));
        let v = if version == "v2" { "2.0.0" } else { "1.3.0" };
        async move {
            c.post(url)
                .header("Version", v)
                .json(&body)
                .send()
                .await
                .unwrap()
        }
    };
    let body = json!({"callbackUri": sub.url, "filter": {"operationTypes": ["SCALE"]}});
    for version in ["v1", "v2"] {
        let first = post(version, body.clone()).await;
        assert_eq!(first.status(), 201, "{version}");
        let location = first.headers()["location"].to_str().unwrap().to_owned();
        assert!(location.contains(&format!("/vnflcm/{version}/subscriptions/")));
        let again = post(version, body.clone()).await;
        assert_eq!(again.status(), 303, "{version}");
        assert_eq!(again.headers()["location"].to_str().unwrap(), location);
    }
    // Another verbosity or filter is another subscription.
    let mut short = body.clone();
    short["verbosity"] = json!("SHORT");
    assert_eq!(post("v2", short).await.status(), 201);
    let other = json!({"callbackUri": sub.url, "filter": {"operationTypes": ["HEAL"]}});
    assert_eq!(post("v2", other).await.status(), 201);
    let listed: Value = app
        .http
        .get(app.url("/vnflcm/v2/subscriptions"))
        .header("Version", "2.0.0")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // v1 and v2 share one store: 2 + the SHORT one + the HEAL one.
    assert_eq!(listed.as_array().unwrap().len(), 4, "{listed}");

    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            refuse_duplicate_subscriptions: false,
            ..Options::default()
        },
    )
    .await;
    for _ in 0..2 {
        let r = app
            .lcm_json(reqwest::Method::POST, "/subscriptions", body.clone())
            .await;
        assert_eq!(r.status(), 201);
    }
}
