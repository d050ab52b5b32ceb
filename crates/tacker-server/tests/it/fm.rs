//! VNF FM and the closed loop with in-process conductors and the simulated VIM, over real
//! HTTP: Alertmanager-shaped webhooks raise and clear alarms, FM subscribers hear of
//! them in order, auto-heal alerts become one automatic HEAL per instance; on
//! PostgreSQL and SQLite.

use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::TestDb;
use tacker_testkit::peers::{Expect, Subscriber};

use crate::support::{Options, TestApp, assert_problem};

const T: Duration = Duration::from_secs(30);

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

fn heal_alert(fp: &str, i: &str, vnfc: &str) -> Value {
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

async fn set_autoheal(app: &TestApp, i: &str, on: bool) {
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
        // A second firing after the clear is a new alarm.
        app.alerts("/alert", vec![firing]).await;
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

/// A storm of auto-heal alerts for one VNFC, and one for another VNFC in the same
/// window: one automatic HEAL of both, `isAutomaticInvocation` in the occurrence and its
/// notifications; without `isAutohealEnabled`, alarms only.
#[tokio::test]
async fn an_alert_storm_heals_once_and_only_when_the_instance_opted_in() {
    for tdb in TestDb::each() {
        let app = TestApp::with(
            tdb,
            Options {
                conductors: 2,
                auto_heal_window: Duration::from_millis(800),
                ..Options::default()
            },
        )
        .await;
        let lcm_sub = Subscriber::start(Expect::Nothing);
        let (i, _) = app.instantiated(Some(&lcm_sub)).await;
        let vnfcs = app.vnfc_ids(&i).await;
        let (a, b) = (vnfcs[0].0.clone(), vnfcs[1].0.clone());

        // Not opted in: an alarm, no heal.
        let out = app
            .alerts("/alert/auto_healing", vec![heal_alert("x", &i, &a)])
            .await;
        assert_eq!(
            out["outcomes"],
            json!({"raised": 1, "not_enabled": 1}),
            "{out}"
        );
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(app.heals(&i).await.is_empty());

        set_autoheal(&app, &i, true).await;
        let storm: Vec<Value> = (0..100)
            .map(|n| heal_alert(&format!("storm-{}", n % 7), &i, &a))
            .collect();
        let (s1, s2) = storm.split_at(50);
        let (r1, r2) = tokio::join!(
            app.alerts("/alert/auto_healing", s1.to_vec()),
            app.alerts("/alert/auto_healing", s2.to_vec())
        );
        assert_eq!(r1["outcomes"]["heal_requested"], 50, "{r1}");
        assert_eq!(r2["outcomes"]["heal_requested"], 50, "{r2}");
        app.alerts("/alert/auto_healing", vec![heal_alert("other", &i, &b)])
            .await;

        let deadline = tokio::time::Instant::now() + T;
        let heal = loop {
            if let Some(h) = app.heals(&i).await.first() {
                break h.clone();
            }
            assert!(tokio::time::Instant::now() < deadline, "no automatic heal");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let op = heal["id"].as_str().unwrap().to_owned();
        let done = app.wait_op(&op, &["COMPLETED", "FAILED_TEMP"]).await;
        assert_eq!(done["operationState"], "COMPLETED", "{done}");
        assert_eq!(done["isAutomaticInvocation"], true);
        let mut healed: Vec<String> = done["operationParams"]["vnfcInstanceId"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect();
        healed.sort();
        let mut both = vec![a.clone(), b.clone()];
        both.sort();
        assert_eq!(healed, both);
        // The storm's alerts keep coming while and after it ran: still one heal (the
        // VNFCs they name were replaced).
        app.alerts("/alert/auto_healing", vec![heal_alert("storm-1", &i, &a)])
            .await;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(app.heals(&i).await.len(), 1, "{:?}", app.heals(&i).await);
        let got = lcm_sub
            .wait("the automatic heal's result", |g| {
                g.iter().any(|n| {
                    n["vnfLcmOpOccId"] == op.as_str() && n["operationState"] == "COMPLETED"
                })
            })
            .await;
        for n in got.iter().filter(|n| n["vnfLcmOpOccId"] == op.as_str()) {
            assert_eq!(n["isAutomaticInvocation"], true, "{n}");
        }
    }
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

/// The server tells a conductor about new automatic work: the heal starts when its
/// window ends, not at the next periodic pass (an hour away here).
#[tokio::test]
async fn an_automatic_heal_starts_when_its_window_ends_without_waiting_for_a_pass() {
    let window = Duration::from_millis(300);
    let app = TestApp::with(
        TestDb::postgres(),
        Options {
            conductors: 2,
            auto_heal_window: window,
            loop_interval: Duration::from_secs(3600),
            ..Options::default()
        },
    )
    .await;
    let (i, _) = app.instantiated(None).await;
    set_autoheal(&app, &i, true).await;
    // The periodic passes ran once at start-up; the next is an hour away.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let vnfc = app.vnfc_ids(&i).await[0].0.clone();
    let sent = chrono::Utc::now();
    app.alerts("/alert/auto_healing", vec![heal_alert("w", &i, &vnfc)])
        .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let heal = loop {
        if let Some(h) = app.heals(&i).await.first() {
            break h.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no heal without a periodic pass"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let started: chrono::DateTime<chrono::Utc> =
        heal["startTime"].as_str().unwrap().parse().unwrap();
    let after = (started - sent).to_std().unwrap_or_default();
    assert!(
        after >= window - Duration::from_millis(50) && after < window + Duration::from_secs(2),
        "started {after:?} after the alert (window {window:?})"
    );
    let done = app
        .wait_op(heal["id"].as_str().unwrap(), &["COMPLETED", "FAILED_TEMP"])
        .await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
}

/// Automatic work waits while another operation holds the instance, and for the
/// cool-down after an automatic one; it is then done once.
#[tokio::test]
async fn automatic_heals_wait_for_running_operations_and_the_cooldown() {
    let app = TestApp::with(
        TestDb::postgres(),
        Options {
            conductors: 1,
            auto_heal_window: Duration::from_millis(200),
            cooldown: Duration::from_secs(4),
            ..Options::default()
        },
    )
    .await;
    let (i, _) = app.instantiated(None).await;
    set_autoheal(&app, &i, true).await;
    let vnfcs = app.vnfc_ids(&i).await;
    let (a, b) = (vnfcs[0].0.clone(), vnfcs[1].0.clone());
    // A manual heal of b, held in PROCESSING.
    let hold = tempfile::NamedTempFile::new().unwrap();
    let manual = app
        .task(
            &i,
            "heal",
            json!({"vnfcInstanceId": [b], "additionalParams": {"sim": {"holdFile": hold.path()}}}),
        )
        .await;
    app.wait_op(&manual, &["PROCESSING"]).await;
    app.alerts("/alert/auto_healing", vec![heal_alert("a1", &i, &a)])
        .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        app.heals(&i).await.len(),
        1,
        "the automatic heal did not wait"
    );
    drop(hold);
    app.wait_op(&manual, &["COMPLETED"]).await;
    let deadline = tokio::time::Instant::now() + T;
    let auto = loop {
        let heals = app.heals(&i).await;
        if let Some(h) = heals.iter().find(|h| h["isAutomaticInvocation"] == true) {
            break h["id"].as_str().unwrap().to_owned();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the waiting heal never ran"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let first = app.wait_op(&auto, &["COMPLETED"]).await;
    let ended =
        chrono::DateTime::parse_from_rfc3339(first["stateEnteredTime"].as_str().unwrap()).unwrap();
    // The replaced VNFC fails at once: healed again only after the cool-down.
    let a2 = app.vnfc_ids(&i).await[0].0.clone();
    app.alerts("/alert/auto_healing", vec![heal_alert("a2", &i, &a2)])
        .await;
    let deadline = tokio::time::Instant::now() + T;
    let second = loop {
        let heals = app.heals(&i).await;
        if let Some(h) = heals
            .iter()
            .find(|h| h["isAutomaticInvocation"] == true && h["id"] != auto.as_str())
        {
            break h.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the second heal never ran"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let started =
        chrono::DateTime::parse_from_rfc3339(second["startTime"].as_str().unwrap()).unwrap();
    assert!(
        started - ended >= chrono::Duration::seconds(4),
        "started {started} less than the cool-down after {ended}"
    );
}

fn scale_alert(fp: &str, i: &str, direction: &str) -> Value {
    alert(
        "firing",
        fp,
        json!({"function_type": "auto_scale", "vnf_instance_id": i, "aspect_id": "vdu1_aspect",
            "auto_scale_type": direction}),
    )
}

async fn scale_level(app: &TestApp, i: &str) -> u64 {
    let v = app.instance(i).await;
    v["instantiatedVnfInfo"]["scaleStatus"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["aspectId"] == "vdu1_aspect")
        .unwrap()["scaleLevel"]
        .as_u64()
        .unwrap()
}

async fn scales(app: &TestApp, i: &str) -> Vec<Value> {
    let r = app
        .lcm(
            reqwest::Method::GET,
            &format!("/vnf_lcm_op_occs?filter=(eq,operation,SCALE);(eq,vnfInstanceId,{i})"),
        )
        .send()
        .await
        .unwrap();
    r.json().await.unwrap()
}

/// Waits until the instance's automatic scales number `n`, all ended; their states.
async fn ended_scales(app: &TestApp, i: &str, n: usize) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + T;
    loop {
        let s = scales(app, i).await;
        let ended: Vec<String> = s
            .iter()
            .filter(|o| {
                ["COMPLETED", "FAILED_TEMP", "FAILED", "ROLLED_BACK"]
                    .contains(&o["operationState"].as_str().unwrap())
            })
            .map(|o| o["operationState"].as_str().unwrap().to_owned())
            .collect();
        if s.len() >= n && ended.len() == s.len() {
            assert!(s.iter().all(|o| o["isAutomaticInvocation"] == true));
            return ended;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{n} scales never ended: {s:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Auto-scale alerts scale one step each, up to the aspect's maximum and not beyond
/// (there: a WARNING alarm, no failing operation), then back in; an instance that did
/// not opt in gets an alarm only.
#[tokio::test]
async fn auto_scale_alerts_step_within_the_aspect_limits() {
    let app = TestApp::with(
        TestDb::postgres(),
        Options {
            conductors: 1,
            cooldown: Duration::from_millis(200),
            ..Options::default()
        },
    )
    .await;
    let (i, _) = app.instantiated(None).await;
    let out = app
        .alerts(
            "/alert/auto_scaling",
            vec![scale_alert("s0", &i, "SCALE_OUT")],
        )
        .await;
    assert_eq!(
        out["outcomes"],
        json!({"raised": 1, "not_enabled": 1}),
        "{out}"
    );
    let r = app
        .lcm_json(
            reqwest::Method::PATCH,
            &format!("/vnf_instances/{i}"),
            json!({"vnfConfigurableProperties": {"isAutoscaleEnabled": true}}),
        )
        .await;
    let op = tacker_testkit::id_of(r.headers()["location"].to_str().unwrap());
    app.wait_op(&op, &["COMPLETED"]).await;
    assert_eq!(scale_level(&app, &i).await, 0);
    // Two steps out (the maximum is 2), one alert each.
    for (n, fp) in ["s1", "s2"].iter().enumerate() {
        let out = app
            .alerts(
                "/alert/auto_scaling",
                vec![scale_alert(fp, &i, "SCALE_OUT")],
            )
            .await;
        assert_eq!(out["outcomes"]["scale_requested"], 1, "{out}");
        assert_eq!(
            ended_scales(&app, &i, n + 1).await,
            vec!["COMPLETED"; n + 1]
        );
    }
    assert_eq!(scale_level(&app, &i).await, 2);
    // Beyond the maximum: refused with an alarm, no operation.
    app.alerts(
        "/alert/auto_scaling",
        vec![scale_alert("s3", &i, "SCALE_OUT")],
    )
    .await;
    let deadline = tokio::time::Instant::now() + T;
    let refused = loop {
        let a = app.alarms("?filter=(eq,perceivedSeverity,WARNING)").await;
        if let Some(x) = a.iter().find(|x| {
            x["probableCause"]
                .as_str()
                .unwrap_or_default()
                .contains("refused")
        }) {
            break x.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no alarm for the refused step: {a:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(refused["alarmClearedTime"].is_null(), "{refused}");
    assert_eq!(scales(&app, &i).await.len(), 2);
    assert_eq!(scale_level(&app, &i).await, 2);
    // A step in: done; the refusal's alarm cleared.
    app.alerts(
        "/alert/auto_scaling",
        vec![scale_alert("s4", &i, "SCALE_IN")],
    )
    .await;
    assert_eq!(ended_scales(&app, &i, 3).await, vec!["COMPLETED"; 3]);
    assert_eq!(scale_level(&app, &i).await, 1);
    let a: Value = app
        .fm(
            reqwest::Method::GET,
            &format!("/alarms/{}", refused["id"].as_str().unwrap()),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(a["alarmClearedTime"].is_string(), "{a}");
    // Unknown aspect and direction are said, not done.
    let out = app
        .alerts(
            "/alert/auto_scaling",
            vec![alert("firing", "bad", json!({"function_type": "auto_scale", "vnf_instance_id": i, "aspect_id": "vdu1_aspect", "auto_scale_type": "SIDEWAYS"}))],
        )
        .await;
    assert!(
        out["skipped"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("SIDEWAYS"),
        "{out}"
    );
}

/// A server monitor's FaultNotification: an alarm about the server's VNFC, healed when
/// the instance opted in; bad notifications are refused.
#[tokio::test]
async fn a_server_fault_notification_raises_an_alarm_and_heals_its_vnfc() {
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            conductors: 1,
            auto_heal_window: Duration::from_millis(200),
            ..Options::default()
        },
    )
    .await;
    let (i, _) = app.instantiated(None).await;
    let (vnfc, server) = app.vnfc_ids(&i).await[0].clone();
    let notify = |server: &str, body: Value| {
        app.http
            .post(app.url(&format!(
                "/server_notification/vnf_instances/{i}/servers/{server}/notify"
            )))
            .json(&body)
            .send()
    };
    let fault = json!({"notification": {"host_id": "host-1", "alarm_id": "alarm-7", "fault_id": "1234", "fault_type": "10"}});
    // Not opted in: an alarm only.
    assert_eq!(notify(&server, fault.clone()).await.unwrap().status(), 204);
    let alarms = app.alarms("").await;
    assert_eq!(alarms.len(), 1, "{alarms:?}");
    assert_eq!(alarms[0]["vnfcInstanceIds"], json!([vnfc]));
    assert_eq!(alarms[0]["eventType"], "EQUIPMENT_ALARM");
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(app.heals(&i).await.is_empty());
    // Refused: a server that is not the instance's, a malformed fault.
    assert_problem(
        notify("no-such-server", fault.clone()).await.unwrap(),
        400,
        "not a VNFC",
    )
    .await;
    let bad = json!({"notification": {"alarm_id": "a", "fault_id": "12", "fault_type": "10"}});
    assert_problem(notify(&server, bad).await.unwrap(), 400, "fault_id").await;
    // Opted in: healed, once, automatically.
    set_autoheal(&app, &i, true).await;
    assert_eq!(notify(&server, fault.clone()).await.unwrap().status(), 204);
    assert_eq!(notify(&server, fault).await.unwrap().status(), 204);
    let deadline = tokio::time::Instant::now() + T;
    let heal = loop {
        if let Some(h) = app.heals(&i).await.first() {
            break h["id"].as_str().unwrap().to_owned();
        }
        assert!(tokio::time::Instant::now() < deadline, "no heal");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let done = app.wait_op(&heal, &["COMPLETED", "FAILED_TEMP"]).await;
    assert_eq!(done["operationState"], "COMPLETED");
    assert_eq!(done["isAutomaticInvocation"], true);
    assert_eq!(done["operationParams"]["vnfcInstanceId"], json!([vnfc]));
    assert_eq!(app.heals(&i).await.len(), 1);
}
