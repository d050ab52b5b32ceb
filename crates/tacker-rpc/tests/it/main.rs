//! The bus on real RabbitMQ and on the in-process transport: the same tests on both.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

mod cluster;
mod patterns;
mod queues;
mod reconnect;
mod support;
