//! A PostgreSQL primary with a synchronous streaming replica of a test's own
//! (`tests/infra/pg-failover.sh`), on loopback beside the system cluster, stopped when
//! dropped.

use std::path::PathBuf;
use std::process::Command;

/// A running pair.
#[derive(Debug)]
pub struct PgPair {
    dir: tempfile::TempDir,
    /// The script's `PG_FAILOVER_BASE`: the primary's port, the replica's is the next.
    base: u16,
    /// Held while the pair runs: no other test (of any binary) uses these ports.
    _slot: std::fs::File,
    /// The libpq multi-host URL (`target_session_attrs=read-write`) of database
    /// `postgres`.
    pub url: String,
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/infra/pg-failover.sh")
}

impl PgPair {
    /// Runs the script's `cmd` on this pair; its output.
    fn run(&self, cmd: &str) -> String {
        crate::rabbit::output(
            Command::new(script())
                .env("PG_FAILOVER_BASE", self.base.to_string())
                .arg(cmd)
                .arg(self.dir.path().join("pg")),
        )
    }

    /// Makes the primary and its replica, streaming synchronously.
    pub fn up() -> Self {
        // The servers run as postgres: it must reach the directory.
        let (dir, base, slot) = crate::rabbit::place("pg-pair", &[21432, 21442, 21452]);
        let mut pg = Self {
            dir,
            base,
            _slot: slot,
            url: String::new(),
        };
        pg.url = pg.run("up");
        pg
    }

    /// A file in the pair's directory (gone with it).
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// SIGKILLs the primary's postmaster.
    pub fn kill(&self) {
        self.run("kill");
    }

    /// Promotes the replica.
    pub fn promote(&self) {
        self.run("promote");
    }

    /// Stops the current primary (fast shutdown).
    pub fn stop(&self) {
        self.run("stop");
    }

    /// Starts the current primary again.
    pub fn start(&self) {
        self.run("start");
    }
}

impl Drop for PgPair {
    fn drop(&mut self) {
        let _ = Command::new(script())
            .env("PG_FAILOVER_BASE", self.base.to_string())
            .arg("down")
            .arg(self.dir.path().join("pg"))
            .status();
    }
}
