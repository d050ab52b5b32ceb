#![doc = include_str!("../README.md")]

pub mod client;
pub mod cluster;
pub(crate) mod driver;
mod error;
mod guard;
pub mod helm;
pub mod manifest;
pub mod observe;
pub(crate) mod ops;
mod settings;
pub mod vnfc;
mod wait;

pub use cluster::INSTANCE_LABEL;
pub use driver::KubernetesDriver;
pub use error::{Error, Result};
pub use helm::HelmDriver;
pub use settings::K8sSettings;
