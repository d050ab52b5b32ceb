//! What can go wrong, and the ProblemDetails status each failure carries.

use std::time::Duration;

use tacker_domain::lcm::driver::DriverError;

/// An OpenStack driver failure.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The VIM connection cannot be used (endpoint, CA, credentials, catalog).
    #[error("OpenStack VIM: {0}")]
    Vim(String),
    /// Keystone refused the credentials.
    #[error("Keystone refused the credentials of {user}: HTTP {status}")]
    Auth {
        /// The user.
        user: String,
        /// Keystone's status.
        status: u16,
    },
    /// The package or the request is wrong (base HOT, parameters).
    #[error("{0}")]
    Package(String),
    /// Heat refused a request.
    #[error("Heat ({status}): {message}")]
    Api {
        /// HTTP status.
        status: u16,
        /// Heat's message.
        message: String,
    },
    /// A stack operation ended FAILED.
    #[error("{reason}")]
    Stack {
        /// `Stack create failed`, ...
        title: String,
        /// Heat's `stack_status_reason`.
        reason: String,
    },
    /// Keystone or Heat could not be reached.
    #[error("OpenStack unreachable: {0}")]
    Unreachable(String),
    /// A stack did not settle in time.
    #[error("timed out after {}s waiting for stack {stack} ({status})", after.as_secs())]
    Timeout {
        /// The stack.
        stack: String,
        /// How long.
        after: Duration,
        /// The last status seen.
        status: String,
    },
    /// The stored VNFCs or the request do not fit.
    #[error("{0}")]
    Invalid(String),
}

impl From<Error> for DriverError {
    fn from(e: Error) -> Self {
        let status = match &e {
            Error::Vim(_) | Error::Package(_) | Error::Invalid(_) => 400,
            Error::Auth { .. } => 401,
            Error::Api { status, .. } => *status,
            Error::Stack { .. } => 422,
            Error::Unreachable(_) => 502,
            Error::Timeout { .. } => 504,
        };
        let de = DriverError::new(status, e.to_string());
        match e {
            Error::Stack { title, .. } => de.with_title(title),
            _ => de,
        }
    }
}

/// Result with the driver [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
