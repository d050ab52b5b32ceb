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
    /// Several nodes failed (each for its own reason; the same command failing alike on
    /// several nodes is said once, naming them).
    #[error("{} of {of} nodes failed: {}", failed.len(), summary(failed))]
    Nodes {
        /// How many nodes the work was on.
        of: usize,
        /// The failures.
        failed: Vec<Error>,
    },
}

/// The failures of several nodes, a command that failed alike on several said once.
fn summary(failed: &[Error]) -> String {
    let mut parts: Vec<(String, Vec<&str>)> = Vec::new();
    for e in failed {
        match e {
            Error::Command {
                node,
                step,
                status,
                stderr,
            } => {
                let what = format!("{step} failed (exit status {status}): {stderr}");
                match parts.iter_mut().find(|(w, _)| *w == what) {
                    Some((_, nodes)) => nodes.push(node),
                    None => parts.push((what, vec![node])),
                }
            }
            other => parts.push((other.to_string(), Vec::new())),
        }
    }
    parts
        .into_iter()
        .map(|(what, nodes)| match nodes.as_slice() {
            [] => what,
            [one] => format!("{one}: {what}"),
            many => format!("{} on {}", what, many.join(", ")),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

impl Error {
    /// The status of the occurrence's ProblemDetails: 422 for what the parameters or
    /// the instance do not allow, 504 for what did not answer in time, the plugin's own,
    /// 500 for the rest; several nodes' failures share theirs when they agree (else 500).
    pub fn status(&self) -> u16 {
        match self {
            Error::Refused { status, .. } => *status,
            Error::Services(d) => d.status,
            Error::Invalid(_) => 422,
            Error::Unreachable { .. } | Error::Timeout { .. } | Error::Plugin { .. } => 504,
            Error::Nodes { failed, .. } => {
                let mut statuses = failed.iter().map(Error::status);
                let first = statuses.next().unwrap_or(500);
                if statuses.all(|s| s == first) {
                    first
                } else {
                    500
                }
            }
            _ => 500,
        }
    }
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
            other => DriverError::new(other.status(), other.to_string()).with_title(TITLE),
        }
    }
}

/// Result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::Error;

    fn command(node: &str, status: u32, stderr: &str) -> Error {
        Error::Command {
            node: node.into(),
            step: "installing Docker".into(),
            status,
            stderr: stderr.into(),
        }
    }

    #[test]
    fn several_nodes_failing_alike_are_said_once_with_their_cause_and_status() {
        let e = Error::Nodes {
            of: 3,
            failed: vec![
                command("workerNode-0", 100, "E: no network"),
                command("workerNode-1", 100, "E: no network"),
                command("masterNode-0", 1, "disk full"),
            ],
        };
        assert_eq!(
            e.to_string(),
            "3 of 3 nodes failed: installing Docker failed (exit status 100): E: no network \
             on workerNode-0, workerNode-1; masterNode-0: installing Docker failed (exit status \
             1): disk full"
        );
        assert!(!e.to_string().contains("SSH"));
        assert_eq!(e.status(), 500);
        let refused = Error::Nodes {
            of: 2,
            failed: vec![Error::Invalid("a".into()), Error::Invalid("b".into())],
        };
        assert_eq!(refused.status(), 422);
        let mixed = Error::Nodes {
            of: 2,
            failed: vec![Error::Invalid("a".into()), command("n", 1, "x")],
        };
        assert_eq!(mixed.status(), 500);
    }
}
