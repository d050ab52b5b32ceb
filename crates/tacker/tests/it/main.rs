//! The `tacker` binary as real processes against PostgreSQL and RabbitMQ.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking"
)]

mod auth;
mod chaos;
mod cli;
mod closed_loop;
mod cluster;
mod cnf;
mod csar_cmd;
mod failover;
mod hardening;
mod helm;
mod import;
mod keystone;
mod lcm_procs;
mod mgmt;
mod monitoring;
mod onboarding;
pub mod openstack_cli;
mod procs;
pub mod readme;
mod scale;
mod schemathesis;
mod secrets;
mod support;
mod tackerctl;
mod tenancy;
mod vm;
