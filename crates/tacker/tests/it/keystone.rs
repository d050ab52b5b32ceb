//! `auth.mode = "keystone"` as an OpenStack user meets it: a server and a conductor
//! (PostgreSQL, RabbitMQ) validating tokens with the tests' real Keystone, registered in
//! its catalog by the operator guide's commands, and the real `openstack` client logging
//! in with a password and finding Tacker there (no `--os-endpoint`).

use std::time::Duration;

use serde_json::json;
use tacker_testkit::keystone::OpenStack;

use crate::openstack_cli::{Osc, last_op, wait_op};
use crate::procs::Cluster;
use crate::readme::{run_script, walkthrough_in};

const VNFD: &str = "11111111-2222-3333-4444-555555555555";

/// `export NAME='value'` lines for a walkthrough, the venv's `openstack` first on PATH.
fn exports(vars: &[(&str, &str)]) -> String {
    let mut s = String::from("export PATH=\"$PWD/.venv/bin:$PATH\"\n");
    for (k, v) in vars {
        s.push_str(&format!("export {k}='{v}'\n"));
    }
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openstack_client_logs_in_to_keystone_and_finds_tacker_in_its_catalog() {
    let os = OpenStack::up();
    let p = os
        .project(&[("member", &["member"]), ("reader", &["reader"])])
        .await;
    let other = os.project(&[("member", &["member"])]).await;
    let region = os.region().await;
    let password = os.tacker_password();
    let c = Cluster::with_keystone(&os, &["c1"], &[("TACKER__LCM__SIMULATED_VIM", "true")]).await;
    let work = tempfile::tempdir().unwrap();

    // The operator guide's registration, as Keystone's administrator.
    let admin_env = exports(&[
        ("OS_AUTH_URL", &os.keystone),
        ("OS_USERNAME", "admin"),
        ("OS_PASSWORD", os.admin_password()),
        ("OS_PROJECT_NAME", "admin"),
        ("OS_USER_DOMAIN_NAME", "Default"),
        ("OS_PROJECT_DOMAIN_NAME", "Default"),
        ("TACKER_URL", &c.api),
        ("REGION", &region),
        ("TACKER_KEYSTONE_PASSWORD", &password),
    ]);
    run_script(
        &format!(
            "{admin_env}{}",
            walkthrough_in("docs/operator-guide.md", "keystone-catalog")
        ),
        work.path(),
    );

    // A member logs in with a password; Tacker is found in the catalog.
    let m = p.user("member");
    let osc = Osc::keystone(&os.keystone, &m.login, &m.password, &p.name, &region);
    let pkg = osc.json(&["vnf", "package", "create"])["ID"]
        .as_str()
        .unwrap()
        .to_owned();
    let zip = work.path().join("pkg.zip");
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
    let (ok, _, err) = osc.run(&[
        "vnf",
        "package",
        "update",
        "--operational-state",
        "ENABLED",
        &pkg,
    ]);
    assert!(ok || err.contains("already"), "{err}");
    // v1 and v2 instances; the v2 one instantiated on the simulated VIM.
    let v1 = osc.json(&["vnflcm", "create", VNFD])["ID"]
        .as_str()
        .unwrap()
        .to_owned();
    let v2 = osc.json(&["--os-tacker-api-version", "2", "vnflcm", "create", VNFD])["ID"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = work.path().join("instantiate.json");
    std::fs::write(
        &body,
        json!({"flavourId": "simple", "vimConnectionInfo": {"vim1": {"vimType": "TACKER.SIM.V_1"}}})
            .to_string(),
    )
    .unwrap();
    let (ok, _, err) = osc.run(&[
        "--os-tacker-api-version",
        "2",
        "vnflcm",
        "instantiate",
        &v2,
        &body.display().to_string(),
    ]);
    assert!(ok, "{err}");
    let op = last_op(&osc, "INSTANTIATE");
    wait_op(&osc, &op, &["COMPLETED"]);

    // The guide's client commands, with the member's login: every kind answers.
    let member_env = exports(&[
        ("OS_AUTH_URL", &os.keystone),
        ("OS_USERNAME", &m.login),
        ("OS_PASSWORD", &m.password),
        ("OS_PROJECT_NAME", &p.name),
        ("OS_REGION_NAME", &region),
    ]);
    let out = run_script(
        &format!(
            "{member_env}{}",
            walkthrough_in("docs/operator-guide.md", "keystone-client")
        ),
        work.path(),
    );
    for id in [&pkg, &v1, &v2] {
        assert!(out.contains(id.as_str()), "{id} missing from:\n{out}");
    }

    // The reader of the project reads, and may not write.
    let r = p.user("reader");
    let reader = Osc::keystone(&os.keystone, &r.login, &r.password, &p.name, &region);
    let listed = reader.json(&["vnf", "package", "list"]).to_string();
    assert!(listed.contains(&pkg), "{listed}");
    let (ok, _, err) = reader.run(&["vnf", "package", "create"]);
    assert!(!ok && err.contains("member"), "{err}");
    // Another project's member sees none of it.
    let o = other.user("member");
    let outsider = Osc::keystone(&os.keystone, &o.login, &o.password, &other.name, &region);
    assert_eq!(outsider.json(&["vnf", "package", "list"]), json!([]));
    assert_eq!(outsider.json(&["vnflcm", "list"]), json!([]));
    let (ok, _, err) = outsider.run(&["vnflcm", "show", &v1]);
    assert!(!ok && err.contains("not found"), "{err}");

    c.teardown().await;
    os.remove_region(&region).await;
    os.remove_project(&p).await;
    os.remove_project(&other).await;
}
