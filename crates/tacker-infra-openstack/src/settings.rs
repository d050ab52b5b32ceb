//! Timeouts and polling (the `[openstack]` section).

use std::time::Duration;

/// How the driver talks to Keystone and Heat, and how long it waits.
#[derive(Debug, Clone, Copy)]
pub struct OpenStackSettings {
    /// Timeout of one Keystone or Heat request.
    pub request_timeout: Duration,
    /// Longest a stack create, update or delete may take (also Heat's `timeout_mins`).
    pub stack_timeout: Duration,
    /// Longest pause between two polls of a stack (polls start fast and slow down to it).
    pub poll_interval: Duration,
}

impl OpenStackSettings {
    /// The settings of `[openstack]`.
    pub fn from_config(o: &tacker_config::OpenStackConfig) -> Self {
        Self {
            request_timeout: o.request_timeout,
            stack_timeout: o.stack_timeout,
            poll_interval: o.poll_interval,
        }
    }
}
