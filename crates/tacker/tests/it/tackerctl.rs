//! tackerctl against a running `tacker all-in-one` (SQLite, in-process bus) and kube-sim:
//! every command group, output formats, exit statuses, the config file.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tacker_testkit::cnf::{CNF_VNFD_ID, cnf, cnf_params};

use crate::support::{ClusterEnv, Proc, free_port, wait_status};

struct Ctl {
    url: String,
}

impl Ctl {
    /// Runs `tackerctl --url <url> <args>`; (exit status, stdout).
    async fn run(&self, args: &[&str]) -> (i32, String) {
        let mut all = vec!["tackerctl", "--url", &self.url];
        all.extend_from_slice(args);
        let mut out = Vec::new();
        let code = tackerctl::run(all, &mut out).await;
        (code, String::from_utf8(out).unwrap())
    }

    async fn ok(&self, args: &[&str]) -> String {
        let (code, out) = self.run(args).await;
        assert_eq!(code, 0, "tackerctl {args:?}: {out}");
        out
    }

    async fn json(&self, args: &[&str]) -> Value {
        let mut a = args.to_vec();
        a.extend(["-o", "json"]);
        let out = self.ok(&a).await;
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    }
}

/// Asserts that every cell of every row of table `t` holds something: a cell starts at
/// its header's column, so a blank there is an empty cell.
fn every_cell_filled(what: &str, t: &str) {
    let mut lines = t.lines();
    let header = lines.next().unwrap_or_default();
    let starts: Vec<(usize, &str)> = header
        .match_indices(|c: char| c != ' ')
        .filter(|(i, _)| {
            *i == 0 || header.as_bytes()[i - 1] == b' ' && header.as_bytes()[i - 2] == b' '
        })
        .map(|(i, _)| (i, header[i..].split("  ").next().unwrap_or_default()))
        .collect();
    let mut rows = 0;
    for row in lines {
        rows += 1;
        for (at, name) in &starts {
            let cell = row.get(*at..).and_then(|r| r.chars().next());
            assert!(
                cell.is_some_and(|c| c != ' '),
                "{what}: column {name} is empty:\n{t}"
            );
        }
    }
    assert!(rows > 0, "{what}: no rows:\n{t}");
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

// Multi-threaded: kube-sim and the subscriber answer while tackerctl waits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tackerctl_drives_packages_cnfs_operations_and_subscriptions() {
    let sim = kube_sim::spawn(kube_sim::Settings {
        timing: kube_sim::Timing {
            ready_delay_ms: 30,
            terminate_delay_ms: 0,
            nodes: 2,
        },
        ..Default::default()
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let env = ClusterEnv::new(
        &format!("sqlite://{}/tacker.db", dir.path().display()),
        "memory://",
        &tacker_testkit::unique_prefix(),
    );
    let port = free_port();
    let _aio = Proc::spawn(
        env.command(&[
            ("TACKER__SERVER__BIND", format!("127.0.0.1:{port}")),
            (
                "TACKER__CONDUCTOR__HEALTH_BIND",
                format!("127.0.0.1:{}", free_port()),
            ),
            ("TACKER__KUBERNETES__POLL_INTERVAL", "200ms".into()),
        ])
        .arg("all-in-one"),
        &env.log_path("aio"),
    );
    let url = format!("http://127.0.0.1:{port}");
    wait_status(
        &reqwest::Client::new(),
        &format!("{url}/readyz"),
        200,
        Duration::from_secs(30),
    )
    .await;
    let ctl = Ctl { url: url.clone() };

    // Conductors: the all-in-one's two, live.
    let conductors = ctl.json(&["conductor", "list"]).await;
    assert_eq!(conductors.as_array().unwrap().len(), 2);
    assert!(
        conductors
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["live"] == true)
    );
    assert!(ctl.ok(&["conductor", "list"]).await.starts_with("ID"));

    // Packages: validate offline, create, upload (waits for ONBOARDED), list, show.
    let zip = dir.path().join("cnf.zip");
    cnf().write_to(&zip);
    let v = ctl.json(&["package", "validate", p(&zip)]).await;
    assert_eq!(v["valid"], true);
    assert_eq!(v["vnfdId"], CNF_VNFD_ID);
    let bad = dir.path().join("bad.zip");
    std::fs::write(&bad, b"not a zip").unwrap();
    let (code, _) = ctl.run(&["package", "validate", p(&bad)]).await;
    assert_ne!(code, 0);
    let created = ctl
        .json(&["package", "create", "--user-data", "team=core"])
        .await;
    let pkg = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["userDefinedData"]["team"], "core");
    let out = ctl.ok(&["package", "upload", &pkg, p(&zip)]).await;
    assert!(
        out.contains("ONBOARDED") && out.contains(CNF_VNFD_ID),
        "{out}"
    );
    let table = ctl.ok(&["package", "list"]).await;
    assert!(
        table.lines().next().unwrap().starts_with("ID")
            && table.contains(&pkg)
            && table.contains("ENABLED"),
        "{table}"
    );
    let shown = ctl.ok(&["package", "show", &pkg, "-o", "yaml"]).await;
    assert!(shown.contains("onboardingState: ONBOARDED"), "{shown}");
    let back = dir.path().join("back.zip");
    ctl.ok(&["package", "download", &pkg, "-f", p(&back)]).await;
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&zip).unwrap());
    let vnfd = dir.path().join("vnfd.zip");
    ctl.ok(&["package", "vnfd", &pkg, "-f", p(&vnfd)]).await;
    assert!(std::fs::metadata(&vnfd).unwrap().len() > 0);

    // A subscriber.
    let sub = tacker_testkit::peers::Subscriber::start(tacker_testkit::peers::Expect::Nothing);
    let s = ctl
        .json(&["subscription", "create", "--callback", &sub.url])
        .await;
    let sub_id = s["id"].as_str().unwrap().to_owned();
    assert!(ctl.ok(&["subscription", "list"]).await.contains(&sub_id));
    // Package notifications, from the same command.
    let pkg_sub = ctl
        .json(&[
            "subscription",
            "create",
            "--api",
            "vnfpkgm",
            "--callback",
            &sub.url,
        ])
        .await;
    let pkg_sub_id = pkg_sub["id"].as_str().unwrap().to_owned();
    let listed = ctl.ok(&["subscription", "list", "--api", "vnfpkgm"]).await;
    assert!(
        listed.contains(&pkg_sub_id) && !listed.contains(&sub_id),
        "{listed}"
    );
    every_cell_filled("subscription list --api vnfpkgm", &listed);
    ctl.ok(&["subscription", "delete", "--api", "vnfpkgm", &pkg_sub_id])
        .await;

    // A CNF: create, instantiate (from a YAML file), heal, scale, sync, terminate.
    let v = ctl
        .json(&["vnf", "create", CNF_VNFD_ID, "--name", "cnf-ctl"])
        .await;
    let id = v["id"].as_str().unwrap().to_owned();
    let req = dir.path().join("instantiate.yaml");
    let body = json!({
        "flavourId": "simple",
        "vimConnectionInfo": {"k8s": {"vimType": "ETSINFV.KUBERNETES.V_1", "interfaceInfo": {"endpoint": sim.url}, "accessInfo": {"bearer_token": "x"}}},
        "additionalParams": cnf_params(None),
    });
    std::fs::write(&req, serde_saphyr_yaml(&body)).unwrap();
    let out = ctl
        .ok(&["vnf", "instantiate", &id, "-f", p(&req), "--wait"])
        .await;
    assert!(out.trim_end().ends_with("INSTANTIATE COMPLETED"), "{out}");
    let inst = ctl.json(&["vnf", "show", &id]).await;
    let vnfc = inst["instantiatedVnfInfo"]["vnfcInfo"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["vduId"] == "VDU2")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    ctl.ok(&["vnf", "heal", &id, "--vnfc", &vnfc, "--wait"])
        .await;
    let out = ctl
        .json(&[
            "vnf",
            "scale",
            &id,
            "--type",
            "out",
            "--aspect",
            "vdu2_aspect",
        ])
        .await;
    let op = out["vnfLcmOpOccId"].as_str().unwrap().to_owned();
    let out = ctl.ok(&["op", "wait", &op]).await;
    assert!(out.trim_end().ends_with("SCALE COMPLETED"), "{out}");
    assert!(ctl.ok(&["sync", &id]).await.contains("already in sync"));
    // Back to level 0 of the aspect, by level.
    let out = ctl
        .ok(&[
            "vnf",
            "scale-to-level",
            &id,
            "--aspect",
            "vdu2_aspect=0",
            "--wait",
        ])
        .await;
    assert!(
        out.trim_end().ends_with("SCALE_TO_LEVEL COMPLETED"),
        "{out}"
    );
    let shown = ctl.json(&["vnf", "show", &id]).await;
    let level = shown["instantiatedVnfInfo"]["scaleStatus"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["aspectId"] == "vdu2_aspect")
        .unwrap()["scaleLevel"]
        .clone();
    assert_eq!(level, 0, "{shown}");
    let (code, _) = ctl
        .run(&["vnf", "scale-to-level", &id, "--aspect", "vdu2_aspect"])
        .await;
    assert_eq!(
        code, 5,
        "an --aspect without a level is refused before any request"
    );
    // Stop the whole CNF (its Pods go, its VNFCs stay STOPPED), then start it again.
    let pods_before = sim
        .sim
        .pods("default", "tacker.io/vnf-instance-id", &id)
        .len();
    assert!(pods_before > 0);
    let out = ctl
        .ok(&[
            "vnf",
            "operate",
            &id,
            "--state",
            "stopped",
            "--forceful",
            "--wait",
        ])
        .await;
    assert!(out.trim_end().ends_with("OPERATE COMPLETED"), "{out}");
    assert!(
        sim.sim
            .pods("default", "tacker.io/vnf-instance-id", &id)
            .is_empty()
    );
    let shown = ctl.json(&["vnf", "show", &id]).await;
    let info = &shown["instantiatedVnfInfo"];
    assert_eq!(info["vnfState"], "STOPPED", "{shown}");
    assert!(
        info["vnfcInfo"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["vnfcState"] == "STOPPED")
    );
    // While stopped: no scale (refused, nothing started), and the sync leaves its VNFCs
    // alone.
    let ops_before = ctl.json(&["op", "list"]).await.as_array().unwrap().len();
    let (code, _) = ctl
        .run(&[
            "vnf",
            "scale",
            &id,
            "--type",
            "out",
            "--aspect",
            "vdu2_aspect",
        ])
        .await;
    assert_eq!(code, 1, "a stopped CNF does not scale");
    assert_eq!(
        ctl.json(&["op", "list"]).await.as_array().unwrap().len(),
        ops_before
    );
    ctl.ok(&["sync", &id]).await;
    assert_eq!(
        ctl.json(&["vnf", "show", &id]).await["instantiatedVnfInfo"]["vnfcInfo"]
            .as_array()
            .unwrap()
            .len(),
        info["vnfcInfo"].as_array().unwrap().len()
    );
    let (code, _) = ctl
        .run(&["vnf", "operate", &id, "--state", "started", "--vnfc", "x"])
        .await;
    assert_eq!(code, 1, "named VNFCs of a CNF are refused");
    let out = ctl
        .ok(&["vnf", "operate", &id, "--state", "started", "--wait"])
        .await;
    assert!(out.trim_end().ends_with("OPERATE COMPLETED"), "{out}");
    assert_eq!(
        sim.sim
            .pods("default", "tacker.io/vnf-instance-id", &id)
            .len(),
        pods_before
    );
    let shown = ctl.json(&["vnf", "show", &id]).await;
    assert_eq!(
        shown["instantiatedVnfInfo"]["vnfState"], "STARTED",
        "{shown}"
    );
    let heals = ctl
        .json(&["op", "list", "--filter", "(eq,operation,HEAL)"])
        .await;
    assert_eq!(heals.as_array().unwrap().len(), 1);
    assert!(ctl.ok(&["vnf", "list"]).await.contains("INSTANTIATED"));
    // Every column of every list shows something for these populated objects.
    for cmd in [
        &["conductor", "list"][..],
        &["package", "list"],
        &["vnf", "list"],
        &["op", "list"],
        &["subscription", "list"],
    ] {
        every_cell_filled(&cmd.join(" "), &ctl.ok(cmd).await);
    }

    // Refusals exit 1 with the API's reason.
    let (code, _) = ctl.run(&["vnf", "delete", &id]).await;
    assert_eq!(code, 1, "an instantiated VNF cannot be deleted");
    let (code, _) = ctl
        .run(&["vnf", "scale", &id, "--type", "out", "--aspect", "nope"])
        .await;
    assert_eq!(code, 1);

    // A failing operation: --wait exits 1; rollback is followed to ROLLED_BACK.
    let v2 = ctl.json(&["vnf", "create", CNF_VNFD_ID]).await;
    let id2 = v2["id"].as_str().unwrap().to_owned();
    sim.sim.set_faults(kube_sim::Faults {
        api_errors: vec![kube_sim::ApiFault {
            verb: "create".into(),
            resource: "configmaps".into(),
            name: None,
            status: 403,
            message: "configmaps are forbidden".into(),
            times: None,
        }],
        ..Default::default()
    });
    // The same manifests in the same namespace as the first VNF: the rollback must leave
    // the first VNF's objects alone.
    let req2 = dir.path().join("instantiate2.json");
    std::fs::write(&req2, body.to_string()).unwrap();
    let first_pods = sim.sim.pods("default", "tacker.io/vnf-instance-id", &id);
    let (code, out) = ctl
        .run(&["vnf", "instantiate", &id2, "-f", p(&req2), "--wait"])
        .await;
    assert_eq!(code, 1, "{out}");
    sim.sim.set_faults(kube_sim::Faults::default());
    let failed = ctl
        .json(&["op", "list", "--filter", "(eq,operationState,FAILED_TEMP)"])
        .await;
    let failed_id = failed[0]["id"].as_str().unwrap().to_owned();
    ctl.ok(&["op", "rollback", &failed_id, "--wait"]).await;
    // Only a running occurrence can be cancelled: the API's 409 reaches the user.
    let (code, out) = ctl
        .run(&["op", "cancel", &failed_id, "--mode", "forceful"])
        .await;
    assert_eq!(code, 1, "{out}");
    let op = ctl.json(&["op", "show", &failed_id]).await;
    assert_eq!(op["operationState"], "ROLLED_BACK");
    ctl.ok(&["vnf", "delete", &id2]).await;
    assert_eq!(
        sim.sim.pods("default", "tacker.io/vnf-instance-id", &id),
        first_pods,
        "the rollback touched another VNF's objects"
    );

    // Terminate, delete, clean up the package and the subscription.
    ctl.ok(&["vnf", "terminate", &id, "--forceful", "--wait"])
        .await;
    ctl.ok(&["vnf", "delete", &id]).await;
    ctl.ok(&["package", "disable", &pkg]).await;
    ctl.ok(&["package", "delete", &pkg]).await;
    ctl.ok(&["subscription", "delete", &sub_id]).await;
    assert!(
        ctl.json(&["package", "list"])
            .await
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(!sub.received().is_empty(), "the subscriber was notified");

    // The config file gives the endpoint; an unreachable one exits 3; usage errors 2.
    let cfg = dir.path().join("tackerctl.toml");
    std::fs::write(&cfg, format!("url = \"{url}\"\n")).unwrap();
    let mut out = Vec::new();
    let code = tackerctl::run(
        ["tackerctl", "--config", p(&cfg), "conductor", "list"],
        &mut out,
    )
    .await;
    assert_eq!(code, 0);
    let mut out = Vec::new();
    let code = tackerctl::run(
        [
            "tackerctl",
            "--url",
            "http://127.0.0.1:9",
            "package",
            "list",
        ],
        &mut out,
    )
    .await;
    assert_eq!(code, 3);
    let mut out = Vec::new();
    assert_eq!(
        tackerctl::run(["tackerctl", "vnf", "frobnicate"], &mut out).await,
        2
    );
    let mut out = Vec::new();
    assert_eq!(
        tackerctl::run(["tackerctl", "completions", "bash"], &mut out).await,
        0
    );
    assert!(String::from_utf8(out).unwrap().contains("tackerctl"));
}

/// A request body as YAML (tackerctl reads either).
fn serde_saphyr_yaml(v: &Value) -> String {
    // JSON is YAML; indent it as a block to be sure YAML parsing is used.
    let mut s = String::new();
    for (k, val) in v.as_object().unwrap() {
        s.push_str(&format!("{k}: {val}\n"));
    }
    s
}
