//! The REST API over real HTTP, on PostgreSQL and on SQLite.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod health;
mod packages;
mod support;
