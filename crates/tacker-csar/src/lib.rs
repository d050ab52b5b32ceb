#![doc = include_str!("../README.md")]

mod archive;
mod digest;
mod error;
mod limits;
mod manifest;
mod meta;
mod pack;
mod paths;
mod tosca;
mod validate;
mod vnfd;
mod yaml;

pub use archive::Archive;
pub use digest::Algorithm;
pub use error::{Error, Problem, Result};
pub use limits::Limits;
pub use pack::pack;
pub use validate::{Validated, validate_file, validate_reader};
