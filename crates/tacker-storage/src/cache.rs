//! A conductor's local CSAR cache: `<dir>/<package id>/package.zip` and `digest` (the
//! BLAKE3 it was checked against), and, once an operation first needs the package's
//! files, the extracted tree beside them in `contents/` (nothing is extracted for a
//! package no operation uses). Entries and trees are built in a temp directory and
//! renamed into place, so a reader never sees half of one.

use std::path::{Path, PathBuf};

use futures::StreamExt;

use crate::{Error, PackageStore, Result};

/// The cache directory of one conductor.
#[derive(Debug, Clone)]
pub struct CsarCache {
    dir: PathBuf,
}

const TMP: &str = ".tmp-";
const TRASH: &str = ".trash-";
/// A tree being extracted, inside a package's directory.
const CONTENTS_TMP: &str = ".contents-";

impl CsarCache {
    /// Opens (creating) the cache at `dir` and removes leftovers of interrupted fills.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir)?;
        for e in std::fs::read_dir(&dir)?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(TMP) || name.starts_with(TRASH) {
                let _ = std::fs::remove_dir_all(e.path());
            } else if e.path().is_dir() {
                for inner in std::fs::read_dir(e.path())?.flatten() {
                    if inner
                        .file_name()
                        .to_string_lossy()
                        .starts_with(CONTENTS_TMP)
                    {
                        let _ = std::fs::remove_dir_all(inner.path());
                    }
                }
            }
        }
        Ok(Self { dir })
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cached CSAR of a package.
    pub fn csar_path(&self, id: &str) -> PathBuf {
        self.dir.join(id).join("package.zip")
    }

    /// The extracted tree of a package.
    pub fn contents_dir(&self, id: &str) -> PathBuf {
        self.dir.join(id).join("contents")
    }

    /// Whether the cache holds package `id` with this content digest.
    pub fn holds(&self, id: &str, digest: &str) -> bool {
        let marker = self.dir.join(id).join("digest");
        self.csar_path(id).is_file()
            && std::fs::read_to_string(marker).is_ok_and(|m| m.trim() == digest)
    }

    /// Package ids present in the cache.
    pub fn list(&self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(&self.dir)?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with('.') && e.path().is_dir() {
                out.push(name);
            }
        }
        out.sort();
        Ok(out)
    }

    /// Streams `key` from `store` into the cache as package `id`, checks its BLAKE3 digest
    /// and moves it into place atomically (nothing is extracted: see [`Self::contents`]).
    pub async fn fill(
        &self,
        id: &str,
        store: &PackageStore,
        key: &str,
        digest: &str,
    ) -> Result<()> {
        let tmp = self
            .dir
            .join(format!("{TMP}{id}-{}", uuid::Uuid::new_v4().simple()));
        let result = self.fill_into(&tmp, store, key, digest).await;
        match result {
            Ok(()) => {
                let target = self.dir.join(id);
                if target.exists() {
                    let trash = self
                        .dir
                        .join(format!("{TRASH}{}", uuid::Uuid::new_v4().simple()));
                    tokio::fs::rename(&target, &trash).await?;
                    let _ = tokio::fs::remove_dir_all(&trash).await;
                }
                tokio::fs::rename(&tmp, &target).await?;
                Ok(())
            }
            Err(e) => {
                let _ = tokio::fs::remove_dir_all(&tmp).await;
                Err(e)
            }
        }
    }

    async fn fill_into(
        &self,
        tmp: &Path,
        store: &PackageStore,
        key: &str,
        digest: &str,
    ) -> Result<()> {
        tokio::fs::create_dir_all(tmp).await?;
        let zip = tmp.join("package.zip");
        // Reading (async) and hashing + writing (one blocking thread) run side by side.
        let (tx, mut rx) = tokio::sync::mpsc::channel::<bytes::Bytes>(8);
        let path = zip.clone();
        let writer = tokio::task::spawn_blocking(move || -> std::io::Result<blake3::Hasher> {
            use std::io::Write;
            let mut out =
                std::io::BufWriter::with_capacity(1024 * 1024, std::fs::File::create(&path)?);
            let mut hasher = blake3::Hasher::new();
            while let Some(chunk) = rx.blocking_recv() {
                hasher.update(&chunk);
                out.write_all(&chunk)?;
            }
            out.flush()?;
            out.get_ref().sync_all()?;
            Ok(hasher)
        });
        let mut body = store.get_stream(key, None).await?;
        let mut read_error = None;
        while let Some(chunk) = body.next().await {
            match chunk {
                Ok(c) => {
                    if tx.send(c).await.is_err() {
                        break;
                    }
                }
                Err(e) => {
                    read_error = Some(e);
                    break;
                }
            }
        }
        drop(tx);
        let hasher = writer
            .await
            .map_err(|e| Error::Io(std::io::Error::other(e)))??;
        if let Some(e) = read_error {
            return Err(e);
        }
        let actual = hasher.finalize().to_hex().to_string();
        if actual != digest {
            return Err(Error::DigestMismatch {
                expected: digest.to_owned(),
                actual,
            });
        }
        tokio::fs::write(tmp.join("digest"), digest).await?;
        Ok(())
    }

    /// The extracted tree of cached package `id`, extracting it with `extract(zip, dest)`
    /// the first time it is asked for. Two callers extracting at once both succeed, one
    /// tree wins.
    pub async fn contents<F, E>(&self, id: &str, extract: F) -> Result<PathBuf>
    where
        F: FnOnce(&Path, &Path) -> std::result::Result<(), E> + Send + 'static,
        E: std::fmt::Display + Send + 'static,
    {
        let target = self.contents_dir(id);
        if target.is_dir() {
            return Ok(target);
        }
        let zip = self.csar_path(id);
        let tmp = self
            .dir
            .join(id)
            .join(format!("{CONTENTS_TMP}{}", uuid::Uuid::new_v4().simple()));
        let t = tmp.clone();
        let extracted = tokio::task::spawn_blocking(move || {
            std::fs::create_dir_all(&t).map_err(|e| e.to_string())?;
            extract(&zip, &t).map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| Error::Extract(e.to_string()))?;
        if let Err(e) = extracted {
            let _ = tokio::fs::remove_dir_all(&tmp).await;
            return Err(Error::Extract(e));
        }
        if let Err(e) = tokio::fs::rename(&tmp, &target).await {
            let _ = tokio::fs::remove_dir_all(&tmp).await;
            if !target.is_dir() {
                return Err(e.into());
            }
        }
        Ok(target)
    }

    /// Removes package `id` from the cache (nothing to do when absent).
    pub async fn remove(&self, id: &str) -> Result<()> {
        let target = self.dir.join(id);
        if !target.exists() {
            return Ok(());
        }
        let trash = self
            .dir
            .join(format!("{TRASH}{}", uuid::Uuid::new_v4().simple()));
        tokio::fs::rename(&target, &trash).await?;
        tokio::fs::remove_dir_all(&trash).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    #[tokio::test]
    async fn fill_checks_the_digest_and_replaces_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let store =
            PackageStore::from_url(&format!("file://{}/store", dir.path().display())).unwrap();
        let key = PackageStore::package_key("p1");
        let body = futures::stream::iter(vec![Ok::<_, String>(Bytes::from_static(b"zipdata"))]);
        let stored = store.put_stream(&key, body, 100).await.unwrap();
        let cache = CsarCache::open(dir.path().join("cache")).unwrap();
        let ok =
            |_: &Path, dest: &Path| std::fs::write(dest.join("f"), "x").map_err(|e| e.to_string());
        cache
            .fill("p1", &store, &key, &stored.blake3)
            .await
            .unwrap();
        assert!(cache.holds("p1", &stored.blake3));
        assert_eq!(std::fs::read(cache.csar_path("p1")).unwrap(), b"zipdata");
        assert!(!cache.contents_dir("p1").exists(), "nothing extracted yet");
        assert_eq!(cache.list().unwrap(), ["p1"]);

        let err = cache.fill("p2", &store, &key, "00").await.unwrap_err();
        assert!(matches!(err, Error::DigestMismatch { .. }));
        assert_eq!(cache.list().unwrap(), ["p1"], "failed fills leave nothing");
        assert_eq!(std::fs::read_dir(cache.dir()).unwrap().count(), 1);

        // Extracted when first asked for, once.
        let failing = |_: &Path, _: &Path| Err("bad zip".to_owned());
        assert!(cache.contents("p1", failing).await.is_err());
        assert!(
            !cache.contents_dir("p1").exists(),
            "a failed extraction leaves nothing"
        );
        let tree = cache.contents("p1", ok).await.unwrap();
        assert!(tree.join("f").is_file());
        let again = cache.contents("p1", failing).await.unwrap();
        assert_eq!(again, tree, "extracted once");
        assert_eq!(
            std::fs::read_dir(cache.dir().join("p1")).unwrap().count(),
            3
        );

        cache.remove("p1").await.unwrap();
        cache.remove("p1").await.unwrap();
        assert!(!cache.holds("p1", &stored.blake3));
    }
}
