//! A three-node RabbitMQ cluster of a test's own (`tests/infra/rabbitmq-cluster.sh`), on
//! loopback beside the system broker, stopped when dropped.

use std::path::PathBuf;
use std::process::Command;

/// A running cluster.
#[derive(Debug)]
pub struct RabbitCluster {
    dir: tempfile::TempDir,
    /// Its nodes' AMQP URLs, comma-separated (a `bus.url`).
    pub urls: String,
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/infra/rabbitmq-cluster.sh")
}

impl RabbitCluster {
    /// Runs the script's `args[0]` on this cluster with the other arguments; its output.
    pub fn run(&self, args: &[&str]) -> String {
        let out = Command::new(script())
            .arg(args[0])
            .arg(self.dir.path())
            .args(&args[1..])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "rabbitmq-cluster.sh {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Starts the three nodes, joined.
    pub fn up() -> Self {
        let dir = tempfile::tempdir().unwrap();
        // The broker's scripts run as root; other users must reach the directory.
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let mut r = Self {
            dir,
            urls: String::new(),
        };
        r.urls = r.run(&["up"]);
        r
    }

    /// The node (`1`..`3`) leading quorum queue `queue`.
    pub fn leader(&self, queue: &str) -> String {
        let n = self.run(&["leader", queue]);
        assert!(
            matches!(n.as_str(), "1" | "2" | "3"),
            "leader of {queue}: {n:?}"
        );
        n
    }

    /// SIGKILLs node `n`.
    pub fn kill(&self, n: &str) {
        self.run(&["kill", n]);
    }

    /// Starts node `n` again on its data.
    pub fn start(&self, n: &str) {
        self.run(&["start", n]);
    }
}

impl Drop for RabbitCluster {
    fn drop(&mut self) {
        let _ = Command::new(script())
            .arg("down")
            .arg(self.dir.path())
            .status();
    }
}
