//! The driver against heat-sim, whose servers are SSH test hosts (needs root for the
//! network namespaces; fails with a clear message without it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod fixture;
mod lifecycle;
mod samples;
