//! tacker-csar on generated packages (valid, invalid, hostile) and on the reference samples.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

mod fixtures;
mod hostile;
mod reads;
mod rejects;
mod samples;
