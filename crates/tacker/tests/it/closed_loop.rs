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
rule_files: ["rules/*.yml", "rules/*.json"]
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

/// Alertmanager routing each Tacker function to its webhook at `api`, values of PM
/// rules again every 2 s.
fn routed_alertmanager_yml(api: &str) -> String {
    format!(
        r#"route:
  receiver: pm
  group_by: [alertname, job_id, threshold_id, metric, object_instance_id]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 2s
  routes:
    - matchers: ['function_type="vnfpm_threshold"']
      receiver: threshold
    - matchers: ['function_type="auto_scale"']
      receiver: scale
receivers:
  - name: pm
    webhook_configs: [{{url: "{api}/pm_event", send_resolved: false}}]
  - name: threshold
    webhook_configs: [{{url: "{api}/pm_threshold", send_resolved: false}}]
  - name: scale
    webhook_configs: [{{url: "{api}/alert/auto_scaling", send_resolved: false}}]
"#
    )
}

/// An auto-scale rule on the CNF's CPU (the sum over its Pods, in cores).
fn scale_rule(i: &str, name: &str, cmp: &str, direction: &str) -> String {
    format!(
        r#"groups:
  - name: {name}
    rules:
      - alert: {name}
        expr: sum(rate(pod_cpu_usage_seconds_total{{namespace="default"}}[3s])) {cmp}
        labels:
          receiver_type: tacker
          function_type: auto_scale
          vnf_instance_id: {i}
          aspect_id: vdu2_aspect
          auto_scale_type: {direction}
"#
    )
}

impl Cnf {
    fn pm(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.c
            .http
            .request(method, format!("{}/vnfpm/v2{path}", self.c.api))
            .header("Version", "2.1.0")
    }

    /// Sets the CPU (cores) and memory of every Pod in the default namespace.
    fn load_all(&self, cpu: f64, memory: u64) {
        let pods: Vec<String> = self
            .sim
            .sim
            .lock()
            .list("/pods", Some("default"))
            .into_iter()
            .map(|(k, _)| k.2)
            .collect();
        for p in pods {
            let _ = self.sim.sim.set_load(
                "default",
                &p,
                kube_sim::metrics::Load {
                    cpu,
                    memory_bytes: memory,
                    ..Default::default()
                },
            );
        }
    }

    async fn scale_level(&self, i: &str) -> u64 {
        let v = self.instance(i).await;
        v["instantiatedVnfInfo"]["scaleStatus"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["aspectId"] == "vdu2_aspect")
            .unwrap()["scaleLevel"]
            .as_u64()
            .unwrap()
    }

