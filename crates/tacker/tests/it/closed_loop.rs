//! The closed loop end to end: kube-sim serves its Pods' metrics, a real Prometheus
//! scrapes them and fires an alert when a Pod fails, a real Alertmanager posts it to the
//! VNFM (a server and two conductors as processes on PostgreSQL and RabbitMQ), which
//! raises an alarm, heals the VNFC automatically, and clears the alarm once the alert
//! resolves; the FM subscriber hears both.

use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::peers::{Expect, Subscriber};

use crate::cnf::{Cnf, cnf_cluster, timing};
use crate::monitoring::{Monitoring, promtool_check_rules};

const T: Duration = Duration::from_secs(90);

impl Cnf {
    fn fm(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.c
            .http
            .request(method, format!("{}/vnffm/v1{path}", self.c.api))
            .header("Version", "1.3.0")
    }

    async fn alarms(&self) -> Vec<Value> {
        self.fm(reqwest::Method::GET, "/alarms")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    async fn heals(&self, i: &str) -> Vec<Value> {
        self.c
            .lcm(
                0,
                reqwest::Method::GET,
                &format!("/vnf_lcm_op_occs?filter=(eq,operation,HEAL);(eq,vnfInstanceId,{i})"),
            )
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

/// Prometheus scraping kube-sim (TLS, bearer token) every second, evaluating every
/// second, alerting to Alertmanager.
fn prometheus_yml(e: &Cnf) -> String {
    let ca = e.sim.ca_pem.clone().unwrap();
    let target = e.sim.url.trim_start_matches("https://").to_owned();
    let ca_file = e.c.env.dir.path().join("kube-sim-ca.pem");
    std::fs::write(&ca_file, ca).unwrap();
    format!(
        r#"global:
  scrape_interval: 1s
  evaluation_interval: 1s
alerting:
  alertmanagers:
    - static_configs:
        - targets: ["{{{{ALERTMANAGER}}}}"]
rule_files: ["rules/*.yml"]
scrape_configs:
  - job_name: kube-sim
    scheme: https
    tls_config:
      ca_file: {ca}
    authorization:
      credentials: e2e-token
    static_configs:
      - targets: ["{target}"]
"#,
        ca = ca_file.display()
    )
}

/// Alertmanager posting `receiver` alerts to `url` at once, resolved ones too.
fn alertmanager_yml(url: &str) -> String {
    format!(
        r#"route:
  receiver: tacker
  group_by: [alertname, pod]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: tacker
    webhook_configs:
      - url: {url}
        send_resolved: true
"#
    )
}

/// A failed Pod of the example CNF: Prometheus' alert reaches the VNFM through
/// Alertmanager; one automatic HEAL replaces the Pod; the alarm is raised, then cleared
/// when the alert resolves; the FM subscriber hears both, in order.
#[tokio::test]
async fn a_failed_pod_is_healed_automatically_through_prometheus_and_alertmanager() {
    let e = cnf_cluster(
        &[
            ("TACKER__FM__AUTO_HEAL_WINDOW", "2s"),
            ("TACKER__FM__COOLDOWN", "10s"),
            ("TACKER__FM__LOOP_INTERVAL", "200ms"),
        ],
        timing(),
    )
    .await;
    let i = e.create().await;
    assert_eq!(e.instantiate(&i).await["operationState"], "COMPLETED");
    let r =
        e.c.lcm(0, reqwest::Method::PATCH, &format!("/vnf_instances/{i}"))
            .json(&json!({"vnfConfigurableProperties": {"isAutohealEnabled": true}}))
            .send()
            .await
            .unwrap();
    assert_eq!(r.status(), 202);
    let modify = tacker_testkit::id_of(r.headers()["location"].to_str().unwrap());
    e.c.wait_op(&modify, &["COMPLETED"], T).await;

    let fm_sub = Subscriber::start(Expect::Nothing);
    let r = e
        .fm(reqwest::Method::POST, "/subscriptions")
        .json(&json!({"callbackUri": fm_sub.url}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);

    let rules = format!(
        r#"groups:
  - name: tacker-auto-heal
    rules:
      - alert: PodNotReady
        expr: kube_pod_status_ready{{namespace="default",condition="false"}} == 1
        labels:
          receiver_type: tacker
          function_type: auto_heal
          vnf_instance_id: {i}
          perceived_severity: CRITICAL
          event_type: EQUIPMENT_ALARM
        annotations:
          probable_cause: The Pod is not ready
"#
    );
    let m = Monitoring::start(
        &prometheus_yml(&e),
        &[("auto-heal.yml", rules)],
        &alertmanager_yml(&format!("{}/alert/auto_healing", e.c.api)),
    );
    let (ok, out) = promtool_check_rules(&m.dir.path().join("rules/auto-heal.yml"));
    assert!(ok, "{out}");
    // Prometheus scrapes the CNF's Pods from kube-sim.
    m.wait_query("count(kube_pod_info{namespace=\"default\"})", T, |r| {
        r.first()
            .is_some_and(|s| s["value"][1].as_str().unwrap_or("0") != "0")
    })
    .await;

    let before = e.vnfcs(&i).await;
    // A Pod of the VDU2 Deployment (healed: replaced under a new name).
    let (_, pod, vnfc) = before.iter().find(|v| v.0 == "VDU2").unwrap().clone();
    e.sim
        .sim
        .set_load(
            "default",
            &pod,
            kube_sim::metrics::Load {
                failed: true,
                ..Default::default()
            },
        )
        .unwrap();

    // One automatic heal of that VNFC.
    let deadline = tokio::time::Instant::now() + T;
    let heal = loop {
        if let Some(h) = e.heals(&i).await.first() {
            break h.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no automatic heal\n{}",
            m.logs()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let op = heal["id"].as_str().unwrap().to_owned();
    let done = e.c.wait_op(&op, &["COMPLETED", "FAILED_TEMP"], T).await;
    assert_eq!(done["operationState"], "COMPLETED", "{done}");
    assert_eq!(done["isAutomaticInvocation"], true);
    assert_eq!(done["operationParams"]["vnfcInstanceId"], json!([vnfc]));
    let after = e.vnfcs(&i).await;
    assert_eq!(after.len(), before.len());
    assert!(
        after.iter().all(|(_, p, _)| *p != pod),
        "{pod} is still there: {after:?}"
    );

    // The alarm was raised by the firing alert, and is cleared once it resolves.
    let got = fm_sub
        .wait("the alarm raised, then cleared", |g| {
            g.iter()
                .any(|n| n["notificationType"] == "AlarmClearedNotification")
        })
        .await;
    let kinds: Vec<&str> = got
        .iter()
        .map(|n| n["notificationType"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["AlarmNotification", "AlarmClearedNotification"],
        "{got:#?}"
    );
    let alarm = &got[0]["alarm"];
    assert_eq!(alarm["managedObjectId"], i.as_str());
    assert_eq!(alarm["vnfcInstanceIds"], json!([vnfc]));
    assert_eq!(alarm["perceivedSeverity"], "CRITICAL");
    assert_eq!(
        alarm["rootCauseFaultyResource"]["faultyResource"]["resourceId"],
        pod.as_str()
    );
    assert_eq!(got[1]["alarmId"], alarm["id"]);
    let alarms = e.alarms().await;
    assert_eq!(alarms.len(), 1, "{alarms:?}");
    assert!(alarms[0]["alarmClearedTime"].is_string());

    // Still one heal: the alert's repeats and resolution started nothing more.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(e.heals(&i).await.len(), 1);
}
