use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A free loopback port for a process a test starts, from 23000-31999: below the
/// ephemeral range (32768 and up), where the outgoing connection of any process may take
/// a port between this check and that process's bind (a port bind(0) picks is one of
/// those), and above the test services' fixed ports (pg-failover's 21432, the RabbitMQ
/// cluster's 21670).
pub fn free_port() -> u16 {
    for _ in 0..1000 {
        let n = u16::from_le_bytes(uuid::Uuid::new_v4().as_bytes()[..2].try_into().unwrap());
        let port = 23000 + n % 9000;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free loopback port in 23000-31999");
}

pub fn tacker() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tacker"))
}

/// `psql -tAc` against `url`, stopping at the first error: the answer, trimmed.
pub fn psql(url: &str, sql: &str) -> String {
    let out = Command::new("psql")
        .args([url, "-v", "ON_ERROR_STOP=1", "-tAc", sql])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A new sealing key `<id>:<base64>`, as `tacker secrets generate-key` prints it.
pub fn generate_key(id: &str) -> String {
    let out = tacker()
        .args(["secrets", "generate-key", id])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// The sealing key of test clusters (`<id>:<base64 of 32 bytes>`).
pub const TEST_KEY: &str = "t1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";

/// Environment shared by the processes of one test cluster.
pub struct ClusterEnv {
    pub dir: tempfile::TempDir,
    pub vars: Vec<(String, String)>,
}

impl ClusterEnv {
    pub fn new(db_url: &str, bus_url: &str, prefix: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let vars = vec![
            ("TACKER__DATABASE__URL".into(), db_url.into()),
            ("TACKER__BUS__URL".into(), bus_url.into()),
            ("TACKER__BUS__PREFIX".into(), prefix.into()),
            (
                "TACKER__STORAGE__URL".into(),
                format!("file://{}/store", dir.path().display()),
            ),
            (
                "TACKER__CONDUCTOR__HEARTBEAT_INTERVAL".into(),
                "300ms".into(),
            ),
            ("TACKER__CONDUCTOR__DEAD_AFTER".into(), "2s".into()),
            ("TACKER__SECRETS__KEYS".into(), TEST_KEY.into()),
            // Subscribers and NFVOs of the tests listen on loopback.
            (
                "TACKER__OUTBOUND__ALLOWED_NETWORKS".into(),
                "127.0.0.1/32".into(),
            ),
            ("RUST_LOG".into(), "info".into()),
        ];
        Self { dir, vars }
    }

    pub fn command(&self, extra: &[(&str, String)]) -> Command {
        let mut c = tacker();
        c.current_dir(self.dir.path()).env_remove("RUST_LOG");
        for (k, v) in &self.vars {
            c.env(k, v);
        }
        for (k, v) in extra {
            c.env(k, v);
        }
        c
    }

    pub fn log_path(&self, name: &str) -> PathBuf {
        self.dir.path().join(format!("{name}.log"))
    }
}

/// A running process, killed when dropped.
pub struct Proc {
    pub child: Child,
    pub log: PathBuf,
}

impl Proc {
    pub fn spawn(cmd: &mut Command, log: &Path) -> Self {
        let f = std::fs::File::create(log).unwrap();
        let child = cmd
            .stdout(Stdio::from(f.try_clone().unwrap()))
            .stderr(Stdio::from(f))
            .spawn()
            .unwrap();
        Self {
            child,
            log: log.to_path_buf(),
        }
    }

    pub fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(ok.success());
    }

    /// Waits for the exit; returns the exit code (None when killed by a signal).
    pub fn wait(&mut self, timeout: Duration) -> Option<i32> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "process did not exit; log:\n{}",
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `url` until it answers `status` (or panics after `timeout`).
pub async fn wait_status(http: &reqwest::Client, url: &str, status: u16, timeout: Duration) {
    assert!(
        answers(http, url, status, timeout).await,
        "{url} never answered {status}"
    );
}

/// Polls `url` until it answers `status`; false after `timeout`.
pub async fn answers(http: &reqwest::Client, url: &str, status: u16, timeout: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Ok(r) = http.get(url).send().await
            && r.status().as_u16() == status
        {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `tacker all-in-one` of `env` on a free loopback port, with `config` as its
/// configuration file and `extra` variables, once `/readyz` answers 200 over plain HTTP:
/// the process and its base URL.
pub async fn all_in_one(
    env: &ClusterEnv,
    config: &str,
    extra: &[(&str, String)],
) -> (Proc, String) {
    let path = env.dir.path().join("tacker.toml");
    std::fs::write(&path, config).unwrap();
    let port = free_port();
    let mut vars = vec![("TACKER__SERVER__BIND", format!("127.0.0.1:{port}"))];
    vars.extend(extra.iter().cloned());
    let aio = Proc::spawn(
        env.command(&vars)
            .arg("--config")
            .arg(&path)
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
    (aio, url)
}
