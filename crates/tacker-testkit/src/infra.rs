//! A service of a test's own run by one of `tests/infra`'s scripts (`<script> <command>
//! <state dir> [args]`): a state directory the services' users reach, a port range no
//! other running test holds (of any binary; the script reads its base from an
//! environment variable), and the script's `down` when dropped.

use std::fs::File;
use std::path::PathBuf;
use std::process::Command;

/// A script bound to its state and ports.
#[derive(Debug)]
pub(crate) struct Infra {
    script: PathBuf,
    /// The environment variable naming the port range's base, and the base.
    base: (&'static str, u16),
    dir: tempfile::TempDir,
    /// The directory handed to the script (the state directory or one below it).
    state: PathBuf,
    /// Held while the service runs: the lock on its port range.
    _slot: File,
}

impl Infra {
    /// `script` (a file of `tests/infra`) on a new state directory (`sub` below it when
    /// given), with the first free base of `bases` in `base_var`.
    pub(crate) fn new(
        script: &str,
        base_var: &'static str,
        bases: &[u16],
        sub: Option<&str>,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        // The scripts start services as other users (postgres, rabbitmq): they must
        // reach the directory.
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let (base, slot) = port_slot(script, bases);
        let state = sub.map_or_else(|| dir.path().to_path_buf(), |s| dir.path().join(s));
        Self {
            script: PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/infra")
                .join(script),
            base: (base_var, base),
            dir,
            state,
            _slot: slot,
        }
    }

    /// The port range's base.
    pub(crate) fn base(&self) -> u16 {
        self.base.1
    }

    /// A file in the state directory (gone with it).
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn command(&self, cmd: &str) -> Command {
        let mut c = Command::new(&self.script);
        c.env(self.base.0, self.base.1.to_string())
            .arg(cmd)
            .arg(&self.state);
        c
    }

    /// Runs the script's `cmd` with `args`; what it printed (panics with its stderr when
    /// it fails).
    pub(crate) fn run(&self, cmd: &str, args: &[&str]) -> String {
        let mut c = self.command(cmd);
        let out = c.args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{} {cmd} {args:?}: {}",
            self.script.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }
}

impl Drop for Infra {
    fn drop(&mut self) {
        let _ = self.command("down").status();
    }
}

/// One of `bases` no other running test holds, locked by a file named after `kind`:
/// the first free one, else the first one once it is free.
fn port_slot(kind: &str, bases: &[u16]) -> (u16, File) {
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
