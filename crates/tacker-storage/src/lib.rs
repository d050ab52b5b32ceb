#![doc = include_str!("../README.md")]

mod cache;
mod error;
mod store;

pub use cache::CsarCache;
pub use error::{Error, Result};
pub use store::{ByteStream, PackageStore, S3Options, Stored};
