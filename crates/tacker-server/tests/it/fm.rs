//! VNF FM with in-process conductors and the simulated VIM, over real HTTP:
//! Alertmanager-shaped webhooks raise and clear alarms, FM subscribers hear of them in
//! order; on PostgreSQL and SQLite. The closed loop's tests are in `closed_loop.rs`.

use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::TestDb;
use tacker_testkit::peers::{Expect, Subscriber};

use crate::support::{Options, TestApp, assert_problem};

pub(crate) const T: Duration = Duration::from_secs(30);

impl TestApp {
    pub fn fm(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, self.url(&format!("/vnffm/v1{path}")))
            .header("Version", "1.3.0")
    }

    /// Posts Alertmanager's webhook body with `alerts` to `path`; the answer.
    pub async fn alerts(&self, path: &str, alerts: Vec<Value>) -> Value {
        let r = self
            .http
            .post(self.url(path))
            .json(&json!({"version": "4", "status": "firing", "receiver": "tacker", "alerts": alerts}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        r.json().await.unwrap()
    }

    pub async fn alarms(&self, query: &str) -> Vec<Value> {
        let r = self
            .fm(reqwest::Method::GET, &format!("/alarms{query}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        r.json().await.unwrap()
    }

    /// `(vnfcInfo id, Pod/resource name)` of the instance's VNFCs.
    pub async fn vnfc_ids(&self, i: &str) -> Vec<(String, String)> {
        let v = self.instance(i).await;
        let info = &v["instantiatedVnfInfo"];
        info["vnfcInfo"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let r = info["vnfcResourceInfo"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|r| r["id"] == c["vnfcResourceInfoId"])
                    .unwrap();
                (
                    c["id"].as_str().unwrap().to_owned(),
                    r["computeResource"]["resourceId"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                )
            })
            .collect()
    }

    pub async fn heals(&self, i: &str) -> Vec<Value> {
        let r = self
            .lcm(
                reqwest::Method::GET,
                &format!("/vnf_lcm_op_occs?filter=(eq,operation,HEAL);(eq,vnfInstanceId,{i})"),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        r.json().await.unwrap()
    }
}

/// An alert as Alertmanager sends it.
pub fn alert(status: &str, fingerprint: &str, labels: Value) -> Value {
    let mut l = json!({"alertname": "PodFailed", "receiver_type": "tacker"});
    if let (Some(m), Some(extra)) = (l.as_object_mut(), labels.as_object()) {
        m.extend(extra.clone());
    }
    json!({
        "status": status,
        "labels": l,
        "annotations": {"probable_cause": "Pod not ready", "fault_details": "readiness probe failed"},
        "startsAt": "2026-12-03T10:00:00.000Z",
        "endsAt": if status == "resolved" { "2026-12-03T10:05:00.000Z" } else { "0001-01-01T00:00:00Z" },
        "generatorURL": "http://127.0.0.1:9090/graph",
        "fingerprint": fingerprint,
    })
}

fn fm_alert(status: &str, fp: &str, i: &str, vnfc: &str, severity: &str) -> Value {
    alert(
        status,
        fp,
        json!({"function_type": "vnffm", "vnf_instance_id": i, "vnfc_info_id": vnfc,
            "perceived_severity": severity, "event_type": "PROCESSING_ERROR_ALARM"}),
    )
}

pub(crate) fn heal_alert(fp: &str, i: &str, vnfc: &str) -> Value {
    alert(
        "firing",
        fp,
        json!({"function_type": "auto_heal", "vnf_instance_id": i, "vnfc_info_id": vnfc}),
    )
}

async fn fm_subscribe(app: &TestApp, sub: &Subscriber, filter: Value) -> String {
    let r = app
        .fm(reqwest::Method::POST, "/subscriptions")
        .json(&json!({"callbackUri": sub.url, "filter": filter}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    let v: Value = r.json().await.unwrap();
    assert!(location.ends_with(v["id"].as_str().unwrap()), "{location}");
    v["id"].as_str().unwrap().to_owned()
}

pub(crate) async fn set_autoheal(app: &TestApp, i: &str, on: bool) {
    let r = app
        .lcm_json(
            reqwest::Method::PATCH,
            &format!("/vnf_instances/{i}"),
            json!({"vnfConfigurableProperties": {"isAutohealEnabled": on}}),
        )
        .await;
    assert_eq!(r.status(), 202);
    let op = tacker_testkit::id_of(r.headers()["location"].to_str().unwrap());
    assert_eq!(
        app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await["operationState"],
        "COMPLETED"
    );
}

#[tokio::test]
async fn alerts_raise_and_clear_one_alarm_and_subscribers_hear_both_in_order() {
    for tdb in TestDb::each() {
        let app = TestApp::with(
            tdb,
            Options {
                conductors: 1,
                ..Options::default()
            },
        )
        .await;
        let (i, _) = app.instantiated(None).await;
        let vnfcs = app.vnfc_ids(&i).await;
        let (vnfc, pod) = &vnfcs[0];
        let sub = Subscriber::start(Expect::Nothing);
        let sid = fm_subscribe(&app, &sub, json!({})).await;
        let minor = Subscriber::start(Expect::Nothing);
        fm_subscribe(&app, &minor, json!({"perceivedSeverities": ["MINOR"]})).await;

        // Alertmanager sends a firing alert again at every group interval: one alarm.
        let firing = fm_alert("firing", "fp-1", &i, vnfc, "CRITICAL");
        let out = app
            .alerts("/alert", vec![firing.clone(), firing.clone()])
            .await;
        assert_eq!(out["outcomes"], json!({"raised": 1, "open": 1}), "{out}");
        app.alerts("/alert", vec![firing.clone()]).await;
        let alarms = app.alarms("").await;
        assert_eq!(alarms.len(), 1, "{alarms:?}");
        let a = &alarms[0];
        let id = a["id"].as_str().unwrap().to_owned();
        assert_eq!(a["managedObjectId"], i.as_str());
        assert_eq!(a["vnfcInstanceIds"], json!([vnfc]));
        assert_eq!(
            a["rootCauseFaultyResource"]["faultyResource"]["resourceId"],
            pod.as_str()
        );
        assert_eq!(
            a["rootCauseFaultyResource"]["faultyResourceType"],
            "COMPUTE"
        );
        assert_eq!(a["perceivedSeverity"], "CRITICAL");
        assert_eq!(a["ackState"], "UNACKNOWLEDGED");
        assert_eq!(a["probableCause"], "Pod not ready");
        assert_eq!(a["faultDetails"][0], "fingerprint: fp-1");
        assert!(a.get("alarmClearedTime").is_none());
        assert!(
            a["_links"]["objectInstance"]["href"]
                .as_str()
                .unwrap()
                .ends_with(&i)
        );

        // SOL013 filters.
        assert_eq!(
            app.alarms("?filter=(eq,perceivedSeverity,CRITICAL)")
                .await
                .len(),
            1
        );
        assert_eq!(
            app.alarms("?filter=(eq,perceivedSeverity,MINOR)")
                .await
                .len(),
            0
        );
        let by_vnfc = format!("?filter=(cont,vnfcInstanceIds,{vnfc})");
        assert_eq!(app.alarms(&by_vnfc).await.len(), 1);
        assert_eq!(
            app.alarms("?filter=(eq,rootCauseFaultyResource/faultyResourceType,COMPUTE)")
                .await
                .len(),
            1
        );
        assert_problem(
            app.fm(reqwest::Method::GET, "/alarms?filter=(eq,nonsense,1)")
                .send()
                .await
                .unwrap(),
            400,
            "nonsense",
        )
        .await;

        // Acknowledge: 200 with the change, 409 when it is so already.
        let ack = |state: &str| {
            app.fm(reqwest::Method::PATCH, &format!("/alarms/{id}"))
                .header("Content-Type", "application/merge-patch+json")
                .body(json!({"ackState": state}).to_string())
        };
        let r = ack("ACKNOWLEDGED").send().await.unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(
            r.json::<Value>().await.unwrap(),
            json!({"ackState": "ACKNOWLEDGED"})
        );
        assert_problem(
            ack("ACKNOWLEDGED").send().await.unwrap(),
            409,
            "ACKNOWLEDGED",
        )
        .await;
        assert_problem(ack("SEEN").send().await.unwrap(), 400, "").await;
        let shown: Value = app
            .fm(reqwest::Method::GET, &format!("/alarms/{id}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(shown["ackState"], "ACKNOWLEDGED");
        assert!(shown["alarmAcknowledgedTime"].is_string());

        // Resolved: cleared (at the alert's end), once.
        let resolved = fm_alert("resolved", "fp-1", &i, vnfc, "CRITICAL");
        let out = app.alerts("/alert", vec![resolved.clone(), resolved]).await;
        assert_eq!(
            out["outcomes"],
            json!({"cleared": 1, "not_open": 1}),
            "{out}"
        );
        let a = &app.alarms("").await[0];
        assert_eq!(a["alarmClearedTime"], "2026-12-03T10:05:00Z");

        let got = sub.wait("raised then cleared", |g| g.len() >= 2).await;
        assert_eq!(got.len(), 2, "{got:#?}");
        assert_eq!(got[0]["notificationType"], "AlarmNotification");
        assert_eq!(got[0]["alarm"]["id"], id.as_str());
        assert_eq!(got[0]["subscriptionId"], sid.as_str());
        assert!(
            got[0]["_links"]["subscription"]["href"]
                .as_str()
                .unwrap()
                .ends_with(&sid)
        );
        assert_eq!(got[1]["notificationType"], "AlarmClearedNotification");
        assert_eq!(got[1]["alarmId"], id.as_str());
        assert_eq!(got[1]["alarmClearedTime"], "2026-12-03T10:05:00Z");
        assert!(
            got[1]["_links"]["alarm"]["href"]
                .as_str()
                .unwrap()
                .ends_with(&id)
        );
        // A late copy of the firing that was cleared (Alertmanager retrying a
        // notification) raises nothing; the alert firing again (a new start) is a new
        // alarm.
        app.alerts("/alert", vec![firing.clone()]).await;
        assert_eq!(app.alarms("").await.len(), 1);
        let mut again = firing;
        again["startsAt"] = json!("2026-12-03T10:10:00.000Z");
        app.alerts("/alert", vec![again]).await;
        assert_eq!(app.alarms("").await.len(), 2);
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(minor.received().is_empty(), "{:?}", minor.received());
    }
}

#[tokio::test]
async fn bad_alerts_are_skipped_with_their_reason_and_bad_bodies_refused() {
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            conductors: 1,
            ..Options::default()
        },
    )
    .await;
    let (i, _) = app.instantiated(None).await;
    let vnfc = app.vnfc_ids(&i).await[0].0.clone();
    let out = app
        .alerts(
            "/alert",
            vec![
                fm_alert("firing", "a", "0b0c6f55-6a7e-4f2b-9d07-0d3c1d2e4f50", &vnfc, "MAJOR"),
                fm_alert("firing", "b", "not-an-id", &vnfc, "MAJOR"),
                fm_alert("firing", "c", &i, "VDU9-nothing", "MAJOR"),
                fm_alert("firing", "d", &i, &vnfc, "SEVERE"),
                heal_alert("e", &i, &vnfc),
                json!({"status": "firing", "labels": {"alertname": "Other"}, "startsAt": "2026-12-03T10:00:00Z", "fingerprint": "f"}),
            ],
        )
        .await;
    let reasons: Vec<String> = out["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["reason"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(reasons.len(), 6, "{out}");
    assert!(reasons[0].contains("not found"), "{reasons:?}");
    assert!(reasons[1].contains("not a VNF instance id"), "{reasons:?}");
    assert!(reasons[2].contains("is not a VNFC"), "{reasons:?}");
    assert!(reasons[3].contains("perceived_severity"), "{reasons:?}");
    assert!(reasons[4].contains("/alert/auto_healing"), "{reasons:?}");
    assert!(reasons[5].contains("not a Tacker alert"), "{reasons:?}");
    assert!(app.alarms("").await.is_empty());
    // Not a webhook body.
    let r = app
        .http
        .post(app.url("/alert"))
        .json(&json!({"alerts": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    // The FM API needs its Version.
    let r = app
        .http
        .get(app.url("/vnffm/v1/alarms"))
        .send()
        .await
        .unwrap();
    assert_problem(r, 400, "Version").await;
    let r = app
        .http
        .get(app.url("/vnffm/v1/alarms"))
        .header("Version", "2.0.0")
        .send()
        .await
        .unwrap();
    assert_problem(r, 406, "1.3.0").await;
    let r = app
        .http
        .get(app.url("/vnffm/v1/api_versions"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.json::<Value>().await.unwrap()["apiVersions"][0]["version"],
        "1.3.0"
    );
    // A subscription whose callback does not answer the test GET is refused.
    let r = app
        .fm(reqwest::Method::POST, "/subscriptions")
        .json(&json!({"callbackUri": "http://127.0.0.1:9/none"}))
        .send()
        .await
        .unwrap();
    assert_problem(r, 400, "callbackUri test failed").await;
    let r = app
        .fm(reqwest::Method::POST, "/subscriptions")
        .json(&json!({"callbackUri": "http://127.0.0.1:9/none", "filter": {"severities": []}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
}

/// Deleting an instance clears its open alarms (its alerts can no longer resolve them),
/// and subscribers hear of it; cleared ones stay as they were.
#[tokio::test]
async fn deleting_an_instance_clears_its_open_alarms() {
    for tdb in TestDb::each() {
        let app = TestApp::with(
            tdb,
            Options {
                conductors: 1,
                ..Options::default()
            },
        )
        .await;
        let sub = Subscriber::start(Expect::Nothing);
        fm_subscribe(&app, &sub, json!({})).await;
        let (i, _) = app.instantiated(None).await;
        let vnfc = app.vnfc_ids(&i).await[0].0.clone();
        app.alerts(
            "/alert",
            vec![
                fm_alert("firing", "open", &i, &vnfc, "MAJOR"),
                fm_alert("firing", "done", &i, &vnfc, "MINOR"),
            ],
        )
        .await;
        app.alerts(
            "/alert",
            vec![fm_alert("resolved", "done", &i, &vnfc, "MINOR")],
        )
        .await;
        sub.wait("two raised, one cleared", |g| g.len() == 3).await;
        let done = app.alarms("").await;
        let cleared_before: Vec<Value> = done
            .iter()
            .filter(|a| a["perceivedSeverity"] == "MINOR")
            .cloned()
            .collect();

        let op = app
            .task(&i, "terminate", json!({"terminationType": "FORCEFUL"}))
            .await;
        app.wait_op(&op, &["COMPLETED"]).await;
        let r = app
            .lcm(reqwest::Method::DELETE, &format!("/vnf_instances/{i}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 204);

        let got = sub.wait("the open one cleared", |g| g.len() == 4).await;
        assert_eq!(got[3]["notificationType"], "AlarmClearedNotification");
        let alarms = app.alarms("").await;
        assert_eq!(alarms.len(), 2, "{alarms:?}");
        let major = alarms
            .iter()
            .find(|a| a["perceivedSeverity"] == "MAJOR")
            .unwrap();
        assert_eq!(got[3]["alarmId"], major["id"]);
        assert!(major["alarmClearedTime"].is_string(), "{major}");
        let minor: Vec<Value> = alarms
            .iter()
            .filter(|a| a["perceivedSeverity"] == "MINOR")
            .cloned()
            .collect();
        assert_eq!(
            minor, cleared_before,
            "an alarm cleared before is unchanged"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(sub.received().len(), 4);
    }
}
