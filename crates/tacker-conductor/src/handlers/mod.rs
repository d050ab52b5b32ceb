//! One file per request the conductor handles.

pub mod ping;
