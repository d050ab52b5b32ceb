#![doc = include_str!("../README.md")]

mod driver;
mod error;
mod heat;
mod images;
mod nfv;
mod ops;
mod per_vnfc;
mod session;
mod settings;
mod template;
mod vnfc;

pub use driver::{OPENSTACK, OpenStackDriver};
pub use error::{Error, Result};
pub use settings::OpenStackSettings;
