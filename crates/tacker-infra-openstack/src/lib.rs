#![doc = include_str!("../README.md")]

mod driver;
mod error;
pub mod heat;
pub mod nfv;
mod ops;
pub mod session;
mod settings;
pub mod template;
pub mod vnfc;

pub use driver::{OPENSTACK, OpenStackDriver};
pub use error::{Error, Result};
pub use settings::OpenStackSettings;
