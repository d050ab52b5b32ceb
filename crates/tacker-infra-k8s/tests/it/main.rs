//! The driver against kube-sim (always) and against a real cluster (`KUBECONFIG`, run
//! with `--ignored`): the same lifecycle either way.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

mod fixture;
mod helm;
mod lifecycle;
