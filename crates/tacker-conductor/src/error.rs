/// Conductor errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The database failed.
    #[error(transparent)]
    Db(#[from] tacker_db::Error),
    /// The bus failed.
    #[error(transparent)]
    Bus(#[from] tacker_rpc::Error),
    /// Package storage failed.
    #[error(transparent)]
    Storage(#[from] tacker_storage::Error),
    /// Local file I/O failed.
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// Filling the CSAR cache failed.
    #[error("cache: {0}")]
    Cache(String),
    /// Prometheus rules could not be delivered, or Alertmanager not read.
    #[error("{0}")]
    Monitoring(String),
    /// A setting is invalid.
    #[error("configuration: {0}")]
    Config(String),
    /// Metrics could not be registered.
    #[error("metrics: {0}")]
    Metrics(#[from] prometheus::Error),
}

/// Result with the conductor [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
