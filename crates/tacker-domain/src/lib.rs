#![doc = include_str!("../README.md")]

pub mod conductor;
mod error;
mod states;
pub mod package;
pub mod problem;
pub mod sol013;

pub use error::{Error, Result};
pub use problem::ProblemDetails;
