//! The closed loop with in-process conductors and the simulated VIM, over real HTTP:
//! auto-heal alerts become one automatic HEAL per instance, auto-scale alerts steps
//! within the aspect's limits, server fault notifications heals; waits for running
//! operations and the cool-down; on PostgreSQL and SQLite.

use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::TestDb;
use tacker_testkit::peers::{Expect, Subscriber};

use crate::fm::{T, alert, heal_alert, set_autoheal};
use crate::support::{Options, TestApp, assert_problem};

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
                auto_heal_window: Duration::from_secs(3),
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
        // A storm on VNFC a, with one alert on VNFC b among it: two concurrent posts,
        // both inside the window however loaded the machine is (the window is long
        // against two requests' time; the heal waits for it to end).
        let mut storm: Vec<Value> = (0..100)
            .map(|n| heal_alert(&format!("storm-{}", n % 7), &i, &a))
            .collect();
        storm.insert(75, heal_alert("other", &i, &b));
        let (s1, s2) = storm.split_at(50);
        let (r1, r2) = tokio::join!(
            app.alerts("/alert/auto_healing", s1.to_vec()),
            app.alerts("/alert/auto_healing", s2.to_vec())
        );
        assert_eq!(r1["outcomes"]["heal_requested"], 50, "{r1}");
        assert_eq!(r2["outcomes"]["heal_requested"], 51, "{r2}");

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
