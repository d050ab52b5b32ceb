//! Conductors against real PostgreSQL/SQLite and RabbitMQ/in-process bus.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

mod lifecycle;
