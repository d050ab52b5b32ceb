//! A conductor's local CSAR cache: `<dir>/<package id>/package.zip`, the extracted tree
//! beside it in `contents/`, and `digest` (the BLAKE3 it was checked against). Entries are
//! built in a temp directory and renamed into place, so a reader never sees half of one.

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

impl CsarCache {
    /// Opens (creating) the cache at `dir` and removes leftovers of interrupted fills.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir)?;
        for e in std::fs::read_dir(&dir)?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(TMP) || name.starts_with(TRASH) {
                let _ = std::fs::remove_dir_all(e.path());
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

    /// Streams `key` from `store` into the cache as package `id`, checks its BLAKE3 digest,
    /// extracts it with `extract(zip, dest)` and moves it into place atomically.
    pub async fn fill<F>(
        &self,
        id: &str,
        store: &PackageStore,
        key: &str,
        digest: &str,
        extract: F,
    ) -> Result<()>
    where
        F: FnOnce(&Path, &Path) -> std::result::Result<(), String> + Send + 'static,
    {
        let tmp = self
            .dir
            .join(format!("{TMP}{id}-{}", uuid::Uuid::new_v4().simple()));
        let result = self.fill_into(&tmp, store, key, digest, extract).await;
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

    async fn fill_into<F>(
        &self,
        tmp: &Path,
        store: &PackageStore,
        key: &str,
        digest: &str,
        extract: F,
    ) -> Result<()>
    where
        F: FnOnce(&Path, &Path) -> std::result::Result<(), String> + Send + 'static,
    {
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
        let contents = tmp.join("contents");
        let (z, c) = (zip.clone(), contents.clone());
        tokio::task::spawn_blocking(move || {
            std::fs::create_dir_all(&c).map_err(|e| e.to_string())?;
            extract(&z, &c)
        })
        .await
        .map_err(|e| Error::Extract(e.to_string()))?
        .map_err(Error::Extract)?;
        tokio::fs::write(tmp.join("digest"), digest).await?;
        Ok(())
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
            .fill("p1", &store, &key, &stored.blake3, ok)
            .await
            .unwrap();
        assert!(cache.holds("p1", &stored.blake3));
        assert_eq!(std::fs::read(cache.csar_path("p1")).unwrap(), b"zipdata");
        assert!(cache.contents_dir("p1").join("f").is_file());
        assert_eq!(cache.list().unwrap(), ["p1"]);

        let err = cache.fill("p2", &store, &key, "00", ok).await.unwrap_err();
        assert!(matches!(err, Error::DigestMismatch { .. }));
        let failing = |_: &Path, _: &Path| Err("bad zip".to_owned());
        assert!(
            cache
                .fill("p3", &store, &key, &stored.blake3, failing)
                .await
                .is_err()
        );
        assert_eq!(cache.list().unwrap(), ["p1"], "failed fills leave nothing");
        assert_eq!(std::fs::read_dir(cache.dir()).unwrap().count(), 1);

        cache.remove("p1").await.unwrap();
        cache.remove("p1").await.unwrap();
        assert!(!cache.holds("p1", &stored.blake3));
    }
}
