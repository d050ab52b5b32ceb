//! Package storage over object_store.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt, TryStreamExt};
use object_store::path::Path;
use object_store::{
    GetOptions, GetRange, GetResultPayload, ObjectStore, ObjectStoreExt, WriteMultipart,
};
use sha2::{Digest, Sha512};

use crate::{Error, Result};

/// A stream of content chunks.
pub type ByteStream = BoxStream<'static, Result<Bytes>>;

/// What a completed upload stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// Bytes written.
    pub size: u64,
    /// Lower-case hex SHA-512 of the content (the package checksum users see).
    pub sha512: String,
    /// Lower-case hex BLAKE3 of the content (what caches are checked against: as strong
    /// against corruption, several times faster to verify).
    pub blake3: String,
}

/// Package storage (local filesystem or S3).
#[derive(Clone)]
pub struct PackageStore {
    store: Arc<dyn ObjectStore>,
    describe: String,
    /// The size of an upload's multipart parts.
    part_size: usize,
}

impl std::fmt::Debug for PackageStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe)
    }
}

/// Multipart part size on S3: large enough for S3 (>= 5 MiB), small enough to bound
/// memory.
const S3_PART_SIZE: usize = 8 * 1024 * 1024;

/// Multipart part size on a local directory, which takes parts of any size: an upload
/// holds up to three parts in memory (two written, one filling), so small parts keep a
/// server's memory flat (3 MiB rather than 24 per upload).
const LOCAL_PART_SIZE: usize = 1024 * 1024;

/// How to reach an S3-compatible service (for `s3://` storage URLs).
#[derive(Clone, Default)]
pub struct S3Options {
    /// Endpoint; empty for AWS.
    pub endpoint: String,
    /// Region.
    pub region: String,
    /// Access key id; empty to use the environment's credentials.
    pub access_key_id: String,
    /// Secret access key.
    pub secret_access_key: String,
    /// Allow plain-http endpoints.
    pub allow_http: bool,
}

impl std::fmt::Debug for S3Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Options")
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("access_key_id", &self.access_key_id)
            .finish_non_exhaustive()
    }
}

impl PackageStore {
    /// Opens `file://<dir>` (created when missing) or `s3://bucket[/prefix]`.
    pub fn from_url(url: &str) -> Result<Self> {
        Self::open(url, &S3Options::default())
    }

    /// Opens `file://<dir>` or `s3://bucket[/prefix]` with S3 options.
    pub fn open(url: &str, s3: &S3Options) -> Result<Self> {
        if let Some(dir) = url.strip_prefix("file://").filter(|d| !d.is_empty()) {
            std::fs::create_dir_all(dir)?;
            let fs = object_store::local::LocalFileSystem::new_with_prefix(dir)?
                .with_automatic_cleanup(true);
            return Ok(Self {
                store: Arc::new(fs),
                describe: format!("file://{dir}"),
                part_size: LOCAL_PART_SIZE,
            });
        }
        if let Some(rest) = url.strip_prefix("s3://").filter(|r| !r.is_empty()) {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            let mut b = object_store::aws::AmazonS3Builder::new()
                .with_bucket_name(bucket)
                .with_region(&s3.region)
                .with_allow_http(s3.allow_http);
            if !s3.endpoint.is_empty() {
                b = b.with_endpoint(&s3.endpoint);
            }
            if !s3.access_key_id.is_empty() {
                b = b
                    .with_access_key_id(&s3.access_key_id)
                    .with_secret_access_key(&s3.secret_access_key);
            }
            let s3store = b.build()?;
            let prefix = prefix.trim_matches('/');
            let store: Arc<dyn ObjectStore> = if prefix.is_empty() {
                Arc::new(s3store)
            } else {
                Arc::new(object_store::prefix::PrefixStore::new(s3store, prefix))
            };
            return Ok(Self {
                store,
                describe: format!("s3://{rest}"),
                part_size: S3_PART_SIZE,
            });
        }
        Err(Error::InvalidUrl(format!(
            "{url:?}: expected file://<dir> or s3://<bucket>/<prefix>"
        )))
    }

    /// Wraps any object store (tests).
    pub fn from_store(store: Arc<dyn ObjectStore>, describe: impl Into<String>) -> Self {
        Self {
            store,
            describe: describe.into(),
            part_size: S3_PART_SIZE,
        }
    }

