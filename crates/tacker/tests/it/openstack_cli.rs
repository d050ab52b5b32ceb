//! The real client: python-openstackclient + python-tackerclient against `tacker all-in-one`.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

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
    endpoint: String,
}

impl Osc {
    pub fn new(endpoint: String) -> Self {
        Self { endpoint }
    }

    /// Runs `openstack <args>`; returns (success, stdout, stderr).
    pub fn run(&self, args: &[&str]) -> (bool, String, String) {
        let out = Command::new(openstack_bin())
            .args(["--os-auth-type", "none", "--os-endpoint", &self.endpoint])
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
