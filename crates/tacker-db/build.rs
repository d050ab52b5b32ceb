//! Fingerprints the migration files so test templates are rebuilt when they change.
use std::hash::{Hash, Hasher};
use std::path::Path;

fn walk(dir: &Path, h: &mut std::collections::hash_map::DefaultHasher) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, h);
        } else if let Ok(bytes) = std::fs::read(&p) {
            p.to_string_lossy().hash(h);
            bytes.hash(h);
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=migrations");
    let mut h = std::collections::hash_map::DefaultHasher::new();
    walk(Path::new("migrations"), &mut h);
    println!("cargo:rustc-env=TACKER_MIGRATIONS_HASH={:016x}", h.finish());
}