    /// The key of a package's content.
    pub fn package_key(package_id: &str) -> String {
        format!("vnf_packages/{package_id}/package.zip")
    }

    /// Streams `body` into `key`, computing size and SHA-512, failing (and leaving
    /// nothing behind) past `max_size` bytes or when the body fails.
    pub async fn put_stream<S, E>(&self, key: &str, body: S, max_size: u64) -> Result<Stored>
    where
        S: Stream<Item = std::result::Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        let path = Path::from(key);
        let upload = self.store.put_multipart(&path).await?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, self.part_size);
        let outcome = copy_into(&mut writer, body, max_size).await;
        match outcome {
            Ok(stored) => {
                writer.finish().await?;
                Ok(stored)
            }
            Err(e) => {
                if let Err(abort) = writer.abort().await {
                    tracing::warn!(key, error = %abort, "aborting a failed upload failed");
                }
                Err(e)
            }
        }
    }

    /// The size of `key`.
    pub async fn size(&self, key: &str) -> Result<u64> {
        match self.store.head(&Path::from(key)).await {
            Ok(meta) => Ok(meta.size),
            Err(object_store::Error::NotFound { .. }) => Err(Error::NotFound(key.into())),
            Err(e) => Err(e.into()),
        }
    }

    /// Streams `key`, whole or the given byte range (which must lie inside the object).
    pub async fn get_stream(&self, key: &str, range: Option<Range<u64>>) -> Result<ByteStream> {
        if let Some(r) = &range {
            let size = self.size(key).await?;
            if r.start >= r.end || r.end > size {
                return Err(Error::RangeNotSatisfiable { size });
            }
        }
        let opts = GetOptions {
            range: range.map(GetRange::Bounded),
            ..GetOptions::default()
        };
        match self.store.get_opts(&Path::from(key), opts).await {
            Ok(r) => Ok(match r.payload {
                // object_store reads local files 8 KiB at a time; read them in large chunks.
                GetResultPayload::File(file, _) => local_chunks(file, r.range),
                GetResultPayload::Stream(s) => s.map_err(Error::from).boxed(),
            }),
            Err(object_store::Error::NotFound { .. }) => Err(Error::NotFound(key.into())),
            Err(e) => Err(e.into()),
        }
    }

    /// Deletes `key`; deleting what is not there is not an error (idempotent).
    pub async fn delete(&self, key: &str) -> Result<()> {
        match self.store.delete(&Path::from(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

/// Chunk size for reading local files.
const READ_CHUNK: u64 = 1024 * 1024;

/// Streams `range` of a local file in large chunks read on the blocking pool.
fn local_chunks(file: std::fs::File, range: Range<u64>) -> ByteStream {
    let state = (Some(file), range.start, range.end);
    futures::stream::unfold(state, |(file, pos, end)| async move {
        let file = file?;
        if pos >= end {
            return None;
        }
        let n = (end - pos).min(READ_CHUNK);
        let read = tokio::task::spawn_blocking(move || {
            use std::io::{Read, Seek, SeekFrom};
            let mut file = file;
            let mut buf = vec![0u8; usize::try_from(n).unwrap_or(0)];
            file.seek(SeekFrom::Start(pos))?;
            file.read_exact(&mut buf)?;
            Ok::<_, std::io::Error>((file, buf))
        })
        .await;
        match read {
            Ok(Ok((file, buf))) => Some((Ok(Bytes::from(buf)), (Some(file), pos + n, end))),
            Ok(Err(e)) => Some((Err(Error::Io(e)), (None, pos, end))),
            Err(e) => Some((Err(Error::Io(std::io::Error::other(e))), (None, pos, end))),
        }
    })
    .boxed()
}

async fn copy_into<S, E>(writer: &mut WriteMultipart, mut body: S, max_size: u64) -> Result<Stored>
where
    S: Stream<Item = std::result::Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    // SHA-512 (the slow one) runs on a blocking thread beside the upload.
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Bytes>(16);
    let sha = tokio::task::spawn_blocking(move || {
        let mut hasher = Sha512::new();
        while let Some(chunk) = rx.blocking_recv() {
            hasher.update(&chunk);
        }
        hex::encode(hasher.finalize())
    });
    let mut fast = blake3::Hasher::new();
    let mut size: u64 = 0;
    let copied = async {
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|e| Error::Source(e.to_string()))?;
            size += chunk.len() as u64;
            if size > max_size {
                return Err(Error::TooLarge { limit: max_size });
            }
            fast.update(&chunk);
            // Bytes clones share the buffer: the hasher thread reads it in place.
            let _ = tx.send(chunk.clone()).await;
            // Bound memory: at most two parts in flight.
            writer.wait_for_capacity(2).await?;
            writer.put(chunk);
        }
        Ok(())
    }
    .await;
    drop(tx);
    let sha512 = sha.await.map_err(|e| Error::Io(std::io::Error::other(e)))?;
    copied?;
    Ok(Stored {
        size,
        sha512,
        blake3: fast.finalize().to_hex().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(
        parts: &[&'static [u8]],
    ) -> impl Stream<Item = std::result::Result<Bytes, String>> + Unpin {
        futures::stream::iter(
            parts
                .iter()
                .map(|p| Ok(Bytes::from_static(p)))
                .collect::<Vec<_>>(),
        )
    }

    async fn read_all(s: ByteStream) -> Vec<u8> {
        s.try_fold(Vec::new(), |mut v, b| async move {
            v.extend_from_slice(&b);
            Ok(v)
        })
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn put_get_range_delete_on_the_local_filesystem() {
        let dir = tempfile::tempdir().unwrap();
        let s = PackageStore::from_url(&format!("file://{}/pkgs", dir.path().display())).unwrap();
        let key = PackageStore::package_key("p1");
        let stored = s
            .put_stream(&key, chunks(&[b"hello ", b"world"]), 100)
            .await
            .unwrap();
        assert_eq!(stored.size, 11);
        assert_eq!(stored.sha512, hex::encode(Sha512::digest(b"hello world")));
        assert_eq!(
            read_all(s.get_stream(&key, None).await.unwrap()).await,
            b"hello world"
        );
        assert_eq!(
            read_all(s.get_stream(&key, Some(6..11)).await.unwrap()).await,
            b"world"
        );
        assert!(matches!(
            s.get_stream(&key, Some(6..12)).await,
            Err(Error::RangeNotSatisfiable { size: 11 })
        ));
        s.delete(&key).await.unwrap();
        s.delete(&key).await.unwrap();
        assert!(matches!(
            s.get_stream(&key, None).await,
            Err(Error::NotFound(_))
        ));
    }

    #[tokio::test]
    async fn an_upload_of_many_parts_reads_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let s = PackageStore::from_url(&format!("file://{}", dir.path().display())).unwrap();
        // Three and a half local parts, in chunks that straddle the parts' edges.
        let data: Vec<u8> = (0..LOCAL_PART_SIZE * 7 / 2)
            .map(|i| (i % 251) as u8)
            .collect();
        let body = futures::stream::iter(
            data.chunks(100_003)
                .map(|c| Ok::<_, String>(Bytes::copy_from_slice(c)))
                .collect::<Vec<_>>(),
        );
        let stored = s.put_stream("k", body, u64::MAX).await.unwrap();
        assert_eq!(stored.size, data.len() as u64);
        assert_eq!(stored.sha512, hex::encode(Sha512::digest(&data)));
        assert_eq!(read_all(s.get_stream("k", None).await.unwrap()).await, data);
    }

    #[tokio::test]
    async fn oversize_and_failing_uploads_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let s = PackageStore::from_url(&format!("file://{}", dir.path().display())).unwrap();
        let key = PackageStore::package_key("p2");
        let err = s
            .put_stream(&key, chunks(&[b"12345", b"678"]), 6)
            .await
            .unwrap_err();
        assert!(matches!(err, Error::TooLarge { limit: 6 }));
        assert!(matches!(s.size(&key).await, Err(Error::NotFound(_))));
        let failing = futures::stream::iter(vec![
            Ok(Bytes::from_static(b"ab")),
            Err("peer reset".to_owned()),
        ]);
        let err = s.put_stream(&key, failing, 100).await.unwrap_err();
        assert!(err.to_string().contains("peer reset"));
        assert!(matches!(s.size(&key).await, Err(Error::NotFound(_))));
    }
}
