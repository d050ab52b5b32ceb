//! What can go wrong, and the ProblemDetails status each failure carries.

use std::time::Duration;

use tacker_domain::lcm::driver::DriverError;

/// A Kubernetes driver failure.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The VIM connection cannot be used (endpoint, CA, credentials).
    #[error("Kubernetes VIM: {0}")]
    Vim(String),
    /// The request or the package's manifests are wrong.
    #[error("{0}")]
    Manifest(String),
    /// The Kubernetes API refused a request.
    #[error("Kubernetes API ({code} {reason}): {message}")]
    Api {
        /// HTTP status.
        code: u16,
        /// Status reason.
        reason: String,
        /// The API's message.
        message: String,
    },
    /// The Kubernetes API could not be reached.
    #[error("Kubernetes API unreachable: {0}")]
    Unreachable(String),
    /// Something did not happen in time.
    #[error("timed out after {}s waiting for {what}{}", after.as_secs_f32(), if state.is_empty() { String::new() } else { format!(" ({state})") })]
    Timeout {
        /// What was awaited.
        what: String,
        /// How long.
        after: Duration,
        /// The last state seen.
        state: String,
    },
    /// Stored VNFCs no longer match the cluster.
    #[error("{0}")]
    Stale(String),
    /// The request goes beyond what the VNFD allows.
    #[error("{0}")]
    Invalid(String),
    /// A helm command failed (what Helm said, secrets masked).
    #[error("{0}")]
    Helm(String),
    /// The configuration forbids it (`kubernetes.denied_namespaces`, `cluster_scoped`):
    /// refused before anything was created.
    #[error("{0}")]
    Refused(String),
}

impl Error {
    /// Whether it is the API's 404.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::Api { code: 404, .. })
    }

    /// The API's refusal with what was being done put before its message (other
    /// errors as they are).
    pub fn context(self, doing: impl std::fmt::Display) -> Self {
        match self {
            Self::Api {
                code,
                reason,
                message,
            } => Self::Api {
                code,
                reason,
                message: format!("{doing}: {message}"),
            },
            other => other,
        }
    }

    /// Whether it is the API's 409 AlreadyExists.
    pub fn is_already_exists(&self) -> bool {
        matches!(self, Self::Api { code: 409, reason, .. } if reason == "AlreadyExists")
    }
}

/// A request parameter of the wrong shape (checked again where it is read).
impl From<tacker_domain::Failure> for Error {
    fn from(f: tacker_domain::Failure) -> Self {
        Self::Manifest(f.detail)
    }
}

impl From<kube::Error> for Error {
    fn from(e: kube::Error) -> Self {
        match e {
            kube::Error::Api(s) => Self::Api {
                code: s.code,
                reason: s.reason.clone(),
                message: s.message.clone(),
            },
            other => Self::Unreachable(with_causes(&other)),
        }
    }
}

/// An error and its causes (`client error (Connect): ...: localhost: 127.0.0.1 is a
/// loopback address; ...`), each said once.
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let said = c.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = c.source();
    }
    text
}

impl From<Error> for DriverError {
    fn from(e: Error) -> Self {
        let status = match &e {
            Error::Vim(_) | Error::Manifest(_) | Error::Invalid(_) => 400,
            Error::Refused(_) => 403,
            Error::Api { code, .. } if (400..600).contains(code) => *code,
            Error::Api { .. } | Error::Unreachable(_) | Error::Helm(_) => 502,
            Error::Timeout { .. } => 504,
            Error::Stale(_) => 409,
        };
        DriverError::new(status, e.to_string())
    }
}

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
