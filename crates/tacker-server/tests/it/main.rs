//! The REST API over real HTTP, on PostgreSQL and on SQLite.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

mod auth;
mod closed_loop;
mod content;
mod fm;
mod golden;
mod health;
mod lcm;
mod limits;
mod onboarding;
mod openapi;
mod outbound;
mod packages;
mod pkgm;
mod pm;
mod support;
mod tls;
mod upload_from_uri;
mod vims;
