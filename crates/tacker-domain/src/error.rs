/// Errors raised by the pure domain logic.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A state or enum value read from storage or a request is not one we know.
    #[error("unknown {kind} value {value:?}")]
    UnknownValue {
        /// What kind of value (e.g. "onboardingState").
        kind: &'static str,
        /// The offending text.
        value: String,
    },
    /// A SOL013 `filter` expression could not be parsed or names an unknown attribute.
    #[error("invalid filter: {0}")]
    InvalidFilter(String),
    /// A SOL013 attribute selector (`fields`, `exclude_fields`, ...) is invalid.
    #[error("invalid attribute selector: {0}")]
    InvalidSelector(String),
    /// A paging marker (`nextpage_opaque_marker`) is not one we issued.
    #[error("invalid nextpage_opaque_marker")]
    InvalidMarker,
}

/// Result with the domain [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
