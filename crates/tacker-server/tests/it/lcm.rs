//! The LCM v2 API and engine with in-process conductors, the simulated VIM, a real HTTP
//! subscriber and a real HTTP NFVO; on PostgreSQL and SQLite.

use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::TestDb;
use tacker_testkit::csar::valid;

use crate::support::{Options, TestApp, assert_problem};
use tacker_testkit::peers::{Expect, Nfvo, NfvoMode, Subscriber, states_of};

pub const VNFD: &str = "11111111-2222-3333-4444-555555555555";
const T: Duration = Duration::from_secs(20);

pub fn sim_vim() -> Value {
    json!({"vim1": {"vimType": "TACKER.SIM.V_1", "interfaceInfo": {"endpoint": "sim://local"},
        "accessInfo": {"username": "admin", "password": "vim-secret"}}})
}

impl TestApp {
    pub fn lcm(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, self.url(&format!("/vnflcm/v2{path}")))
            .header("Version", "2.0.0")
    }

    pub async fn lcm_json(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Value,
    ) -> reqwest::Response {
        self.lcm(method, path).json(&body).send().await.unwrap()
    }

    /// Uploads the test package and waits for ONBOARDED.
    pub async fn onboarded_package(&self) -> String {
        let (id, _) = self.upload(valid().zip()).await;
        assert_eq!(self.settled(&id, T).await["onboardingState"], "ONBOARDED");
        id
    }

    pub async fn create_instance(&self) -> String {
        let r = self
            .lcm_json(
                reqwest::Method::POST,
                "/vnf_instances",
                json!({"vnfdId": VNFD, "vnfInstanceName": "web"}),
            )
            .await;
        assert_eq!(r.status(), 201);
        r.json::<Value>().await.unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// POSTs a task; returns the occurrence id from `Location`.
    pub async fn task(&self, instance: &str, task: &str, body: Value) -> String {
        let r = self
            .lcm_json(
                reqwest::Method::POST,
                &format!("/vnf_instances/{instance}/{task}"),
                body,
            )
            .await;
        let status = r.status();
        let location = r
            .headers()
            .get("location")
            .map(|l| l.to_str().unwrap().to_owned());
        assert_eq!(status, 202, "{task}: {}", r.text().await.unwrap());
        tacker_testkit::id_of(&location.unwrap())
    }

    pub async fn op(&self, id: &str) -> Value {
        self.lcm(reqwest::Method::GET, &format!("/vnf_lcm_op_occs/{id}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub async fn wait_op(&self, id: &str, states: &[&str]) -> Value {
        let deadline = tokio::time::Instant::now() + T;
        loop {
            let op = self.op(id).await;
            if states.contains(&op["operationState"].as_str().unwrap_or_default()) {
                return op;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "op {id} never reached {states:?}: {op}"
            );
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }

    pub async fn instance(&self, id: &str) -> Value {
        self.lcm(reqwest::Method::GET, &format!("/vnf_instances/{id}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub async fn subscribe(&self, sub: &Subscriber, extra: Value) -> String {
        let mut body = json!({"callbackUri": sub.url});
        if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
            b.extend(e.clone());
        }
        let r = self
            .lcm_json(reqwest::Method::POST, "/subscriptions", body)
            .await;
        let status = r.status();
        let v: Value = r.json().await.unwrap();
        assert_eq!(status, 201, "{v}");
        v["id"].as_str().unwrap().to_owned()
    }

    /// A package, a subscription, an instance (instantiated with the simulated VIM).
    pub async fn instantiated(&self, sub: Option<&Subscriber>) -> (String, String) {
        self.onboarded_package().await;
        if let Some(s) = sub {
            self.subscribe(s, json!({})).await;
        }
        let i = self.create_instance().await;
        let op = self
            .task(
                &i,
                "instantiate",
                json!({"flavourId": "simple", "vimConnectionInfo": sim_vim()}),
            )
            .await;
        assert_eq!(
            self.wait_op(&op, &["COMPLETED", "FAILED_TEMP", "ROLLED_BACK"])
                .await["operationState"],
            "COMPLETED"
        );
        (i, op)
    }
}

async fn cluster(tdb: TestDb) -> TestApp {
    TestApp::with(
        tdb,
        Options {
            conductors: 2,
            ..Options::default()
        },
    )
    .await
}

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
    let r = app
        .lcm(
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{op}/retry"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
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
    let r = app
        .lcm(
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{op}/rollback"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
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
    let r = app
        .lcm(
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{op}/retry"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
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
        .run(move |c| tacker_db::instances::instantiate_params(c, iid))
        .await
        .unwrap()
        .unwrap();
    assert!(
        sealed.starts_with("enc:v1:") && !sealed.contains("pw-9f3e1c"),
        "{sealed}"
    );
    assert!(app.keys.open(&sealed).unwrap().contains("pw-9f3e1c"));
    let stored = app
        .db
        .run(move |c| tacker_db::op_occs::get(c, opid))
        .await
        .unwrap()
        .unwrap();
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
    let r = app
        .http
        .post(app.url("/v1.0/vims"))
        .json(
            &json!({"vim": {"name": "helm", "type": "kubernetes", "auth_url": "https://k8s:6443",
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
    let kept = || app.db.run(tacker_db::outbox::kept);
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
        app.db.run(tacker_db::outbox::undelivered).await.unwrap() > 0,
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
    let counts = app.db.run(tacker_db::op_occs::counts).await.unwrap();
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
    let undelivered = || app.db.run(tacker_db::outbox::undelivered);
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
