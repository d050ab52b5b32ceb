#![doc = include_str!("../README.md")]

mod bus;
mod error;
mod handler;
mod method;
mod metrics;
mod redacted;
pub mod request_id;
mod serve;
mod transport;

/// Generated protobuf messages of `proto/tacker/rpc/v1`.
#[allow(missing_docs, clippy::all)]
pub mod proto {
    include!(concat!(env!("OUT_DIR"), "/tacker.rpc.v1.rs"));
}

pub use bus::{Bus, BusOptions, Gathered, Target};
pub use error::{Error, Result};
pub use handler::{Handler, HandlerError, Request};
pub use method::Method;
pub use metrics::BusMetrics;
pub use serve::{Source, Subscription};

/// The contract version this build speaks (the `v1` of `tacker.rpc.v1`).
pub const CONTRACT_VERSION: u32 = 1;
