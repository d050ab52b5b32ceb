//! Failures, and the exit status each one gives scripts.

/// A tackerctl failure.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server answered with an error (ProblemDetails).
    #[error("{status} {title}: {detail}")]
    Api {
        /// HTTP status.
        status: u16,
        /// Problem title.
        title: String,
        /// Problem detail.
        detail: String,
    },
    /// The server could not be reached.
    #[error("cannot reach {url}: {reason}")]
    Unreachable {
        /// The API base URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// An awaited operation or onboarding ended badly.
    #[error("{0}")]
    Ended(String),
    /// Waiting took longer than allowed.
    #[error("{0}")]
    Timeout(String),
    /// Local input or output failed (files, configuration).
    #[error("{0}")]
    Local(String),
    /// Whoever read the output stopped reading (`tackerctl ... | head`): not a failure.
    #[error("output closed")]
    OutputClosed,
}

impl Error {
    /// The exit status: 1 refused or ended badly, 3 unreachable, 4 timed out, 5 local,
    /// 0 when the reader closed the output.
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::OutputClosed => 0,
            Self::Api { .. } | Self::Ended(_) => 1,
            Self::Unreachable { .. } => 3,
            Self::Timeout(_) => 4,
            Self::Local(_) => 5,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return Self::OutputClosed;
        }
        Self::Local(e.to_string())
    }
}

/// Results of tackerctl.
pub type Result<T, E = Error> = std::result::Result<T, E>;
