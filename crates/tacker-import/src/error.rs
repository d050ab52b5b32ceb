//! What stops an import as a whole (one object that cannot be imported is skipped and
//! reported in the summary instead).

/// An import failure.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--db` is not a Tacker database URL this import reads.
    #[error("--db: {0}")]
    Url(String),
    /// Tacker's database could not be read.
    #[error("reading Tacker's database: {0}")]
    Source(#[from] mysql::Error),
    /// Tacker's database on PostgreSQL could not be read.
    #[error("reading Tacker's database: {0}")]
    SourcePg(String),
    /// Tacker's database holds something this import does not understand.
    #[error("Tacker's database: {0}")]
    Corrupt(String),
    /// `--vim-keys` or `--csar-dir` is not a readable directory.
    #[error("{0}")]
    Directory(String),
    /// Our database failed.
    #[error("our database: {0}")]
    Db(#[from] tacker_db::Error),
    /// Our package storage failed.
    #[error("our package storage: {0}")]
    Storage(#[from] tacker_storage::Error),
    /// A blocking task did not finish.
    #[error("import task: {0}")]
    Task(String),
}

/// A result of the import.
pub type Result<T> = std::result::Result<T, Error>;
