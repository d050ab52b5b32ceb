//! What can go wrong in a management driver; mapped once to the occurrence's
//! ProblemDetails (through [`DriverError`]).

use std::time::Duration;

use tacker_domain::Failure;
use tacker_domain::lcm::driver::DriverError;

/// A management driver failure. Texts never carry a password: command output is
/// masked before it gets here.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The VM did not answer on SSH within the boot timeout.
    #[error("{node}: SSH to {address} unreachable after {waited:?} of retries: {cause}")]
    Unreachable {
        /// The VNFC (or node) name.
        node: String,
        /// `ip:port`.
        address: String,
        /// How long it was retried.
        waited: Duration,
        /// The last error.
        cause: String,
    },
    /// The login was refused.
    #[error("{node}: SSH authentication as {user} at {address} was refused")]
    Auth {
        /// The VNFC.
        node: String,
        /// The login.
        user: String,
        /// `ip:port`.
        address: String,
    },
    /// The host presented another key than the one pinned for it.
    #[error(
        "{node}: the SSH host key of {address} ({seen}) is not the one pinned on first contact; \
         set ssh.accept_changed_host_keys if the VM was replaced outside Tacker"
    )]
    HostKey {
        /// The VNFC.
        node: String,
        /// `ip:port`.
        address: String,
        /// The key presented.
        seen: String,
    },
    /// A remote command failed.
    #[error("{node}: {step} failed (exit status {status}): {stderr}")]
    Command {
        /// The VNFC.
        node: String,
        /// What it was doing.
        step: String,
        /// Exit status.
        status: u32,
        /// Its stderr (or stdout when stderr is empty), masked and shortened.
        stderr: String,
    },
    /// A remote command or transfer took too long.
    #[error("{node}: {step} timed out after {after:?}")]
    Timeout {
        /// The VNFC.
        node: String,
        /// What it was doing.
        step: String,
        /// The limit.
        after: Duration,
    },
    /// The SSH or SFTP session broke.
    #[error("{node}: SSH: {cause}")]
    Ssh {
        /// The VNFC.
        node: String,
        /// What broke.
        cause: String,
    },
    /// Parameters or the instance do not allow the hook to run.
    #[error("{0}")]
    Invalid(String),
    /// A file of the package could not be read.
    #[error("package file {path}: {cause}")]
    Package {
        /// Its path in the package.
        path: String,
        /// Why.
        cause: String,
    },
    /// An out-of-process driver could not be called.
    #[error("management driver {endpoint}: {cause}")]
    Plugin {
        /// Its endpoint.
        endpoint: String,
        /// Why.
        cause: String,
    },
    /// An out-of-process driver answered a ProblemDetails.
    #[error("{detail}")]
    Refused {
        /// Its status.
        status: u16,
        /// Its title.
        title: String,
        /// Its detail.
        detail: String,
    },
    /// The conductor's services (VIM registry, host keys) failed.
    #[error("{0}")]
    Services(DriverError),
}

/// The title of every management driver failure.
pub const TITLE: &str = "Mgmt driver execution failed";

impl From<Failure> for Error {
    fn from(f: Failure) -> Self {
        Error::Invalid(f.detail)
    }
}

impl From<Error> for DriverError {
    fn from(e: Error) -> Self {
        match e {
            Error::Refused {
                status,
                title,
                detail,
            } => DriverError::new(status, detail).with_title(if title.is_empty() {
                TITLE.to_owned()
            } else {
                title
            }),
            Error::Services(d) => d,
            Error::Invalid(_) => DriverError::new(422, e.to_string()).with_title(TITLE),
            Error::Unreachable { .. } | Error::Timeout { .. } | Error::Plugin { .. } => {
                DriverError::new(504, e.to_string()).with_title(TITLE)
            }
            other => DriverError::new(500, other.to_string()).with_title(TITLE),
        }
    }
}

/// Result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
