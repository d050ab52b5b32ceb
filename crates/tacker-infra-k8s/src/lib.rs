#![doc = include_str!("../README.md")]

mod client;
mod cluster;
pub(crate) mod driver;
mod error;
mod guard;
pub mod helm;
mod manifest;
mod observe;
pub(crate) mod ops;
mod record;
mod settings;
mod vnfc;
mod wait;

pub use client::connect;
pub use cluster::{INSTANCE_LABEL, TACKER_LABEL};
pub use driver::KubernetesDriver;
pub use error::{Error, Result};
pub use helm::HelmDriver;
pub use manifest::VduResource;
pub use record::{HelmRecord, Maker, ManifestRecord};
pub use settings::K8sSettings;
