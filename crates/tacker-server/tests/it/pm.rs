//! VNF PM with in-process conductors and the simulated VIM, over real HTTP: PM jobs and
//! thresholds become Prometheus rule files `promtool` accepts, removed with them;
//! Alertmanager-shaped webhooks feed reports (announced to the job's callback) and
//! threshold crossings (UP and DOWN beyond the hysteresis).

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::TestDb;
use tacker_testkit::peers::{Expect, Subscriber};

use crate::support::{Options, TestApp, assert_problem};

impl TestApp {
    pub fn pm(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, self.url(&format!("/vnfpm/v2{path}")))
            .header("Version", "2.1.0")
    }

    async fn pm_post(&self, path: &str, body: Value) -> reqwest::Response {
        self.pm(reqwest::Method::POST, path)
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    async fn pm_get(&self, path: &str) -> Value {
        let r = self.pm(reqwest::Method::GET, path).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
        r.json().await.unwrap()
    }

    async fn webhook(&self, path: &str, alerts: Vec<Value>) -> Value {
        let r = self
            .http
            .post(self.url(path))
            .json(&json!({"alerts": alerts}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        r.json().await.unwrap()
    }
}

/// `promtool check rules` on `file`.
fn promtool(file: &Path) -> (bool, String) {
    let out = std::process::Command::new("promtool")
        .args(["check", "rules"])
        .arg(file)
        .output()
        .expect("promtool (tests/infra/monitoring.sh installs it)");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

fn rules_of(dir: &Path, id: &str) -> Value {
    let text = std::fs::read_to_string(dir.join(format!("tacker-{id}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn pm_alert(job: &str, object: &str, metric: &str, value: &str, fp: &str) -> Value {
    json!({"status": "firing", "startsAt": "2026-12-03T10:00:00Z", "fingerprint": fp,
        "labels": {"receiver_type": "tacker", "function_type": "vnfpm", "job_id": job,
            "object_instance_id": object, "metric": metric},
        "annotations": {"value": value}})
}

fn th_alert(t: &str, object: &str, metric: &str, value: f64) -> Value {
    json!({"status": "firing", "startsAt": "2026-12-03T10:00:00Z", "fingerprint": "th",
        "labels": {"receiver_type": "tacker", "function_type": "vnfpm_threshold", "threshold_id": t,
            "object_instance_id": object, "metric": metric},
        "annotations": {"value": value.to_string()}})
}

#[tokio::test]
async fn pm_jobs_and_thresholds_become_rules_and_alerts_become_reports_and_crossings() {
    let dir = tempfile::tempdir().unwrap();
    let app = TestApp::with(
        TestDb::postgres(),
        Options {
            conductors: 1,
            pm_rules_dir: Some(dir.path().to_owned()),
            ..Options::default()
        },
    )
    .await;
    let (i, _) = app.instantiated(None).await;
    let vnfcs = app.vnfc_ids(&i).await;
    let sub = Subscriber::start(Expect::Nothing);
    let cpu = format!("VCpuUsageMeanVnf.{i}");

    // A Vnf job: one rule per metric, promtool accepts the file.
    let r = app
        .pm_post(
            "/pm_jobs",
            json!({"objectType": "Vnf", "objectInstanceIds": [i],
                "criteria": {"performanceMetric": [cpu], "performanceMetricGroup": ["VirtualisedComputeResource"],
                    "collectionPeriod": 5, "reportingPeriod": 10},
                "callbackUri": sub.url, "metadata": {"monitoring": {"monitorName": "prometheus"}}}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    let job: Value = r.json().await.unwrap();
    let jid = job["id"].as_str().unwrap().to_owned();
    assert!(location.ends_with(&jid));
    let rules = rules_of(dir.path(), &jid);
    let group = &rules["groups"][0];
    assert_eq!(group["name"], format!("tacker-{jid}"));
    assert_eq!(group["rules"].as_array().unwrap().len(), 6, "{group:#}");
    let r0 = group["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["labels"]["metric"] == cpu.as_str())
        .unwrap();
    assert_eq!(r0["labels"]["function_type"], "vnfpm");
    assert_eq!(r0["labels"]["job_id"], jid.as_str());
    assert_eq!(r0["for"], "5s");
    assert!(
        r0["expr"]
            .as_str()
            .unwrap()
            .starts_with("avg(sum(rate(pod_cpu_usage_seconds_total{namespace=\"default\""),
        "{r0}"
    );
    let (ok, out) = promtool(&dir.path().join(format!("tacker-{jid}.json")));
    assert!(ok, "{out}");

    // A Vnfc job names each VNFC's Pod exactly.
    let vnfc_job: Value = app
        .pm_post(
            "/pm_jobs",
            json!({"objectType": "Vnfc", "objectInstanceIds": [i], "subObjectInstanceIds": [vnfcs[0].0, vnfcs[1].0],
                "criteria": {"performanceMetric": [format!("VMemoryUsagePeakVnf.{i}")], "collectionPeriod": 5, "reportingPeriod": 10},
                "callbackUri": sub.url}),
        )
        .await
        .json()
        .await
        .unwrap();
    let vid = vnfc_job["id"].as_str().unwrap();
    let rules = rules_of(dir.path(), vid);
    let exprs: Vec<&str> = rules["groups"][0]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["expr"].as_str().unwrap())
        .collect();
    assert_eq!(exprs.len(), 2);
    assert!(
        exprs
            .iter()
            .any(|e| e.contains(&format!("pod=~\"{}\"", vnfcs[0].1))),
        "{exprs:?}"
    );
    assert!(promtool(&dir.path().join(format!("tacker-{vid}.json"))).0);

    // Refused as the spec and the PromQL table say; nothing is kept.
    let bad = |body: Value| app.pm_post("/pm_jobs", body);
    let base = |m: Value, t: &str| {
        json!({"objectType": t, "objectInstanceIds": [i],
        "criteria": {"performanceMetric": m, "collectionPeriod": 5, "reportingPeriod": 10}, "callbackUri": sub.url})
    };
    assert_problem(
        bad(base(json!(["ByteIncomingVnfIntCp"]), "Vnf")).await,
        400,
        "not a metric of objectType Vnf",
    )
    .await;
    assert_problem(
        bad(base(json!(["VCpuUsageMeanVnf"]), "Vnf")).await,
        400,
        "name their object",
    )
    .await;
    assert_problem(
        bad(base(json!(["VCpuUsageMeanVnf.x"]), "Vnf")).await,
        400,
        "not one of objectInstanceIds",
    )
    .await;
    let mut two = base(json!([cpu]), "Vnf");
    two["objectInstanceIds"] = json!([i, "0b0c6f55-6a7e-4f2b-9d07-0d3c1d2e4f50"]);
    two["subObjectInstanceIds"] = json!(["a"]);
    assert_problem(bad(two).await, 400, "exactly one objectInstanceId").await;
    let mut gone = base(
        json!(["VCpuUsageMeanVnf.0b0c6f55-6a7e-4f2b-9d07-0d3c1d2e4f50"]),
        "Vnf",
    );
    gone["objectInstanceIds"] = json!(["0b0c6f55-6a7e-4f2b-9d07-0d3c1d2e4f50"]);
    assert_problem(bad(gone).await, 404, "not found").await;
    let mut not_vnfc = base(json!([format!("VCpuUsageMeanVnf.{i}")]), "Vnfc");
    not_vnfc["subObjectInstanceIds"] = json!(["VDU9-nothing"]);
    assert_problem(bad(not_vnfc).await, 422, "not a VNFC").await;
    let mut periods = base(json!([cpu]), "Vnf");
    periods["criteria"]["reportingPeriod"] = json!(1);
    assert_problem(bad(periods).await, 400, "reportingPeriod").await;
    assert_eq!(app.pm_get("/pm_jobs").await.as_array().unwrap().len(), 2);

    // Alerts become reports, one per metric and object per reporting period.
    let out = app
        .webhook(
            "/pm_event",
            vec![
                pm_alert(&jid, &i, &cpu, "0.25", "a"),
                pm_alert(&jid, &i, &format!("VMemoryUsageMeanVnf.{i}"), "0.125", "b"),
            ],
        )
        .await;
    assert_eq!(out["outcomes"]["reported"], 2, "{out}");
    let again = app
        .webhook("/pm_event", vec![pm_alert(&jid, &i, &cpu, "0.5", "a")])
        .await;
    assert_eq!(again["outcomes"]["within_period"], 1, "{again}");
    let skipped = app
        .webhook(
            "/pm_event",
            vec![
                pm_alert(&jid, &i, "VDiskUsageMeanVnf.other", "1", "c"),
                pm_alert(&jid, &i, &cpu, "high", "d"),
            ],
        )
        .await;
    assert_eq!(skipped["skipped"].as_array().unwrap().len(), 2, "{skipped}");
    let job = app.pm_get(&format!("/pm_jobs/{jid}")).await;
    let reports = job["reports"].as_array().unwrap();
    assert_eq!(reports.len(), 1, "{job}");
    let href = reports[0]["href"].as_str().unwrap();
    let rid = href.rsplit('/').next().unwrap();
    let report = app.pm_get(&format!("/pm_jobs/{jid}/reports/{rid}")).await;
    let cpu_entry = report["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["performanceMetric"] == cpu.as_str())
        .unwrap();
    assert_eq!(cpu_entry["objectType"], "Vnf");
    assert_eq!(cpu_entry["objectInstanceId"], i.as_str());
    assert_eq!(cpu_entry["performanceValues"][0]["value"], 0.25);
    let got = sub
        .wait("the report's notification", |g| !g.is_empty())
        .await;
    assert_eq!(
        got[0]["notificationType"],
        "PerformanceInformationAvailableNotification"
    );
    assert_eq!(got[0]["pmJobId"], jid.as_str());
    assert!(
        got[0]["_links"]["performanceReport"]["href"]
            .as_str()
            .unwrap()
            .ends_with(rid)
    );

    // A threshold: its rule file, and crossings UP then DOWN beyond the hysteresis.
    let th_sub = Subscriber::start(Expect::Nothing);
    let r = app
        .pm_post(
            "/thresholds",
            json!({"objectType": "Vnf", "objectInstanceId": i,
                "criteria": {"performanceMetric": cpu, "thresholdType": "SIMPLE",
                    "simpleThresholdDetails": {"thresholdValue": 0.5, "hysteresis": 0.1}},
                "callbackUri": th_sub.url}),
        )
        .await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
    let th: Value = r.json().await.unwrap();
    let tid = th["id"].as_str().unwrap().to_owned();
    let trules = rules_of(dir.path(), &tid);
    assert_eq!(
        trules["groups"][0]["rules"][0]["labels"]["function_type"],
        "vnfpm_threshold"
    );
    assert!(promtool(&dir.path().join(format!("tacker-{tid}.json"))).0);
    for v in [0.3, 0.7, 0.65, 0.45, 0.35, 0.38] {
        app.webhook("/pm_threshold", vec![th_alert(&tid, &i, &cpu, v)])
            .await;
    }
    let got = th_sub.wait("UP then DOWN", |g| g.len() >= 2).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let got2 = th_sub.received();
    assert_eq!(got2.len(), 2, "{got2:#?}");
    assert_eq!(got[0]["notificationType"], "ThresholdCrossedNotification");
    assert_eq!(got[0]["crossingDirection"], "UP");
    assert_eq!(got[0]["performanceValue"], 0.7);
    assert_eq!(got[1]["crossingDirection"], "DOWN");
    assert_eq!(got[1]["performanceValue"], 0.35);
    let bad_th = app
        .pm_post(
            "/thresholds",
            json!({"objectType": "Vnf", "objectInstanceId": i,
                "criteria": {"performanceMetric": cpu, "thresholdType": "SIMPLE",
                    "simpleThresholdDetails": {"thresholdValue": 0.5, "hysteresis": -1}},
                "callbackUri": th_sub.url}),
        )
        .await;
    assert_problem(bad_th, 400, "hysteresis").await;

    // Modify, delete: the rules go with them.
    let r = app
        .pm(reqwest::Method::PATCH, &format!("/pm_jobs/{jid}"))
        .header("Content-Type", "application/merge-patch+json")
        .body(json!({"callbackUri": th_sub.url}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.json::<Value>().await.unwrap(),
        json!({"callbackUri": th_sub.url})
    );
    for (kind, id) in [("pm_jobs", &jid), ("thresholds", &tid)] {
        let r = app
            .pm(reqwest::Method::DELETE, &format!("/{kind}/{id}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 204);
        assert!(!dir.path().join(format!("tacker-{id}.json")).exists());
        let r = app
            .pm(reqwest::Method::GET, &format!("/{kind}/{id}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 404);
    }
}

/// Without a rule delivery configured, PM jobs are refused (503) and not kept.
#[tokio::test]
async fn without_a_rule_delivery_pm_jobs_are_refused_and_not_kept() {
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            conductors: 1,
            ..Options::default()
        },
    )
    .await;
    let (i, _) = app.instantiated(None).await;
    let sub = Subscriber::start(Expect::Nothing);
    let r = app
        .pm_post(
            "/pm_jobs",
            json!({"objectType": "Vnf", "objectInstanceIds": [i],
                "criteria": {"performanceMetric": [format!("VCpuUsageMeanVnf.{i}")], "collectionPeriod": 5, "reportingPeriod": 10},
                "callbackUri": sub.url}),
        )
        .await;
    assert_problem(r, 503, "pm.rules_dir").await;
    assert!(app.pm_get("/pm_jobs").await.as_array().unwrap().is_empty());
}

/// Upstream's `metadata.monitoring`: Prometheus without targets is taken (the rules go
/// where `[pm]` says); a request naming its own Prometheus hosts (`targetsInfo`) or
/// another monitor is refused with the reason and nothing kept, rather than accepted
/// with its rules delivered elsewhere.
#[tokio::test]
async fn pm_requests_naming_their_own_prometheus_targets_are_refused() {
    let rules = tempfile::tempdir().unwrap();
    let app = TestApp::with(
        TestDb::sqlite(),
        Options {
            conductors: 1,
            pm_rules_dir: Some(rules.path().to_owned()),
            ..Options::default()
        },
    )
    .await;
    let (i, _) = app.instantiated(None).await;
    let sub = Subscriber::start(Expect::Nothing);
    let metric = format!("VCpuUsageMeanVnf.{i}");
    let targets = json!({"monitoring": {"monitorName": "prometheus", "driverType": "external",
        "targetsInfo": [{"prometheusHost": "prometheus.example", "prometheusHostPort": 22,
            "authInfo": {"ssh_username": "ubuntu", "ssh_password": "ubuntu"},
            "alertRuleConfigPath": "/etc/prometheus/rules",
            "prometheusReloadApiEndpoint": "http://localhost:9090/-/reload"}]}});
    let job = |metadata: Value| {
        json!({"objectType": "Vnf", "objectInstanceIds": [i],
            "criteria": {"performanceMetric": [metric], "collectionPeriod": 5, "reportingPeriod": 10},
            "callbackUri": sub.url, "metadata": metadata})
    };
    let threshold = |metadata: Value| {
        json!({"objectType": "Vnf", "objectInstanceId": i,
            "criteria": {"performanceMetric": metric, "thresholdType": "SIMPLE",
                "simpleThresholdDetails": {"thresholdValue": 1.0, "hysteresis": 0.1}},
            "callbackUri": sub.url, "metadata": metadata})
    };
    for (path, body) in [
        ("/pm_jobs", job(targets.clone())),
        ("/thresholds", threshold(targets.clone())),
    ] {
        let r = app.pm_post(path, body).await;
        assert_problem(r, 400, "targetsInfo").await;
    }
    let r = app
        .pm_post(
            "/pm_jobs",
            job(json!({"monitoring": {"monitorName": "zabbix"}})),
        )
        .await;
    assert_problem(r, 400, "monitorName").await;
    assert!(app.pm_get("/pm_jobs").await.as_array().unwrap().is_empty());
    assert!(
        app.pm_get("/thresholds")
            .await
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(std::fs::read_dir(rules.path()).unwrap().count(), 0);

    let plain = json!({"monitoring": {"monitorName": "prometheus", "driverType": "external"}});
    assert_eq!(
        app.pm_post("/pm_jobs", job(plain.clone())).await.status(),
        201
    );
    assert_eq!(
        app.pm_post("/thresholds", threshold(plain)).await.status(),
        201
    );
    assert_eq!(std::fs::read_dir(rules.path()).unwrap().count(), 2);
}

/// PM jobs and thresholds count against `server.max_subscriptions_per_tenant`, each
/// kind on its own: beyond it 403 with the reason, and no rules written.
#[tokio::test]
async fn pm_jobs_and_thresholds_hold_the_tenant_quota() {
    let rules = tempfile::tempdir().unwrap();
    let app = TestApp::with(
        TestDb::postgres(),
        Options {
            conductors: 1,
            pm_rules_dir: Some(rules.path().to_owned()),
            quotas: (0, 1),
            ..Options::default()
        },
    )
    .await;
    let (i, _) = app.instantiated(None).await;
    let sub = Subscriber::start(Expect::Nothing);
    let metric = format!("VCpuUsageMeanVnf.{i}");
    let job = json!({"objectType": "Vnf", "objectInstanceIds": [i],
        "criteria": {"performanceMetric": [metric], "collectionPeriod": 5, "reportingPeriod": 10},
        "callbackUri": sub.url});
    let threshold = json!({"objectType": "Vnf", "objectInstanceId": i,
        "criteria": {"performanceMetric": metric, "thresholdType": "SIMPLE",
            "simpleThresholdDetails": {"thresholdValue": 1.0, "hysteresis": 0.1}},
        "callbackUri": sub.url});
    for (path, body, what) in [
        ("/pm_jobs", job, "1 PM jobs"),
        ("/thresholds", threshold, "1 thresholds"),
    ] {
        assert_eq!(app.pm_post(path, body.clone()).await.status(), 201);
        let r = app.pm_post(path, body).await;
        assert_problem(r, 403, what).await;
        assert_eq!(app.pm_get(path).await.as_array().unwrap().len(), 1);
    }
    assert_eq!(std::fs::read_dir(rules.path()).unwrap().count(), 2);
}
