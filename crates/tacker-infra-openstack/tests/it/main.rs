//! The driver against heat-sim, whose servers are SSH test hosts (needs root for the
//! network namespaces; fails with a clear message without it).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

mod change_vnfpkg;
mod fixture;
mod lifecycle;
mod samples;
