//! The SSH layer against a real sshd (an SSH test host in a network namespace: these
//! tests run as root).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

mod ssh;
