#![doc = include_str!("../README.md")]

mod error;
mod store;

pub use error::{Error, Result};
pub use store::{ByteStream, PackageStore, Stored};
