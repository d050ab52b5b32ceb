//! The real client: python-openstackclient + python-tackerclient against `tacker
//! all-in-one` (packages) and against a server with two conductors on PostgreSQL and
//! RabbitMQ (LCM v2, FM, PM).

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{ClusterEnv, Proc, free_port, wait_status};

/// The `openstack` command from `tests/infra/pytools.sh` (or `$TACKER_TEST_OPENSTACK`).
pub fn openstack_bin() -> PathBuf {
    if let Ok(p) = std::env::var("TACKER_TEST_OPENSTACK") {
        return p.into();
    }
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/openstack");
    assert!(
        p.exists(),
        "{} missing: run tests/infra/pytools.sh (make test does)",
        p.display()
    );
    p
}

pub struct Osc {
    /// How it reaches Tacker: `--os-endpoint` without auth, or a Keystone login.
    auth: Vec<String>,
}

impl Osc {
    pub fn new(endpoint: String) -> Self {
        Self {
            auth: ["--os-auth-type", "none", "--os-endpoint", &endpoint]
                .map(str::to_owned)
                .to_vec(),
        }
    }

    /// The client of a user logging in to Keystone at `auth_url` with a password, scoped
    /// to `project`, finding Tacker in `region` of the catalog.
    pub fn keystone(
        auth_url: &str,
        user: &str,
        password: &str,
        project: &str,
        region: &str,
    ) -> Self {
        let mut auth = vec!["--os-auth-type", "password", "--os-auth-url", auth_url];
        auth.extend(["--os-username", user, "--os-password", password]);
        auth.extend(["--os-project-name", project, "--os-region-name", region]);
        auth.extend([
            "--os-user-domain-name",
            "Default",
            "--os-project-domain-name",
            "Default",
        ]);
        Self {
            auth: auth.into_iter().map(str::to_owned).collect(),
        }
    }

