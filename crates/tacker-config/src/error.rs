/// Configuration errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A layer could not be read or parsed, or holds an unknown key or a wrong type.
    #[error("configuration: {0}")]
    Load(String),
    /// Values parsed but are not valid together.
    #[error("invalid configuration:\n  - {}", .0.join("\n  - "))]
    Invalid(Vec<String>),
}

/// Result with the configuration [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
