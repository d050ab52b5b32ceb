//! Streaming one file of a stored CSAR by reading its byte range from package storage
//! (inflating when it is deflated): the server never holds the CSAR.

use std::ops::Range;

use async_compression::tokio::bufread::DeflateDecoder;
use futures::{StreamExt, TryStreamExt};
use tacker_domain::vnfd::EntryLocation;
use tacker_storage::{ByteStream, PackageStore};
use tokio::io::AsyncReadExt;
use tokio_util::io::{ReaderStream, StreamReader};

use crate::ApiError;

fn storage_error(e: impl std::fmt::Display) -> ApiError {
    ApiError::Unavailable(format!("package storage: {e}"))
}

/// `range` (within the inflated file) of the entry at `loc` of the CSAR at `key`.
pub async fn open(
    store: &PackageStore,
    key: &str,
    loc: EntryLocation,
    range: Range<u64>,
) -> Result<ByteStream, ApiError> {
    if !loc.deflated {
        let r = loc.offset + range.start..loc.offset + range.end;
        return store.get_stream(key, Some(r)).await.map_err(storage_error);
    }
    let raw = store
        .get_stream(key, Some(loc.offset..loc.offset + loc.stored_size))
        .await
        .map_err(storage_error)?;
    let reader = StreamReader::new(raw.map_err(std::io::Error::other));
    let inflated = DeflateDecoder::new(tokio::io::BufReader::new(reader));
    let mut limited = inflated;
    // Skip to the range start, then take its length.
    let mut to_skip = range.start;
    let mut sink = vec![0u8; 64 * 1024];
    while to_skip > 0 {
        let n = usize::try_from(to_skip.min(sink.len() as u64)).unwrap_or(sink.len());
        let got = limited.read(&mut sink[..n]).await.map_err(storage_error)?;
        if got == 0 {
            return Err(ApiError::Internal(
                "stored entry ends before the requested range".into(),
            ));
        }
        to_skip -= got as u64;
    }
    let body = ReaderStream::new(limited.take(range.end - range.start));
    Ok(body.map(|c| c.map_err(tacker_storage::Error::Io)).boxed())
}
