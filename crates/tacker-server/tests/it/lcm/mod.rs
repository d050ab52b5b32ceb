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

    /// POSTs `…/vnf_lcm_op_occs/{op}/<action>` (retry, rollback); its status.
    pub async fn op_action(&self, op: &str, action: &str) -> u16 {
        self.lcm(
            reqwest::Method::POST,
            &format!("/vnf_lcm_op_occs/{op}/{action}"),
        )
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
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

mod api;
mod cancel;
mod change_flavour;
mod flows;
mod operate;
mod retention;
mod scale_to_level;
mod secrets;
mod subscribers;
