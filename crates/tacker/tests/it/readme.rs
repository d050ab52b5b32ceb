//! The README's walkthroughs, run as written: the code block between
//! `<!-- walkthrough:NAME -->` markers goes to bash, in a directory where `./target` and
//! `docs/` are the repository's; only the addresses of the simulators and of `make run`
//! change to the ones this test started.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::support::{ClusterEnv, Proc, free_port, wait_status};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shell code of walkthrough `name` in README.md.
pub fn walkthrough(name: &str) -> String {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let start = format!("<!-- walkthrough:{name} -->");
    let end = format!("<!-- /walkthrough:{name} -->");
    let body = readme
        .split(&start)
        .nth(1)
        .and_then(|r| r.split(&end).next())
        .unwrap_or_else(|| panic!("README.md has no walkthrough {name}"));
    body.lines()
        .filter(|l| !l.starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `script` with bash (errexit, pipefail) in a scratch directory that sees the
/// repository's `target/` and `docs/`; returns stdout (panics with the output on failure).
pub fn run_script(script: &str, dir: &Path) -> String {
    for link in ["target", "docs"] {
        let _ = std::os::unix::fs::symlink(repo().join(link), dir.join(link));
    }
    let out = Command::new("timeout")
        .args(["300", "bash", "-euo", "pipefail", "-c", script])
        .current_dir(dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "the walkthrough failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_vm_walkthrough_runs_as_written() {
    crate::vm::need_root();
    let sim = heat_sim::spawn(heat_sim::Settings::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let env = ClusterEnv::new(
        &format!("sqlite://{}/tacker.db", dir.path().display()),
        "memory://",
        &tacker_testkit::unique_prefix(),
    );
    let port = free_port();
    let mut cmd = env.command(&[
        ("TACKER__SERVER__BIND", format!("127.0.0.1:{port}")),
        (
            "TACKER__CONDUCTOR__HEALTH_BIND",
            format!("127.0.0.1:{}", free_port()),
        ),
        ("TACKER__OPENSTACK__POLL_INTERVAL", "200ms".into()),
    ]);
    // As `make run`: all-in-one with its defaults (no key configured: it makes one).
    cmd.env_remove("TACKER__SECRETS__KEYS");
    let _aio = Proc::spawn(cmd.arg("all-in-one"), &env.log_path("aio"));
    let api = format!("http://127.0.0.1:{port}");
    wait_status(
        &reqwest::Client::new(),
        &format!("{api}/readyz"),
        200,
        Duration::from_secs(60),
    )
    .await;
    let script = walkthrough("vm")
        .replace("http://127.0.0.1:9890", &api)
        .replace("http://127.0.0.1:5000", &sim.url);
    let script = format!("export TACKER_URL={api}\n{script}");
    let work = tempfile::tempdir().unwrap();
    let out = tokio::task::spawn_blocking({
        let dir = work.path().to_owned();
        move || run_script(&script, &dir)
    })
    .await
    .unwrap();
    // The auth_cred answered masks the password; every VM answered SSH with its name.
    assert!(out.contains("\"***\""), "{out}");
    assert!(!out.contains("tacker-password"), "{out}");
    let vms: Vec<&str> = out
        .lines()
        .filter(|l| *l == "VDU1" || *l == "VDU2")
        .collect();
    assert_eq!(vms.len(), 2, "{out}");
    assert!(
        sim.sim.engine.hosts.running().is_empty(),
        "terminate left VMs"
    );
    assert!(
        env.dir.path().join("data/secrets.key").exists(),
        "all-in-one made its key"
    );
}
