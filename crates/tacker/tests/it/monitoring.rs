//! Prometheus and Alertmanager (Debian's, installed by `tests/infra/monitoring.sh`) on
//! loopback ports, each test with its own configuration and rules directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::support::free_port;

/// Prometheus and Alertmanager started for one test; stopped when dropped.
pub struct Monitoring {
    pub dir: tempfile::TempDir,
    pub prometheus: String,
    alertmanager: String,
    pids: Vec<String>,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/infra/monitoring.sh")
}

impl Monitoring {
    /// Starts both with `prometheus_yml` (its `{{ALERTMANAGER}}` replaced by
    /// Alertmanager's address, rule files read from `rules/*.yml`), the `rules` files
    /// and `alertmanager_yml`.
    pub fn start(prometheus_yml: &str, rules: &[(&str, String)], alertmanager_yml: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let (pport, aport) = (free_port(), free_port());
        std::fs::create_dir_all(dir.path().join("rules")).unwrap();
        std::fs::write(
            dir.path().join("prometheus.yml"),
            prometheus_yml.replace("{{ALERTMANAGER}}", &format!("127.0.0.1:{aport}")),
        )
        .unwrap();
        for (name, text) in rules {
            std::fs::write(dir.path().join("rules").join(name), text).unwrap();
        }
        std::fs::write(dir.path().join("alertmanager.yml"), alertmanager_yml).unwrap();
        // Firing alerts reach Alertmanager again every second (their values change).
        Self::start_in(dir, pport, aport, &["--rules.alert.resend-delay=1s"])
    }

    /// Starts both on `pport` and `aport` with the configuration already in `dir`.
    pub fn start_in(dir: tempfile::TempDir, pport: u16, aport: u16, flags: &[&str]) -> Self {
        let out = Command::new(script())
            .arg("start")
            .arg(dir.path())
            .arg(pport.to_string())
            .arg(aport.to_string())
            .args(flags)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "monitoring.sh start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let pids = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().nth(1).map(str::to_owned))
            .collect();
        Self {
            dir,
            prometheus: format!("http://127.0.0.1:{pport}"),
            alertmanager: format!("127.0.0.1:{aport}"),
            pids,
        }
    }

    /// `make monitoring`'s configuration (`monitoring.sh config`) for the VNFM at
    /// `tacker` and the cluster metrics at `kubernetes` (host:port), started on free
    /// ports.
    pub fn demo(tacker: &str, kubernetes: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let (pport, aport) = (free_port(), free_port());
        let out = Command::new(script())
            .args(["config"])
            .arg(dir.path())
            .env("TACKER_URL", tacker)
            .env("KUBERNETES", kubernetes)
            .env("ALERTMANAGER_PORT", aport.to_string())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "monitoring.sh config: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Self::start_in(dir, pport, aport, &[])
    }

    /// Alertmanager's base URL.
    pub fn alertmanager_url(&self) -> String {
        format!("http://{}", self.alertmanager)
    }

    /// Alerts as Prometheus sends them to Alertmanager (`POST /api/v2/alerts`).
    pub async fn push_alerts(&self, alerts: &Value) {
        let r = reqwest::Client::new()
            .post(format!("{}/api/v2/alerts", self.alertmanager_url()))
            .json(alerts)
            .send()
            .await
            .unwrap();
        let status = r.status();
        assert!(
            status.is_success(),
            "push: {status} {}",
            r.text().await.unwrap_or_default()
        );
    }

    /// The rules directory (`rules/`, read by `rule_files`).
    pub fn rules_dir(&self) -> PathBuf {
        self.dir.path().join("rules")
    }

    /// Replaces `prometheus.yml` (its `{{ALERTMANAGER}}` filled) and reloads Prometheus.
    pub async fn reconfigure(&self, prometheus_yml: &str) {
        std::fs::write(
            self.dir.path().join("prometheus.yml"),
            prometheus_yml.replace("{{ALERTMANAGER}}", &self.alertmanager),
        )
        .unwrap();
        self.reload().await;
    }

    /// Replaces `alertmanager.yml` and reloads Alertmanager.
    pub async fn reconfigure_alertmanager(&self, yml: &str) {
        std::fs::write(self.dir.path().join("alertmanager.yml"), yml).unwrap();
        let r = reqwest::Client::new()
            .post(format!("http://{}/-/reload", self.alertmanager))
            .send()
            .await
            .unwrap();
        assert!(
            r.status().is_success(),
            "reload: {}\n{}",
            r.status(),
            self.logs()
        );
    }

    /// Writes rule file `name` and reloads Prometheus.
    pub async fn add_rules(&self, name: &str, text: &str) {
        std::fs::write(self.rules_dir().join(name), text).unwrap();
        self.reload().await;
    }

    /// Has Prometheus read its configuration and rules again.
    pub async fn reload(&self) {
        let r = reqwest::Client::new()
            .post(format!("{}/-/reload", self.prometheus))
            .send()
            .await
            .unwrap();
        assert!(
            r.status().is_success(),
            "reload: {}\n{}",
            r.status(),
            self.logs()
        );
    }

    /// Prometheus' answer to an instant query (its `data.result`).
    pub async fn query(&self, promql: &str) -> Vec<Value> {
        let encoded: String = promql
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect();
        let v: Value = reqwest::Client::new()
            .get(format!("{}/api/v1/query?query={encoded}", self.prometheus))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        v["data"]["result"].as_array().cloned().unwrap_or_default()
    }

    /// Waits until `promql` has a result for which `pred` holds.
    pub async fn wait_query(
        &self,
        promql: &str,
        timeout: Duration,
        pred: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let r = self.query(promql).await;
            if pred(&r) {
                return r;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{promql} never gave what was waited for: {r:?}\n{}",
                self.logs()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// The two logs' tails.
    pub fn logs(&self) -> String {
        ["prometheus.log", "alertmanager.log"]
            .iter()
            .map(|f| {
                let t = std::fs::read_to_string(self.dir.path().join(f)).unwrap_or_default();
                let tail: Vec<&str> = t.lines().rev().take(15).collect();
                format!(
                    "--- {f}\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for Monitoring {
    fn drop(&mut self) {
        for pid in &self.pids {
            let _ = Command::new("kill").arg(pid).status();
        }
    }
}

/// `promtool check rules` on `file`: its output, and whether it passed.
pub fn promtool_check_rules(file: &Path) -> (bool, String) {
    let out = Command::new("promtool")
        .args(["check", "rules"])
        .arg(file)
        .output()
        .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}
