//! A three-node RabbitMQ cluster of a test's own (`tests/infra/rabbitmq-cluster.sh`), on
//! loopback beside the system broker, stopped when dropped.

use std::path::PathBuf;
use std::process::Command;

/// A running cluster.
#[derive(Debug)]
pub struct RabbitCluster {
    dir: tempfile::TempDir,
    /// The script's `RABBITMQ_CLUSTER_BASE`: its ports are the next 20 above.
    base: u16,
    /// Held while the cluster runs: no other test (of any binary) uses these ports.
    _slot: std::fs::File,
    /// Its nodes' AMQP URLs, comma-separated (a `bus.url`).
    pub urls: String,
}

/// The port ranges clusters may use (below the ephemeral ports, away from the
/// PostgreSQL failover pairs from 21432).
const BASES: [u16; 4] = [21670, 21700, 21730, 21760];

/// One of `bases` no other running test holds (of any binary), locked by a file named
/// after `kind`: the first free one, else the first one once it is free.
pub(crate) fn port_slot(kind: &str, bases: &[u16]) -> (u16, std::fs::File) {
    let open = |base: u16| {
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(std::env::temp_dir().join(format!("tacker-{kind}-{base}.lock")))
            .unwrap()
    };
    for &base in bases {
        let f = open(base);
        if f.try_lock().is_ok() {
            return (base, f);
        }
    }
    let f = open(bases[0]);
    f.lock().unwrap();
    (bases[0], f)
}

/// A state directory the services' users reach (mode 755) and a locked port range of
/// `bases` (see [`port_slot`]).
pub(crate) fn place(kind: &str, bases: &[u16]) -> (tempfile::TempDir, u16, std::fs::File) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let (base, slot) = port_slot(kind, bases);
    (dir, base, slot)
}

/// What `cmd` (a test infrastructure script) printed; panics with its stderr when it fails.
pub(crate) fn output(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/infra/rabbitmq-cluster.sh")
}

impl RabbitCluster {
    /// Runs the script's `args[0]` on this cluster with the other arguments; its output.
    pub fn run(&self, args: &[&str]) -> String {
        output(
            Command::new(script())
                .env("RABBITMQ_CLUSTER_BASE", self.base.to_string())
                .arg(args[0])
                .arg(self.dir.path())
                .args(&args[1..]),
        )
    }

    /// Starts the three nodes, joined.
    pub fn up() -> Self {
        let (dir, base, slot) = place("rabbit-cluster", &BASES);
        let mut r = Self {
            dir,
            base,
            _slot: slot,
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

    /// SIGKILLs node `n` and deletes its data directory (a lost disk).
    pub fn wipe(&self, n: &str) {
        self.run(&["wipe", n]);
    }

    /// Brings node `n` back empty: forgotten by the others, joined, every quorum queue
    /// grown back onto it.
    pub fn rejoin(&self, n: &str) {
        self.run(&["rejoin", n]);
    }

    /// Node `n`'s AMQP port.
    pub fn port(&self, n: u16) -> u16 {
        self.base + n
    }

    /// The nodes holding a replica of quorum queue `queue`, e.g. `"1 2 3"`.
    pub fn members(&self, queue: &str) -> String {
        self.run(&["members", queue])
    }
}

impl Drop for RabbitCluster {
    fn drop(&mut self) {
        let _ = Command::new(script())
            .env("RABBITMQ_CLUSTER_BASE", self.base.to_string())
            .arg("down")
            .arg(self.dir.path())
            .status();
    }
}
