//! A conductor's local CSAR cache: `<dir>/<package id>/package.zip`, the extracted tree
//! beside it in `contents/`, and `sha512` (what it was checked against). Entries are
//! built in a temp directory and renamed into place, so a reader never sees half of one.

use std::path::{Path, PathBuf};

use futures::StreamExt;
use sha2::{Digest, Sha512};
use tokio::io::AsyncWriteExt;

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

    /// Whether the cache holds package `id` with this SHA-512.
    pub fn holds(&self, id: &str, sha512: &str) -> bool {
        let marker = self.dir.join(id).join("sha512");
        self.csar_path(id).is_file()
            && std::fs::read_to_string(marker).is_ok_and(|m| m.trim() == sha512)
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

    /// Streams `key` from `store` into the cache as package `id`, checks its SHA-512,
    /// extracts it with `extract(zip, dest)` and moves it into place atomically.
    pub async fn fill<F>(
        &self,
        id: &str,
        store: &PackageStore,
        key: &str,
        sha512: &str,
        extract: F,
    ) -> Result<()>
    where
        F: FnOnce(&Path, &Path) -> std::result::Result<(), String> + Send + 'static,
    {
        let tmp = self
            .dir
            .join(format!("{TMP}{id}-{}", uuid::Uuid::new_v4().simple()));
        let result = self.fill_into(&tmp, store, key, sha512, extract).await;
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
        sha512: &str,
        extract: F,
    ) -> Result<()>
    where
        F: FnOnce(&Path, &Path) -> std::result::Result<(), String> + Send + 'static,
    {
        tokio::fs::create_dir_all(tmp).await?;
        let zip = tmp.join("package.zip");
        let mut out = tokio::fs::File::create(&zip).await?;
        let mut hasher = Sha512::new();
        let mut body = store.get_stream(key, None).await?;
        while let Some(chunk) = body.next().await {
            let chunk = chunk?;
            hasher.update(&chunk);
            out.write_all(&chunk).await?;
        }
        out.sync_all().await?;
        drop(out);
        let actual = hex::encode(hasher.finalize());
        if actual != sha512 {
            return Err(Error::DigestMismatch {
                expected: sha512.to_owned(),
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
        tokio::fs::write(tmp.join("sha512"), sha512).await?;
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
            .fill("p1", &store, &key, &stored.sha512, ok)
            .await
            .unwrap();
        assert!(cache.holds("p1", &stored.sha512));
        assert_eq!(std::fs::read(cache.csar_path("p1")).unwrap(), b"zipdata");
        assert!(cache.contents_dir("p1").join("f").is_file());
        assert_eq!(cache.list().unwrap(), ["p1"]);

        let err = cache.fill("p2", &store, &key, "00", ok).await.unwrap_err();
        assert!(matches!(err, Error::DigestMismatch { .. }));
        let failing = |_: &Path, _: &Path| Err("bad zip".to_owned());
        assert!(
            cache
                .fill("p3", &store, &key, &stored.sha512, failing)
                .await
                .is_err()
        );
        assert_eq!(cache.list().unwrap(), ["p1"], "failed fills leave nothing");
        assert_eq!(std::fs::read_dir(cache.dir()).unwrap().count(), 1);

        cache.remove("p1").await.unwrap();
        cache.remove("p1").await.unwrap();
        assert!(!cache.holds("p1", &stored.sha512));
    }
}
