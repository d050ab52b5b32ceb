#![doc = include_str!("../README.md")]

pub mod conductor;
mod error;
pub mod failure;
pub mod fm;
pub mod hot;
mod href;
pub mod lcm;
pub mod mgmt;
pub mod package;
pub mod pkgm;
pub mod pm;
pub mod problem;
pub mod products;
pub mod scope;
pub mod secret;
pub mod sol013;
mod states;
pub mod subscribed;
pub mod uri_guard;
pub mod vim;
pub mod vnfd;

pub use error::{Error, Result};
pub use failure::{Failure, FailureKind};
pub use problem::ProblemDetails;
