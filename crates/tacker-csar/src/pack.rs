//! Packing a package directory into a CSAR zip (files streamed, never held whole).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;

use crate::error::Result;

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            walk(root, &p, out)?;
        } else if p.is_file() {
            let name = p
                .strip_prefix(root)
                .map_err(std::io::Error::other)?
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            out.push((name, p));
        }
    }
    Ok(())
}

/// Zips every file under `dir` into `out`, `TOSCA-Metadata/TOSCA.meta` first, the rest
/// in name order; returns how many files were packed.
pub fn pack(dir: &Path, out: &Path) -> Result<usize> {
    let mut files = Vec::new();
    walk(dir, dir, &mut files)?;
    files.sort_by(|a, b| {
        let meta = |n: &str| n != "TOSCA-Metadata/TOSCA.meta";
        (meta(&a.0), &a.0).cmp(&(meta(&b.0), &b.0))
    });
    let mut w = zip::ZipWriter::new(BufWriter::new(File::create(out)?));
    let opts = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    for (name, path) in &files {
        w.start_file(name.as_str(), opts)
            .map_err(std::io::Error::other)?;
        std::io::copy(&mut File::open(path)?, &mut w)?;
    }
    w.finish().map_err(std::io::Error::other)?.flush()?;
    Ok(files.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_a_tree_with_the_metadata_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("pkg");
        std::fs::create_dir_all(root.join("TOSCA-Metadata")).unwrap();
        std::fs::create_dir_all(root.join("Definitions")).unwrap();
        std::fs::write(root.join("Definitions/a.yaml"), "a: 1\n").unwrap();
        std::fs::write(root.join("TOSCA-Metadata/TOSCA.meta"), "x").unwrap();
        let out = dir.path().join("p.zip");
        assert_eq!(pack(&root, &out).unwrap(), 2);
        let mut z = zip::ZipArchive::new(File::open(&out).unwrap()).unwrap();
        assert_eq!(
            z.by_index(0).unwrap().name().unwrap(),
            "TOSCA-Metadata/TOSCA.meta"
        );
        assert_eq!(z.by_index(1).unwrap().name().unwrap(), "Definitions/a.yaml");
    }
}
