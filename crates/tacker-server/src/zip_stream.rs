//! A zip built while it is sent: entries of a stored CSAR read a chunk at a time from
//! package storage, deflated into a streaming zip (sizes and checksums in data
//! descriptors) on one blocking thread, and answered as they come. A request holds a few
//! chunks in flight, whatever the files' sizes.

use std::io::Write;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use tacker_domain::vnfd::EntryLocation;
use tacker_storage::PackageStore;
use tokio::sync::mpsc;

use crate::entry_stream;

/// Chunks queued between the reader, the zip writer and the answer.
const QUEUE: usize = 4;
/// The size of an answered chunk.
const CHUNK: usize = 64 * 1024;

/// What the reader hands the zip writer.
enum Piece {
    /// A new entry of this name.
    Start(String),
    /// More of the current entry.
    Data(Bytes),
    /// Reading failed: the zip is cut short.
    Failed(String),
}

/// Output of the zip writer, sent on as answer chunks of [`CHUNK`] bytes.
struct Sink {
    out: mpsc::Sender<std::io::Result<Bytes>>,
    buf: Vec<u8>,
}

impl Sink {
    fn send(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
        self.out
            .blocking_send(Ok(chunk))
            .map_err(|_| std::io::Error::other("the client went away"))
    }
}

impl Write for Sink {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.send()
    }
}

/// Writes the zip of what `pieces` brings into `sink`.
fn write_zip(mut pieces: mpsc::Receiver<Piece>, sink: Sink) -> std::io::Result<()> {
    let mut w = zip::ZipWriter::new_stream(sink);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    while let Some(p) = pieces.blocking_recv() {
        match p {
            Piece::Start(name) => w.start_file(name, opts)?,
            Piece::Data(d) => w.write_all(&d)?,
            Piece::Failed(why) => return Err(std::io::Error::other(why)),
        }
    }
    w.finish()?.into_inner().flush()
}

/// The zip of `files` (name, where it lies in the CSAR at `key`), as a stream of chunks;
/// a storage error ends it with an error (the client sees a cut-short answer).
pub fn zipped(
    store: PackageStore,
    key: String,
    files: Vec<(String, EntryLocation)>,
) -> impl Stream<Item = std::io::Result<Bytes>> + Unpin + 'static {
    let (out, answer) = mpsc::channel(QUEUE);
    let (pieces, to_write) = mpsc::channel(QUEUE);
    let failed = out.clone();
    let sink = Sink {
        out,
        buf: Vec::with_capacity(CHUNK),
    };
    tokio::task::spawn_blocking(move || {
        if let Err(e) = write_zip(to_write, sink) {
            let _ = failed.blocking_send(Err(e));
        }
    });
    tokio::spawn(async move {
        for (name, loc) in files {
            if pieces.send(Piece::Start(name)).await.is_err() {
                return;
            }
            let mut s = match entry_stream::open(&store, &key, loc, 0..loc.size).await {
                Ok(s) => s,
                Err(e) => {
                    let _ = pieces.send(Piece::Failed(e.to_string())).await;
                    return;
                }
            };
            while let Some(chunk) = s.next().await {
                let piece = match chunk {
                    Ok(d) => Piece::Data(d),
                    Err(e) => Piece::Failed(e.to_string()),
                };
                let stop = matches!(piece, Piece::Failed(_));
                if pieces.send(piece).await.is_err() || stop {
                    return;
                }
            }
        }
    });
    Box::pin(futures::stream::unfold(answer, |mut rx| async move {
        rx.recv().await.map(|chunk| (chunk, rx))
    }))
}
