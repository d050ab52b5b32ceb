//! The HTTP surface: Keystone, Heat, and the simulator's own controls under `/sim`.

pub mod admin;
pub mod heat;
pub mod nova;
