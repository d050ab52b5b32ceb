//! heat-sim against the real `openstack` CLI (python-heatclient over keystoneauth), with
//! servers as SSH test hosts (run as root).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

mod cli;
