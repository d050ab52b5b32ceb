//! A PostgreSQL primary with a synchronous streaming replica of a test's own
//! (`tests/infra/pg-failover.sh`), on loopback beside the system cluster, stopped when
//! dropped.

use std::path::PathBuf;

use crate::infra::Infra;

/// A running pair.
#[derive(Debug)]
pub struct PgPair {
    infra: Infra,
    /// The libpq multi-host URL (`target_session_attrs=read-write`) of database
    /// `postgres`.
    pub url: String,
}

impl PgPair {
    /// Makes the primary and its replica, streaming synchronously.
    pub fn up() -> Self {
        let infra = Infra::new(
            "pg-failover.sh",
            "PG_FAILOVER_BASE",
            &[21432, 21442, 21452],
            Some("pg"),
        );
        let url = infra.run("up", &[]);
        Self { infra, url }
    }

    /// A file in the pair's directory (gone with it).
    pub fn path(&self, name: &str) -> PathBuf {
        self.infra.path(name)
    }

    /// SIGKILLs the primary's postmaster.
    pub fn kill(&self) {
        self.infra.run("kill", &[]);
    }

    /// Promotes the replica.
    pub fn promote(&self) {
        self.infra.run("promote", &[]);
    }

    /// Stops the current primary (fast shutdown).
    pub fn stop(&self) {
        self.infra.run("stop", &[]);
    }

    /// Starts the current primary again.
    pub fn start(&self) {
        self.infra.run("start", &[]);
    }
}
