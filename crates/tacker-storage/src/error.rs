/// Storage errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `storage.url` is not usable.
    #[error("invalid storage url: {0}")]
    InvalidUrl(String),
    /// The object does not exist.
    #[error("object {0} not found")]
    NotFound(String),
    /// The content exceeds the configured cap.
    #[error("content exceeds the limit of {limit} bytes")]
    TooLarge {
        /// The cap in bytes.
        limit: u64,
    },
    /// The source stream failed while it was being stored.
    #[error("reading the content failed: {0}")]
    Source(String),
    /// The requested byte range lies outside the object.
    #[error("range not satisfiable for an object of {size} bytes")]
    RangeNotSatisfiable {
        /// The object's size.
        size: u64,
    },
    /// The backend failed.
    #[error("storage backend: {0}")]
    Backend(#[from] object_store::Error),
    /// Content does not have the digest it should.
    #[error("digest mismatch: expected {expected}, got {actual}")]
    DigestMismatch {
        /// What the package record says.
        expected: String,
        /// What was read.
        actual: String,
    },
    /// Extracting a cached CSAR failed.
    #[error("extracting the package: {0}")]
    Extract(String),
    /// Local file I/O failed.
    #[error("storage i/o: {0}")]
    Io(#[from] std::io::Error),
}

/// Result with the storage [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
