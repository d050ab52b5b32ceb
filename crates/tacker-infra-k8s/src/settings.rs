//! Timeouts and polling.

use std::time::Duration;

/// How the driver waits.
#[derive(Debug, Clone, Copy)]
pub struct K8sSettings {
    /// Longest wait for resources to become ready (instantiate, scale, heal).
    pub ready_timeout: Duration,
    /// Longest wait for resources to be gone (terminate, heal).
    pub delete_timeout: Duration,
    /// Longest pause between two polls (polls start fast and slow down to this).
    pub poll_interval: Duration,
    /// Timeout of one Kubernetes API request.
    pub request_timeout: Duration,
}

impl Default for K8sSettings {
    fn default() -> Self {
        Self {
            ready_timeout: Duration::from_secs(300),
            delete_timeout: Duration::from_secs(300),
            poll_interval: Duration::from_secs(1),
            request_timeout: Duration::from_secs(30),
        }
    }
}
