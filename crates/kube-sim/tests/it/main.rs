//! kube-sim against real clients: kubectl (the binary, over TLS with a token) and HTTP.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

mod api;
mod controllers;
mod kubectl;
mod support;
