#![doc = include_str!("../README.md")]

pub mod client;
pub mod cluster;
mod driver;
mod error;
pub mod manifest;
pub mod observe;
mod ops;
mod settings;
pub mod vnfc;
mod wait;

pub use cluster::INSTANCE_LABEL;
pub use driver::KubernetesDriver;
pub use error::{Error, Result};
pub use settings::K8sSettings;
