//! A three-node RabbitMQ cluster of a test's own (`tests/infra/rabbitmq-cluster.sh`), on
//! loopback beside the system broker, stopped when dropped.

use crate::infra::Infra;

/// A running cluster.
#[derive(Debug)]
pub struct RabbitCluster {
    infra: Infra,
    /// Its nodes' AMQP URLs, comma-separated (a `bus.url`).
    pub urls: String,
}

impl RabbitCluster {
    /// Runs the script's `args[0]` on this cluster with the other arguments; its output.
    fn run(&self, args: &[&str]) -> String {
        self.infra.run(args[0], &args[1..])
    }

    /// Starts the three nodes, joined.
    pub fn up() -> Self {
        // Port ranges below the ephemeral ports, away from the database pairs' (21432).
        let infra = Infra::new(
            "rabbitmq-cluster.sh",
            "RABBITMQ_CLUSTER_BASE",
            &[21670, 21700, 21730, 21760],
            None,
        );
        let urls = infra.run("up", &[]);
        Self { infra, urls }
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
        self.infra.base() + n
    }

    /// The nodes holding a replica of quorum queue `queue`, e.g. `"1 2 3"`.
    pub fn members(&self, queue: &str) -> String {
        self.run(&["members", queue])
    }
}
