/// Bus errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `bus.url` is not usable.
    #[error("invalid bus url: {0}")]
    InvalidUrl(String),
    /// The broker could not be reached or did not confirm within the deadline.
    #[error("bus unavailable: {0}")]
    Unavailable(String),
    /// The broker refused a message (nack, or unroutable to a named member).
    #[error("message not accepted: {0}")]
    Rejected(String),
    /// A call got no reply before its deadline.
    #[error("no reply to {method} within {timeout:?}")]
    Timeout {
        /// The request's method.
        method: String,
        /// The deadline it had.
        timeout: std::time::Duration,
    },
    /// The remote handler failed.
    #[error("{responder} failed to handle the request: {message}")]
    Remote {
        /// The member that answered.
        responder: String,
        /// Its error text.
        message: String,
    },
    /// A message could not be decoded.
    #[error("undecodable message: {0}")]
    Decode(#[from] prost::DecodeError),
}

/// Result with the bus [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