    /// Runs `openstack <args>`; returns (success, stdout, stderr).
    pub fn run(&self, args: &[&str]) -> (bool, String, String) {
        let out = Command::new(openstack_bin())
            .args(&self.auth)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    pub fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.extend(["-f", "json"]);
        let (ok, out, err) = self.run(&all);
        assert!(ok, "openstack {args:?} failed: {err}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    }
}

#[tokio::test]
async fn openstack_vnf_package_create_list_show_update_delete() {
    let dir = tempfile::tempdir().unwrap();
    let env = ClusterEnv::new(
        &format!("sqlite://{}/tacker.db", dir.path().display()),
        "memory://",
        &tacker_testkit::unique_prefix(),
    );
    let port = free_port();
    let _aio = Proc::spawn(
        env.command(&[("TACKER__SERVER__BIND", format!("127.0.0.1:{port}"))])
            .arg("all-in-one"),
        &env.log_path("aio"),
    );
    let endpoint = format!("http://127.0.0.1:{port}");
    wait_status(
        &reqwest::Client::new(),
        &format!("{endpoint}/readyz"),
        200,
        Duration::from_secs(30),
    )
    .await;
    let osc = Osc::new(endpoint);

    let created = osc.json(&["vnf", "package", "create", "--user-data", "owner=ops"]);
    let id = created["ID"].as_str().unwrap().to_owned();
    assert_eq!(created["Onboarding State"], "CREATED");
    assert_eq!(created["User Defined Data"]["owner"], "ops");
    osc.json(&["vnf", "package", "create"]);

    let list = osc.json(&["vnf", "package", "list"]);
    assert_eq!(list.as_array().unwrap().len(), 2);
    let filtered = osc.json(&[
        "vnf",
        "package",
        "list",
        "--filter",
        "(eq,userDefinedData/owner,ops)",
    ]);
    assert_eq!(filtered.as_array().unwrap().len(), 1);
    assert_eq!(filtered[0]["Id"], id.as_str());

    let shown = osc.json(&["vnf", "package", "show", &id]);
    assert_eq!(shown["Usage State"], "NOT_IN_USE");

    let updated = osc.json(&["vnf", "package", "update", "--user-data", "site=tokyo", &id]);
    assert_eq!(updated["User Defined Data"]["site"], "tokyo");
    let shown = osc.json(&["vnf", "package", "show", &id]);
    assert_eq!(shown["User Defined Data"]["owner"], "ops");
    assert_eq!(shown["User Defined Data"]["site"], "tokyo");

    // Errors reach the user as the server's ProblemDetails detail.
    let (ok, _, err) = osc.run(&[
        "vnf",
        "package",
        "update",
        "--operational-state",
        "ENABLED",
        &id,
    ]);
    assert!(!ok);
    assert!(err.contains("only once ONBOARDED"), "{err}");

    let (ok, out, err) = osc.run(&["vnf", "package", "delete", &id]);
    assert!(ok, "{err}");
    assert!(out.contains("deleted successfully"), "{out}");
    let (ok, _, err) = osc.run(&["vnf", "package", "show", &id]);
    assert!(!ok);
    assert!(err.contains("not found"), "{err}");
    assert_eq!(
        osc.json(&["vnf", "package", "list"])
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

/// Polls `openstack vnflcm op show` until the occurrence is in one of `states`.
pub fn wait_op(osc: &Osc, op: &str, states: &[&str]) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let v = osc.json(&["--os-tacker-api-version", "2", "vnflcm", "op", "show", op]);
        if states.contains(&v["Operation State"].as_str().unwrap_or_default()) {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "op {op} never reached {states:?}: {v}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The newest occurrence of `operation` from `vnflcm op list`.
pub fn last_op(osc: &Osc, operation: &str) -> String {
    let list = osc.json(&["--os-tacker-api-version", "2", "vnflcm", "op", "list"]);
    list.as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|o| o["Operation"] == operation)
        .and_then(|o| o["ID"].as_str())
        .unwrap()
        .to_owned()
}

// Multi-threaded: the subscriber must answer while the test waits on the CLI.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openstack_vnflcm_v2_fm_and_pm_on_a_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().display().to_string();
    let c = crate::procs::Cluster::start_with(
        1,
        &["c1", "c2"],
        &[
            ("TACKER__LCM__SIMULATED_VIM", "true"),
            ("TACKER__MGMT__DRIVERS", crate::procs::SIM_HOOKS),
            ("TACKER__PM__RULES_DIR", rules.as_str()),
        ],
    )
    .await;
    let endpoint = c.api.clone();
    let http = reqwest::Client::new();
    let osc = Osc::new(endpoint.clone());
    let pkg = osc.json(&["vnf", "package", "create"])["ID"]
        .as_str()
        .unwrap()
        .to_owned();
    let zip = dir.path().join("pkg.zip");
    tacker_testkit::csar::valid().write_to(&zip);
    let (ok, _, err) = osc.run(&[
        "vnf",
        "package",
        "upload",
        "--path",
        &zip.display().to_string(),
        &pkg,
    ]);
    assert!(ok, "{err}");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while osc.json(&["vnf", "package", "show", &pkg])["Onboarding State"] != "ONBOARDED" {
        assert!(std::time::Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(200));
    }
    let v2 = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["--os-tacker-api-version".to_owned(), "2".to_owned()];
        all.extend(args.iter().map(|a| (*a).to_owned()));
        all
    };
    let run = |args: &[&str]| {
        let a = v2(args);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        let (ok, out, err) = osc.run(&refs);
        assert!(ok, "openstack {args:?}: {err}");
        out
    };
    let json_of = |args: &[&str]| {
        let a = v2(args);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        osc.json(&refs)
    };

    // A subscriber for the CLI's subsc commands.
    let sub = tacker_testkit::peers::Subscriber::start(tacker_testkit::peers::Expect::Nothing);
    let sub_file = dir.path().join("sub.json");
    std::fs::write(
        &sub_file,
        json!({"callbackUri": sub.url, "filter": {"operationTypes": ["INSTANTIATE"]}}).to_string(),
    )
    .unwrap();
    let s = json_of(&["vnflcm", "subsc", "create", &sub_file.display().to_string()]);
    let sub_id = s["ID"].as_str().unwrap().to_owned();
    assert!(run(&["vnflcm", "subsc", "list"]).contains(&sub_id));

    let created = json_of(&[
        "vnflcm",
        "create",
        "11111111-2222-3333-4444-555555555555",
        "--name",
        "web",
    ]);
    let id = created["ID"].as_str().unwrap().to_owned();
    assert_eq!(created["Instantiation State"], "NOT_INSTANTIATED");
    assert!(run(&["vnflcm", "list"]).contains(&id));
    let inst_file = dir.path().join("instantiate.json");
    std::fs::write(&inst_file, json!({"flavourId": "simple", "vimConnectionInfo": {"vim1": {"vimType": "TACKER.SIM.V_1"}}}).to_string()).unwrap();
    assert!(
        run(&[
            "vnflcm",
            "instantiate",
            &id,
            &inst_file.display().to_string()
        ])
        .contains("accepted")
    );
    let op = last_op(&osc, "INSTANTIATE");
    wait_op(&osc, &op, &["COMPLETED"]);
    let shown = json_of(&["vnflcm", "show", &id]);
    assert_eq!(shown["Instantiation State"], "INSTANTIATED");
    let vnfc = shown["Instantiated Vnf Info"]["vnfcInfo"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    sub.wait("instantiate notifications", |g| g.len() >= 3)
        .await;

    // VNF FM through the CLI: the alarm an Alertmanager webhook raised, acknowledged;
    // an FM subscription created, listed, shown and deleted.
    let alert = json!({"alerts": [{"status": "firing", "startsAt": "2026-12-03T10:00:00Z", "fingerprint": "cli-1",
        "labels": {"receiver_type": "tacker", "function_type": "vnffm", "vnf_instance_id": id, "vnfc_info_id": vnfc,
            "perceived_severity": "MAJOR", "event_type": "EQUIPMENT_ALARM"},
        "annotations": {"probable_cause": "disk failure"}}]});
    let r = http
        .post(format!("{endpoint}/alert"))
        .json(&alert)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let alarms = json_of(&["vnffm", "alarm", "list"]);
    assert_eq!(alarms.as_array().unwrap().len(), 1, "{alarms}");
    assert_eq!(alarms[0]["Managed Object Id"], id.as_str());
    assert_eq!(alarms[0]["Probable Cause"], "disk failure");
    let alarm_id = alarms[0]["ID"].as_str().unwrap().to_owned();
    let none = json_of(&[
        "vnffm",
        "alarm",
        "list",
        "--filter",
        "(eq,perceivedSeverity,CRITICAL)",
    ]);
    assert!(none.as_array().unwrap().is_empty(), "{none}");
    let shown = json_of(&["vnffm", "alarm", "show", &alarm_id]);
    assert_eq!(shown["Perceived Severity"], "MAJOR");
    assert_eq!(shown["Ack State"], "UNACKNOWLEDGED");
    let updated = json_of(&[
        "vnffm",
        "alarm",
        "update",
        &alarm_id,
        "--ack-state",
        "ACKNOWLEDGED",
    ]);
    assert_eq!(updated["Ack State"], "ACKNOWLEDGED");
    let a = v2(&[
        "vnffm",
        "alarm",
        "update",
        &alarm_id,
        "--ack-state",
        "ACKNOWLEDGED",
    ]);
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    let (ok, _, err) = osc.run(&refs);
    assert!(!ok && err.contains("already"), "{err}");
    let fm_sub_file = dir.path().join("fm-sub.json");
    std::fs::write(
        &fm_sub_file,
        json!({"callbackUri": sub.url, "filter": {"perceivedSeverities": ["MAJOR"]}}).to_string(),
    )
    .unwrap();
    let s = json_of(&["vnffm", "sub", "create", &fm_sub_file.display().to_string()]);
    let fm_sub_id = s["ID"].as_str().unwrap().to_owned();
    assert!(run(&["vnffm", "sub", "list"]).contains(&fm_sub_id));
    let shown = json_of(&["vnffm", "sub", "show", &fm_sub_id]);
    assert_eq!(shown["Callback Uri"], sub.url.as_str(), "{shown}");
    run(&["vnffm", "sub", "delete", &fm_sub_id]);
    assert!(!run(&["vnffm", "sub", "list"]).contains(&fm_sub_id));

    // VNF PM through the CLI: a job (its rule file written), a report fed by the
    // webhook, a threshold; updated and deleted.
    let cpu = format!("VCpuUsageMeanVnf.{id}");
    let job_file = dir.path().join("job.json");
    std::fs::write(
        &job_file,
        json!({"objectType": "Vnf", "objectInstanceIds": [id],
            "criteria": {"performanceMetric": [cpu], "collectionPeriod": 30, "reportingPeriod": 90},
            "callbackUri": sub.url})
        .to_string(),
    )
    .unwrap();
    let job = json_of(&["vnfpm", "job", "create", &job_file.display().to_string()]);
    let job_id = job["ID"].as_str().unwrap().to_owned();
    assert_eq!(job["Object Type"], "Vnf");
    assert!(dir.path().join(format!("tacker-{job_id}.json")).exists());
    assert!(run(&["vnfpm", "job", "list"]).contains(&job_id));
    let pm_alert = json!({"alerts": [{"status": "firing", "startsAt": "2026-12-03T10:00:00Z", "fingerprint": "pm-1",
        "labels": {"receiver_type": "tacker", "function_type": "vnfpm", "job_id": job_id,
            "object_instance_id": id, "metric": cpu},
        "annotations": {"value": "0.42"}}]});
    let r = http
        .post(format!("{endpoint}/pm_event"))
        .json(&pm_alert)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let shown = json_of(&["vnfpm", "job", "show", &job_id]);
    let href = shown["Reports"][0]["href"].as_str().unwrap().to_owned();
    let report_id = href.rsplit('/').next().unwrap();
    let report = json_of(&["vnfpm", "report", "show", &job_id, report_id]);
    assert_eq!(
        report["Entries"][0]["performanceValues"][0]["value"], 0.42,
        "{report}"
    );
    let update_file = dir.path().join("job-update.json");
    std::fs::write(&update_file, json!({"callbackUri": sub.url}).to_string()).unwrap();
    let updated = json_of(&[
        "vnfpm",
        "job",
        "update",
        &job_id,
        &update_file.display().to_string(),
    ]);
    assert_eq!(updated["Callback Uri"], sub.url.as_str());
    let th_file = dir.path().join("threshold.json");
    std::fs::write(
        &th_file,
        json!({"objectType": "Vnf", "objectInstanceId": id,
            "criteria": {"performanceMetric": cpu, "thresholdType": "SIMPLE",
                "simpleThresholdDetails": {"thresholdValue": 0.5, "hysteresis": 0.1}},
            "callbackUri": sub.url, "metadata": {}})
        .to_string(),
    )
    .unwrap();
    let th = json_of(&[
        "vnfpm",
        "threshold",
        "create",
        &th_file.display().to_string(),
    ]);
    let th_id = th["ID"].as_str().unwrap().to_owned();
    assert_eq!(th["Object Instance Id"], id.as_str());
    assert!(run(&["vnfpm", "threshold", "list"]).contains(&th_id));
    assert_eq!(
        json_of(&["vnfpm", "threshold", "show", &th_id])["ID"],
        th_id.as_str()
    );
    let th_updated = json_of(&[
        "vnfpm",
        "threshold",
        "update",
        &th_id,
        &update_file.display().to_string(),
    ]);
    assert_eq!(th_updated["Callback Uri"], sub.url.as_str());
    run(&["vnfpm", "threshold", "delete", &th_id]);
    run(&["vnfpm", "job", "delete", &job_id]);
    assert!(!run(&["vnfpm", "job", "list"]).contains(&job_id));
    assert!(!dir.path().join(format!("tacker-{job_id}.json")).exists());
    // A metric of another object type is the server's 400, shown to the user.
    std::fs::write(
        &job_file,
        json!({"objectType": "Vnf", "objectInstanceIds": [id],
            "criteria": {"performanceMetric": ["ByteIncomingVnfExtCp"], "collectionPeriod": 30, "reportingPeriod": 90},
            "callbackUri": sub.url}).to_string(),
    )
    .unwrap();
    let a = v2(&["vnfpm", "job", "create", &job_file.display().to_string()]);
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    let (ok, _, err) = osc.run(&refs);
    assert!(
        !ok && err.contains("not a metric of objectType Vnf"),
        "{err}"
    );

    assert!(run(&["vnflcm", "heal", &id, "--vnfc-instance", &vnfc]).contains("accepted"));
    wait_op(&osc, &last_op(&osc, "HEAL"), &["COMPLETED"]);
    assert!(
        run(&[
            "vnflcm",
            "scale",
            &id,
            "--type",
            "SCALE_OUT",
            "--aspect-id",
            "vdu1_aspect"
        ])
        .contains("accepted")
    );
    wait_op(&osc, &last_op(&osc, "SCALE"), &["COMPLETED"]);

    // A scale-out held in its step, cancelled FORCEFUL (the v1 command), rolled back.
    let hold = dir.path().join("hold");
    std::fs::write(&hold, "").unwrap();
    let held_file = dir.path().join("held.json");
    std::fs::write(
        &held_file,
        json!({"additionalParams": {"sim": {"holdFile": hold.display().to_string()}}}).to_string(),
    )
    .unwrap();
    run(&[
        "vnflcm",
        "scale",
        &id,
        "--type",
        "SCALE_OUT",
        "--aspect-id",
        "vdu1_aspect",
        "--additional-param-file",
        &held_file.display().to_string(),
    ]);
    let held = last_op(&osc, "SCALE");
    wait_op(&osc, &held, &["PROCESSING"]);
    // python-tackerclient's command is a ShowOne that shows nothing: it prints that the
    // cancellation was accepted, then fails on its own empty answer ("cannot unpack").
    let (_, out, err) = osc.run(&["vnflcm", "op", "cancel", &held, "--cancel-mode", "FORCEFUL"]);
    assert!(out.contains("has been accepted"), "op cancel: {out} {err}");
    let shown = wait_op(&osc, &held, &["FAILED_TEMP"]);
    assert!(hold.exists(), "ended only once its step was let go");
    assert!(shown["Error"].to_string().contains("cancelled"), "{shown}");
    std::fs::remove_file(&hold).unwrap();
    run(&["vnflcm", "op", "rollback", &held]);
    wait_op(&osc, &held, &["ROLLED_BACK"]);
    let (ok, _, err) = osc.run(&["vnflcm", "op", "cancel", &held]);
    assert!(!ok && err.contains("ROLLED_BACK"), "{err}");

    // A failing scale-out: retry (fails again), then rollback.
    let fail_file = dir.path().join("fail.json");
    std::fs::write(
        &fail_file,
        json!({"additionalParams": {"sim": {"fail": ["scale"]}}}).to_string(),
    )
    .unwrap();
    let fail = fail_file.display().to_string();
    run(&[
        "vnflcm",
        "scale",
        &id,
        "--type",
        "SCALE_OUT",
        "--aspect-id",
        "vdu1_aspect",
        "--additional-param-file",
        &fail,
    ]);
    let bad = last_op(&osc, "SCALE");
    let shown = wait_op(&osc, &bad, &["FAILED_TEMP"]);
    assert!(
        shown["Error"].to_string().contains("simulated failure"),
        "{shown}"
    );
    run(&["vnflcm", "op", "retry", &bad]);
    wait_op(&osc, &bad, &["FAILED_TEMP"]);
    run(&["vnflcm", "op", "rollback", &bad]);
    wait_op(&osc, &bad, &["ROLLED_BACK"]);
    // Another failing one, failed for good.
    run(&[
        "vnflcm",
        "scale",
        &id,
        "--type",
        "SCALE_OUT",
        "--aspect-id",
        "vdu1_aspect",
        "--additional-param-file",
        &fail,
    ]);
    let bad = last_op(&osc, "SCALE");
    wait_op(&osc, &bad, &["FAILED_TEMP"]);
    let failed = json_of(&["vnflcm", "op", "fail", &bad]);
    assert_eq!(failed["Operation State"], "FAILED");
    // Errors reach the user: heal with an unknown VNFC.
    let a = v2(&["vnflcm", "heal", &id, "--vnfc-instance", "no-such-vnfc"]);
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    let (ok, _, err) = osc.run(&refs);
    assert!(!ok && err.contains("no-such-vnfc"), "{err}");

    assert!(run(&["vnflcm", "terminate", &id]).contains("accepted"));
    wait_op(&osc, &last_op(&osc, "TERMINATE"), &["COMPLETED"]);
    assert!(run(&["vnflcm", "delete", &id]).contains("deleted successfully"));
    run(&["vnflcm", "subsc", "delete", &sub_id]);
    assert!(!run(&["vnflcm", "subsc", "list"]).contains(&sub_id));
}