    async fn scales(&self, i: &str) -> Vec<Value> {
        self.c
            .lcm(
                0,
                reqwest::Method::GET,
                &format!("/vnf_lcm_op_occs?filter=(eq,operation,SCALE);(eq,vnfInstanceId,{i})"),
            )
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

/// Load on the CNF's Pods in kube-sim, measured by a real Prometheus through the PM
/// job's and the threshold's rules (delivered as rule files, Prometheus reloaded): the
/// job's reports hold the values kube-sim served; the threshold is crossed UP, an
/// auto-scale rule scales the Deployment out to its aspect's maximum and not beyond
/// (there: an alarm, no failing operation); the load removed, the threshold is crossed
/// DOWN and the CNF scaled back in.
#[tokio::test]
async fn cpu_load_is_reported_crosses_a_threshold_and_scales_the_cnf_out_and_back_in() {
    let placeholder = "global:\n  scrape_interval: 1s\n";
    let m = Monitoring::start(
        placeholder,
        &[],
        "route:\n  receiver: none\nreceivers:\n  - name: none\n",
    );
    let rules_dir = m.rules_dir().display().to_string();
    let reload = format!("{}/-/reload", m.prometheus);
    let e = cnf_cluster(
        &[
            ("TACKER__PM__RULES_DIR", rules_dir.as_str()),
            ("TACKER__PM__PROMETHEUS_RELOAD_URL", reload.as_str()),
            ("TACKER__PM__THRESHOLD_COLLECTION_PERIOD", "1s"),
            ("TACKER__PM__THRESHOLD_REPORTING_PERIOD", "3s"),
            ("TACKER__FM__COOLDOWN", "2s"),
            ("TACKER__FM__AUTO_SCALE_WINDOW", "200ms"),
            ("TACKER__FM__LOOP_INTERVAL", "200ms"),
        ],
        timing(),
    )
    .await;
    m.reconfigure(&prometheus_yml(&e)).await;
    m.reconfigure_alertmanager(&routed_alertmanager_yml(&e.c.api))
        .await;
    let i = e.create().await;
    assert_eq!(e.instantiate(&i).await["operationState"], "COMPLETED");
    let r =
        e.c.lcm(0, reqwest::Method::PATCH, &format!("/vnf_instances/{i}"))
            .json(&json!({"vnfConfigurableProperties": {"isAutoscaleEnabled": true}}))
            .send()
            .await
            .unwrap();
    let modify = tacker_testkit::id_of(r.headers()["location"].to_str().unwrap());
    e.c.wait_op(&modify, &["COMPLETED"], T).await;

    let cpu = format!("VCpuUsageMeanVnf.{i}");
    let mem = format!("VMemoryUsageMeanVnf.{i}");
    let pm_sub = Subscriber::start(Expect::Nothing);
    let r = e
        .pm(reqwest::Method::POST, "/pm_jobs")
        .json(&json!({"objectType": "Vnf", "objectInstanceIds": [i],
            "criteria": {"performanceMetric": [cpu, mem], "collectionPeriod": 1, "reportingPeriod": 3},
            "callbackUri": pm_sub.url}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let job: Value = r.json().await.unwrap();
    let jid = job["id"].as_str().unwrap().to_owned();
    let th_sub = Subscriber::start(Expect::Nothing);
    let r = e
        .pm(reqwest::Method::POST, "/thresholds")
        .json(&json!({"objectType": "Vnf", "objectInstanceId": i,
            "criteria": {"performanceMetric": cpu, "thresholdType": "SIMPLE",
                "simpleThresholdDetails": {"thresholdValue": 1.0, "hysteresis": 0.2}},
            "callbackUri": th_sub.url}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    // Every file Prometheus reads is one promtool accepts.
    for f in std::fs::read_dir(m.rules_dir()).unwrap() {
        let f = f.unwrap().path();
        let (ok, out) = promtool_check_rules(&f);
        assert!(ok, "{}: {out}", f.display());
    }
    m.add_rules(
        "scale-out.yml",
        &scale_rule(&i, "CnfCpuHigh", "> 1.5", "SCALE_OUT"),
    )
    .await;

    // Load: 0.5 cores and 256 MiB per Pod.
    let pods = e.sim.sim.lock().list("/pods", Some("default")).len() as f64;
    e.load_all(0.5, 256 * 1024 * 1024);
    let got = th_sub
        .wait("the threshold crossed UP", |g| {
            g.iter().any(|n| n["crossingDirection"] == "UP")
        })
        .await;
    let up = got.iter().find(|n| n["crossingDirection"] == "UP").unwrap();
    assert_eq!(up["notificationType"], "ThresholdCrossedNotification");
    assert!(up["performanceValue"].as_f64().unwrap() > 1.2, "{up}");

    // The job's reports hold what kube-sim served: the CPU summed over the Pods, the
    // memory share of a node.
    let deadline = tokio::time::Instant::now() + T;
    let (cpu_value, mem_value) = loop {
        let job: Value = e
            .pm(reqwest::Method::GET, &format!("/pm_jobs/{jid}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let mut found = (None, None);
        for r in job["reports"].as_array().unwrap() {
            let href = r["href"].as_str().unwrap();
            let rid = href.rsplit('/').next().unwrap();
            let report: Value = e
                .pm(
                    reqwest::Method::GET,
                    &format!("/pm_jobs/{jid}/reports/{rid}"),
                )
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            for en in report["entries"].as_array().unwrap() {
                let v = en["performanceValues"][0]["value"].as_f64().unwrap();
                if en["performanceMetric"] == cpu.as_str() && v > 0.9 * 0.5 * pods {
                    found.0 = Some(v);
                }
                if en["performanceMetric"] == mem.as_str() && v > 0.01 {
                    found.1 = Some(v);
                }
            }
        }
        if let (Some(c), Some(mm)) = found {
            break (c, mm);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no report with the load: {job}\n{}",
            m.logs()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    assert!(
        (cpu_value - 0.5 * pods).abs() <= 0.15 * 0.5 * pods,
        "CPU {cpu_value} for {pods} Pods at 0.5"
    );
    assert!(
        (mem_value - 268435456.0 / 17179869184.0).abs() < 1e-9,
        "memory {mem_value}"
    );
    let n = pm_sub.wait("a report announced", |g| !g.is_empty()).await;
    assert_eq!(
        n[0]["notificationType"],
        "PerformanceInformationAvailableNotification"
    );

    // Scaled out to the maximum (2), and no further: an alarm says why.
    let deadline = tokio::time::Instant::now() + T;
    loop {
        let alarms: Vec<Value> = e
            .fm(reqwest::Method::GET, "/alarms")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let refused = alarms.iter().any(|a| {
            a["probableCause"]
                .as_str()
                .unwrap_or_default()
                .contains("SCALE_OUT of aspect vdu2_aspect refused")
        });
        if refused && e.scale_level(&i).await == 2 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never scaled to the maximum: {alarms:?}\n{}",
            m.logs()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let outs = e.scales(&i).await;
    assert_eq!(outs.len(), 2, "{outs:?}");
    assert!(
        outs.iter()
            .all(|o| o["operationState"] == "COMPLETED" && o["isAutomaticInvocation"] == true)
    );

    // Load removed: DOWN, and back in to level 0.
    std::fs::remove_file(m.rules_dir().join("scale-out.yml")).unwrap();
    m.reload().await;
    e.load_all(0.01, 16 * 1024 * 1024);
    m.add_rules(
        "scale-in.yml",
        &scale_rule(&i, "CnfCpuLow", "< 0.5", "SCALE_IN"),
    )
    .await;
    th_sub
        .wait("the threshold crossed DOWN", |g| {
            g.iter().any(|n| n["crossingDirection"] == "DOWN")
        })
        .await;
    let deadline = tokio::time::Instant::now() + T;
    while e.scale_level(&i).await != 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "never scaled back in\n{}",
            m.logs()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let all = e.scales(&i).await;
    assert!(
        all.iter().all(|o| o["operationState"] == "COMPLETED"),
        "{all:?}"
    );
    assert_eq!(all.len(), 4, "{all:?}");

    // Deleting the job and the threshold removes their rule files.
    let tid = e
        .pm(reqwest::Method::GET, "/thresholds")
        .send()
        .await
        .unwrap()
        .json::<Vec<Value>>()
        .await
        .unwrap()[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for path in [format!("/pm_jobs/{jid}"), format!("/thresholds/{tid}")] {
        assert_eq!(
            e.pm(reqwest::Method::DELETE, &path)
                .send()
                .await
                .unwrap()
                .status(),
            204
        );
    }
    let left: Vec<_> = std::fs::read_dir(m.rules_dir())
        .unwrap()
        .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".json"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// `pm.prometheus_rule`: a PM job's rules become a PrometheusRule object (with the
/// configured labels) in the CNF's namespace on its cluster, removed with the job.
#[tokio::test]
async fn pm_rules_become_prometheus_rule_objects_on_the_vnf_cluster() {
    let e = cnf_cluster(
        &[
            ("TACKER__PM__PROMETHEUS_RULE", "true"),
            ("TACKER__PM__PROMETHEUS_RULE_LABELS", "release=prometheus"),
        ],
        timing(),
    )
    .await;
    let i = e.create().await;
    assert_eq!(e.instantiate(&i).await["operationState"], "COMPLETED");
    let sub = Subscriber::start(Expect::Nothing);
    let r = e
        .pm(reqwest::Method::POST, "/pm_jobs")
        .json(&json!({"objectType": "Vnf", "objectInstanceIds": [i],
            "criteria": {"performanceMetricGroup": ["VirtualisedComputeResource"], "collectionPeriod": 30, "reportingPeriod": 90},
            "callbackUri": sub.url}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let jid = r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let name = format!("tacker-{jid}");
    let key = (
        "monitoring.coreos.com/prometheusrules".to_owned(),
        "default".to_owned(),
        name.clone(),
    );
    let obj = e
        .sim
        .sim
        .lock()
        .get(&key)
        .cloned()
        .expect("the PrometheusRule");
    assert_eq!(obj["metadata"]["labels"]["release"], "prometheus");
    let rules = obj["spec"]["groups"][0]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 6, "{obj}");
    assert!(rules.iter().all(|r| r["labels"]["job_id"] == jid.as_str()));
    // promtool accepts the group as a rule file.
    let f = e.c.env.dir.path().join("rule.json");
    std::fs::write(&f, json!({"groups": obj["spec"]["groups"]}).to_string()).unwrap();
    let (ok, out) = promtool_check_rules(&f);
    assert!(ok, "{out}");
    assert_eq!(
        e.pm(reqwest::Method::DELETE, &format!("/pm_jobs/{jid}"))
            .send()
            .await
            .unwrap()
            .status(),
        204
    );
    assert!(e.sim.sim.lock().get(&key).is_none(), "still there");
}

/// Alarms whose resolution never reached the VNFM (Alertmanager does not send resolved
/// alerts here, as when the VNFM was down longer than it retries) are cleared by the
/// reconciliation with Alertmanager's active alerts; the FM subscriber hears the
/// clearing and that the alarm list was rebuilt; an alert still active keeps its alarm.
#[tokio::test]
async fn alarms_whose_resolution_was_lost_are_reconciled_with_alertmanager() {
    let m = Monitoring::start(
        "global:\n  scrape_interval: 1s\n",
        &[],
        "route:\n  receiver: none\nreceivers:\n  - name: none\n",
    );
    let am = m.alertmanager_url();
    let e = cnf_cluster(
        &[
            ("TACKER__FM__ALERTMANAGER_URL", am.as_str()),
            ("TACKER__FM__RECONCILE_INTERVAL", "2s"),
        ],
        timing(),
    )
    .await;
    m.reconfigure_alertmanager(&format!(
        r#"route:
  receiver: tacker
  group_by: [alertname, fingerprint_label]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: tacker
    webhook_configs:
      - url: {}/alert
        send_resolved: false
"#,
        e.c.api
    ))
    .await;
    let i = e.create().await;
    assert_eq!(e.instantiate(&i).await["operationState"], "COMPLETED");
    let vnfc = e.vnfcs(&i).await[0].2.clone();
    let sub = Subscriber::start(Expect::Nothing);
    let r = e
        .fm(reqwest::Method::POST, "/subscriptions")
        .json(&json!({"callbackUri": sub.url}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);

    let start = chrono::Utc::now() - chrono::Duration::minutes(1);
    let alert = |name: &str, ends: chrono::DateTime<chrono::Utc>| {
        json!({"labels": {"alertname": name, "fingerprint_label": name, "receiver_type": "tacker",
                "function_type": "vnffm", "vnf_instance_id": i, "vnfc_info_id": vnfc,
                "perceived_severity": "MAJOR", "event_type": "EQUIPMENT_ALARM"},
            "annotations": {"probable_cause": name},
            "startsAt": start.to_rfc3339(), "endsAt": ends.to_rfc3339()})
    };
    let later = chrono::Utc::now() + chrono::Duration::hours(1);
    m.push_alerts(&json!([alert("Kept", later), alert("Lost", later)]))
        .await;
    sub.wait("both alarms raised", |g| g.len() >= 2).await;
    // "Lost" resolves at Alertmanager; the VNFM is not told.
    m.push_alerts(&json!([alert("Lost", chrono::Utc::now())]))
        .await;

    let got = sub
        .wait("the lost one cleared, the list rebuilt", |g| {
            g.iter()
                .any(|n| n["notificationType"] == "AlarmListRebuiltNotification")
        })
        .await;
    let kinds: Vec<&str> = got
        .iter()
        .map(|n| n["notificationType"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "AlarmNotification",
            "AlarmNotification",
            "AlarmClearedNotification",
            "AlarmListRebuiltNotification"
        ],
        "{got:#?}"
    );
    assert!(
        got[3]["_links"]["alarms"]["href"]
            .as_str()
            .unwrap()
            .ends_with("/vnffm/v1/alarms")
    );
    let alarms = e.alarms().await;
    let cause = |a: &Value| a["probableCause"].as_str().unwrap().to_owned();
    let lost = alarms.iter().find(|a| cause(a) == "Lost").unwrap();
    let kept = alarms.iter().find(|a| cause(a) == "Kept").unwrap();
    assert_eq!(got[2]["alarmId"], lost["id"]);
    assert!(lost["alarmClearedTime"].is_string(), "{lost}");
    assert!(kept["alarmClearedTime"].is_null(), "{kept}");
    // Later passes change nothing more.
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(sub.received().len(), 4);
}
