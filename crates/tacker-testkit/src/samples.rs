//! Upstream Tacker's sample package trees (`shared/reference/tacker-samples`), zipped the
//! way Tacker's own tooling does: the common SOL001 type files added, files the sample
//! omits created, `<Calculated value here>` digests computed.

use std::path::{Path, PathBuf};

use crate::csar::{Csar, sha256};

/// `$TACKER_SAMPLES_DIR`, or `shared/reference/tacker-samples` beside a parent directory.
pub fn samples_dir() -> Option<PathBuf> {
    if let Ok(d) = std::env::var("TACKER_SAMPLES_DIR") {
        return Some(PathBuf::from(d));
    }
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .map(|a| a.join("shared/reference/tacker-samples"))
        .find(|p| p.is_dir())
}

fn add_tree(mut csar: Csar, root: &Path, dir: &Path) -> Csar {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            csar = add_tree(csar, root, &p);
        } else {
            let name = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            csar = csar.with(&name, std::fs::read(&p).unwrap());
        }
    }
    csar
}

/// Zips `contents`, adds `common` type files under Definitions/, creates the files the
/// sample omits (scripts, images) and fills in placeholder digests.
pub fn package(contents: &Path, common: Option<&Path>, missing: &[&str]) -> Csar {
    let mut csar = add_tree(Csar::default(), contents, contents);
    if let Some(common) = common {
        for e in std::fs::read_dir(common).unwrap() {
            let p = e.unwrap().path();
            let name = format!("Definitions/{}", p.file_name().unwrap().to_string_lossy());
            if !csar.files.iter().any(|(n, _)| *n == name) {
                csar = csar.with(&name, std::fs::read(&p).unwrap());
            }
        }
    }
    for m in missing {
        // A Python script (a VNFD's LCM script) that does nothing: reads what it is
        // given on stdin and succeeds, as Tacker runs it.
        let text = if m.ends_with(".py") {
            format!("# placeholder for {m}: does nothing\nimport sys\nsys.stdin.buffer.read()\n")
        } else {
            format!("placeholder for {m}\n")
        };
        csar = csar.with(m, text);
    }
    // TOSCA.meta digests of files we created (or of `<Calculated value here>`).
    let files = csar.files.clone();
    csar.edit("TOSCA-Metadata/TOSCA.meta", |meta| {
        let mut out = String::new();
        let mut current: Option<String> = None;
        for line in meta.lines() {
            if let Some(n) = line.strip_prefix("Name:") {
                current = Some(n.trim().to_owned());
            }
            let fixed = match (line.strip_prefix("Hash:"), &current) {
                (Some(_), Some(name))
                    if missing.contains(&name.as_str()) || line.contains("<Calculated") =>
                {
                    let data = &files.iter().find(|(n, _)| n == name).unwrap().1;
                    format!("Hash: {}", sha256(data))
                }
                _ => line.to_owned(),
            };
            out.push_str(&fixed);
            out.push('\n');
        }
        out
    })
}
