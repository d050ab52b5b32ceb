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

/// The shell code of walkthrough `name` in `doc` (a path from the repository root).
pub fn walkthrough_in(doc: &str, name: &str) -> String {
    let readme = std::fs::read_to_string(repo().join(doc)).unwrap();
    let start = format!("<!-- walkthrough:{name} -->");
    let end = format!("<!-- /walkthrough:{name} -->");
    let body = readme
        .split(&start)
        .nth(1)
        .and_then(|r| r.split(&end).next())
        .unwrap_or_else(|| panic!("{doc} has no walkthrough {name}"));
    body.lines()
        .filter(|l| !l.starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `script` with bash (errexit, pipefail) in a scratch directory that sees the
/// repository's `target/` and `docs/`; returns stdout (panics with the output on failure).
pub fn run_script(script: &str, dir: &Path) -> String {
    for link in ["target", "docs", ".venv"] {
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

/// `make run` as a newcomer starts it (all-in-one on its defaults: SQLite, the
/// in-process bus, local storage, a key it makes), with `extra` environment.
struct MakeRun {
    api: String,
    env: ClusterEnv,
    _aio: Proc,
    _db: tempfile::TempDir,
}

impl MakeRun {
    async fn start(extra: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let env = ClusterEnv::new(
            &format!("sqlite://{}/tacker.db", dir.path().display()),
            "memory://",
            &tacker_testkit::unique_prefix(),
        );
        let port = free_port();
        let mut vars = vec![
            ("TACKER__SERVER__BIND", format!("127.0.0.1:{port}")),
            (
                "TACKER__CONDUCTOR__HEALTH_BIND",
                format!("127.0.0.1:{}", free_port()),
            ),
        ];
        vars.extend(extra.iter().map(|(k, v)| (*k, (*v).to_owned())));
        let mut cmd = env.command(&vars);
        // No key configured: it makes one, as `make run` does.
        cmd.env_remove("TACKER__SECRETS__KEYS");
        let aio = Proc::spawn(cmd.arg("all-in-one"), &env.log_path("aio"));
        let api = format!("http://127.0.0.1:{port}");
        wait_status(
            &reqwest::Client::new(),
            &format!("{api}/readyz"),
            200,
            Duration::from_secs(60),
        )
        .await;
        Self {
            api,
            env,
            _aio: aio,
            _db: dir,
        }
    }

    /// Runs walkthrough `name` against it, the README's addresses replaced by the ones
    /// of this test (`make run`'s, then `replace`); returns its output.
    async fn walkthrough(&self, name: &str, replace: &[(&str, &str)]) -> String {
        self.walkthrough_in("README.md", name, replace).await
    }

    /// The same for a walkthrough of `doc`.
    async fn walkthrough_in(&self, doc: &str, name: &str, replace: &[(&str, &str)]) -> String {
        self.walkthrough_linked(doc, name, replace, &[]).await
    }

    /// The same, with `links` (name, target) in its directory besides the repository's.
    async fn walkthrough_linked(
        &self,
        doc: &str,
        name: &str,
        replace: &[(&str, &str)],
        links: &[(&str, &Path)],
    ) -> String {
        let mut script = walkthrough_in(doc, name).replace("http://127.0.0.1:9890", &self.api);
        for (from, to) in replace {
            script = script.replace(from, to);
        }
        // TACKER_WALKTHROUGH_TRACE=1: each command on stderr (`set -x`).
        let trace = if std::env::var_os("TACKER_WALKTHROUGH_TRACE").is_some() {
            "set -x\n"
        } else {
            ""
        };
        let script = format!("{trace}export TACKER_URL={}\n{script}", self.api);
        let work = tempfile::tempdir().unwrap();
        for (name, target) in links {
            std::os::unix::fs::symlink(target, work.path().join(name)).unwrap();
        }
        tokio::task::spawn_blocking({
            let dir = work.path().to_owned();
            move || run_script(&script, &dir)
        })
        .await
        .unwrap()
    }
}

/// `make kube-sim`, on a free port.
fn kube_sim() -> kube_sim::Handle {
    kube_sim::spawn(kube_sim::Settings {
        timing: crate::cnf::timing(),
        ..Default::default()
    })
    .unwrap()
}

/// Every operation of `ops` was followed to COMPLETED (`tackerctl op wait` prints
/// "<time>  <OPERATION> <STATE>"), and the terminated CNF left no Pod.
fn cnf_ended(out: &str, ops: &[&str], sim: &kube_sim::Handle) {
    for op in ops {
        assert!(
            out.lines().any(|l| l.ends_with(&format!("{op} COMPLETED"))),
            "{op}:\n{out}"
        );
    }
    assert!(
        sim.sim.lock().list("/pods", Some("default")).is_empty(),
        "terminated"
    );
}

/// The lines of `out` equal to `line`.
fn count(out: &str, line: &str) -> usize {
    out.lines().filter(|l| l.trim_end() == line).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_quickstart_runs_as_written() {
    let run = MakeRun::start(&[("TACKER__LCM__SIMULATED_VIM", "true")]).await;
    let out = run.walkthrough("quickstart", &[]).await;
    // "Operating it", on what the quickstart left.
    let ops = run.walkthrough("operate", &[]).await;
    assert!(ops.contains("Hello VNF") && ops.contains("READY"), "{ops}");
    assert!(ops.lines().any(|l| l.ends_with(" COMPLETED")), "{ops}");
    assert_eq!(count(&out, "valid"), 2, "packed and validated:\n{out}");
    assert_eq!(count(&out, "ONBOARDED"), 1, "{out}");
    assert_eq!(count(&out, "INSTANTIATED"), 1, "{out}");
    assert_eq!(count(&out, "COMPLETED INSTANTIATE"), 1, "{out}");
    assert!(
        count(&out, "VDU1") == 1 && count(&out, "VDU2") == 1,
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.ends_with("TERMINATE COMPLETED")),
        "{out}"
    );
    // The conductor list shows both conductors, READY.
    assert_eq!(
        out.lines().filter(|l| l.contains("READY")).count(),
        2,
        "{out}"
    );
    // Deleted at the end.
    let instances: serde_json::Value = reqwest::Client::new()
        .get(format!("{}/vnflcm/v2/vnf_instances", run.api))
        .header("Version", "2.0.0")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(instances, serde_json::json!([]));
    // One /metrics on the API port carries the conductors' metrics too: both conductors,
    // the onboarding one of them coordinated, the operations they ran.
    let metrics = reqwest::Client::new()
        .get(format!("{}/metrics", run.api))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let sum = |name: &str, needle: &str| -> f64 {
        metrics
            .lines()
            .filter(|l| l.starts_with(name) && l.contains(needle))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    };
    for n in [1, 2] {
        assert_eq!(
            sum("tacker_conductor_ready{", &format!("-aio-{n}\"")),
            1.0,
            "{metrics}"
        );
    }
    assert_eq!(
        sum("tacker_onboardings_total{", "outcome=\"onboarded\""),
        1.0,
        "{metrics}"
    );
    for op in ["INSTANTIATE", "TERMINATE"] {
        assert_eq!(
            sum(
                "tacker_lcm_operations_total{",
                &format!("operation=\"{op}\"")
            ),
            1.0,
            "{op}: {metrics}"
        );
    }
    assert!(sum("tacker_http_requests_total{", "") > 0.0, "{metrics}");
    assert!(
        sum("tacker_bus_messages_handled_total{", "") > 0.0,
        "{metrics}"
    );
    // The Grafana dashboard's metrics are in this scrape, but those only events this
    // walkthrough does not cause would make (notifications, hooks, redeliveries).
    let dashboard: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("deploy/grafana/tacker.json")).unwrap(),
    )
    .unwrap();
    let event_only = [
        "tacker_notification_deliveries_total",
        "tacker_mgmt_hook_duration_seconds",
        "tacker_bus_redeliveries_total",
        "tacker_automatic_operations_total",
        "tacker_alerts_total",
    ];
    for panel in dashboard["panels"].as_array().unwrap() {
        for t in panel["targets"].as_array().unwrap() {
            let expr = t["expr"].as_str().unwrap();
            for m in expr
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| w.starts_with("tacker_"))
            {
                let family = m
                    .trim_end_matches("_bucket")
                    .trim_end_matches("_sum")
                    .trim_end_matches("_count");
                assert!(
                    event_only.contains(&family) || metrics.contains(&format!("# TYPE {family} ")),
                    "panel {}: {family} is not scraped:\n{metrics}",
                    panel["title"]
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_cnf_walkthrough_runs_as_written() {
    let sim = kube_sim();
    let run = MakeRun::start(&[]).await;
    let out = run
        .walkthrough("cnf", &[("http://127.0.0.1:6443", &sim.url)])
        .await;
    assert_eq!(count(&out, "ONBOARDED"), 1, "{out}");
    assert_eq!(count(&out, "VDU1-vdu1-pod"), 1, "the Pod is a VNFC:\n{out}");
    cnf_ended(&out, &["INSTANTIATE", "HEAL", "TERMINATE"], &sim);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_vm_walkthrough_runs_as_written() {
    crate::vm::need_root();
    let sim = heat_sim::spawn(heat_sim::Settings::default()).unwrap();
    let run = MakeRun::start(&[("TACKER__OPENSTACK__POLL_INTERVAL", "200ms")]).await;
    let out = run
        .walkthrough("vm", &[("http://127.0.0.1:5000", &sim.url)])
        .await;
    // The auth_cred answered masks the password; every VM answered SSH with its name.
    assert!(out.contains("\"***\""), "{out}");
    assert!(!out.contains("tacker-password"), "{out}");
    let vms: Vec<&str> = out
        .lines()
        .filter(|l| *l == "VDU1" || *l == "VDU2")
        .collect();
    assert_eq!(vms.len(), 2, "{out}");
    // Stopped and started, then on the pair flavour: two VNFCs.
    for op in ["OPERATE", "CHANGE_FLAVOUR", "TERMINATE"] {
        assert!(
            out.lines().any(|l| l.ends_with(&format!("{op} COMPLETED"))),
            "{op}:\n{out}"
        );
    }
    assert_eq!(count(&out, "pair 2"), 1, "{out}");
    assert!(
        sim.sim.engine.hosts.running().is_empty(),
        "terminate left VMs"
    );
    assert!(
        run.env.dir.path().join("data/secrets.key").exists(),
        "all-in-one made its key"
    );
}

/// The user guide's upstream VM layouts: StandardUserData copies per VNFC (scaled, one
/// healed), a VNFD-only package built into a HOT (scaled); every VM gone at the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_user_guide_vm_layouts_walkthrough_runs_as_written() {
    crate::vm::need_root();
    let sim = heat_sim::spawn(heat_sim::Settings::default()).unwrap();
    let run = MakeRun::start(&[("TACKER__OPENSTACK__POLL_INTERVAL", "200ms")]).await;
    let out = run
        .walkthrough_in(
            "docs/user-guide.md",
            "vm-layouts",
            &[("http://127.0.0.1:5000", &sim.url)],
        )
        .await;
    assert_eq!(count(&out, "ACTIVE"), 1, "the VIM registered:\n{out}");
    // Level 2: two VDU1 copies and VDU2's; a third after the scale; the heal keeps the
    // indexes (VDU1-0 is a new nested stack, not a new index).
    assert_eq!(count(&out, "VDU1-0 VDU1-1 VDU2-0"), 1, "{out}");
    assert_eq!(count(&out, "VDU1-0 VDU1-1 VDU1-2 VDU2-0"), 2, "{out}");
    assert_eq!(
        count(&out, "VDU1 VDU1 VDU2"),
        1,
        "VNFD only, scaled:\n{out}"
    );
    for op in ["INSTANTIATE", "SCALE", "HEAL", "TERMINATE"] {
        assert!(
            out.lines().any(|l| l.ends_with(&format!("{op} COMPLETED"))),
            "{op}:\n{out}"
        );
    }
    assert!(!out.lines().any(|l| l.ends_with("FAILED_TEMP")), "{out}");
    assert!(
        sim.sim.engine.hosts.running().is_empty(),
        "terminate left VMs"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_user_guide_walkthroughs_run_as_written() {
    let sim = kube_sim();
    // `make run` puts .tools/bin (k8s-tools.sh's helm) first in PATH.
    let helm = tacker_testkit::helm::helm_bin();
    let path = format!(
        "{}:{}",
        helm.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = MakeRun::start(&[("PATH", &path)]).await;
    let out = run
        .walkthrough_in("docs/user-guide.md", "onboard", &[])
        .await;
    // Registering an OpenStack VIM (heat-sim's Keystone): the password is answered masked.
    let heat = heat_sim::spawn(heat_sim::Settings::default()).unwrap();
    let vim = run
        .walkthrough_in(
            "docs/user-guide.md",
            "vim",
            &[("http://127.0.0.1:5000", &heat.url)],
        )
        .await;
    assert!(
        vim.contains("\"password\":\"***\"") && !vim.contains("tacker-password\""),
        "{vim}"
    );
    assert!(vim.lines().any(|l| l.starts_with("my-openstack")), "{vim}");
    assert!(
        out.contains("ONBOARDED") && out.contains("Hello VNF"),
        "{out}"
    );
    let out = run
        .walkthrough_in(
            "docs/user-guide.md",
            "cnf",
            &[("http://127.0.0.1:6443", &sim.url)],
        )
        .await;
    assert_eq!(count(&out, "VDU1-vdu1-pod"), 1, "{out}");
    // The upgrade moved the instance to the v2 package.
    assert_eq!(
        count(&out, "c0ffee00-0000-4000-8000-0000000002f0"),
        1,
        "{out}"
    );
    // Stopped in between, then started; the web flavour runs its three replicas.
    assert_eq!(count(&out, "STOPPED"), 1, "{out}");
    assert_eq!(count(&out, "web 3"), 1, "{out}");
    cnf_ended(
        &out,
        &[
            "INSTANTIATE",
            "HEAL",
            "SCALE",
            "SCALE_TO_LEVEL",
            "OPERATE",
            "CHANGE_VNFPKG",
            "CHANGE_FLAVOUR",
            "TERMINATE",
        ],
        &sim,
    );
    let out = run
        .walkthrough_in(
            "docs/user-guide.md",
            "helm",
            &[("http://127.0.0.1:6443", &sim.url)],
        )
        .await;
    // The release, named as upstream Tacker names it: `vnf` and the id without dashes.
    let release = |l: &str| {
        l.strip_prefix("vnf")
            .is_some_and(|id| id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    assert_eq!(out.lines().filter(|l| release(l)).count(), 1, "{out}");
    cnf_ended(&out, &["INSTANTIATE", "SCALE", "TERMINATE"], &sim);
}

/// "Auto-heal and auto-scale a CNF with Prometheus" as written: `make kube-sim`,
/// `make monitoring`'s Prometheus and Alertmanager (its configuration as
/// `monitoring.sh config` writes it) and `make run` with the settings the guide gives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_closed_loop_walkthrough_runs_as_written() {
    let sim = kube_sim();
    let kubernetes = sim.url.trim_start_matches("http://").to_owned();
    let m = crate::monitoring::Monitoring::demo("http://TACKER", &kubernetes);
    let rules = m.rules_dir().display().to_string();
    let reload = format!("{}/-/reload", m.prometheus);
    let run = MakeRun::start(&[
        ("TACKER__PM__RULES_DIR", rules.as_str()),
        ("TACKER__PM__PROMETHEUS_RELOAD_URL", reload.as_str()),
        ("TACKER__FM__AUTO_HEAL_WINDOW", "5s"),
        ("TACKER__FM__COOLDOWN", "10s"),
    ])
    .await;
    let am = std::fs::read_to_string(m.dir.path().join("alertmanager.yml")).unwrap();
    assert!(am.contains("http://TACKER/alert/auto_healing"), "{am}");
    m.reconfigure_alertmanager(&am.replace("http://TACKER", &run.api))
        .await;
    let receiver = format!("127.0.0.1:{}", free_port());
    let out = run
        .walkthrough_linked(
            "docs/user-guide.md",
            "closed-loop",
            &[
                ("http://127.0.0.1:6443", &sim.url),
                ("http://127.0.0.1:9090", &m.prometheus),
                ("127.0.0.1:9999", &receiver),
            ],
            &[(".monitoring", m.dir.path())],
        )
        .await;
    assert!(
        out.contains("HEAL COMPLETED automatic=true"),
        "{out}\n{}",
        m.logs()
    );
    assert!(
        out.contains("SCALE COMPLETED automatic=true"),
        "{out}\n{}",
        m.logs()
    );
    assert!(out.lines().any(|l| l == "vdu2_aspect level 1"), "{out}");
    // The FM subscriber heard the alarm raised, then cleared; the alarm list shows it.
    let kinds: Vec<&str> = out.lines().filter(|l| l.starts_with("Alarm")).collect();
    assert_eq!(
        kinds,
        ["AlarmNotification", "AlarmClearedNotification"],
        "{out}"
    );
    let instance = out
        .lines()
        .find_map(|l| l.strip_prefix("VNF instance "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("deleted: {out}"));
    assert!(
        out.lines()
            .any(|l| l == format!("{instance} CRITICAL UNACKNOWLEDGED")),
        "{out}"
    );
    assert!(
        sim.sim.lock().list("/pods", Some("default")).is_empty(),
        "terminated"
    );
}
