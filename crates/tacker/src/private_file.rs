//! Key files, and all-in-one's data, only their owner reads.

use std::path::Path;

use anyhow::Context;

/// Creates `path` (and its directory) with mode 0600 and writes `text`; an existing
/// file is an error, never overwritten.
pub fn create(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("creating {}", path.display()))?;
    f.write_all(text.as_bytes())?;
    Ok(())
}

/// Makes `dir` (created when missing) readable by its owner only (0700).
pub fn private_dir(dir: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .with_context(|| format!("creating {}", dir.display()))?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .with_context(|| format!("making {} private (0700)", dir.display()))
}

/// Makes an SQLite database at `db` private before it is opened: its directory 0700, the
/// file itself 0600 (created empty when missing, so SQLite never makes it 0644), and its
/// journal, WAL and shared-memory files 0600 where they exist (SQLite gives new ones the
/// database file's mode).
pub fn private_sqlite(db: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        private_dir(dir)?;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(db)
        .with_context(|| format!("creating {}", db.display()))?;
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        let path = Path::new(&name);
        if path.exists() {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
                .with_context(|| format!("making {} private (0600)", path.display()))?;
        }
    }
    Ok(())
}
