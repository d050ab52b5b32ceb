//! One file per request the conductor handles.

pub mod check_vim;
pub mod closed_loop_due;
pub mod delete_package;
pub mod deliver_rules;
pub mod download_csar;
pub mod drop_cache;
pub mod ping;
pub mod prefetch_csar;
pub mod run_lcm_op;
pub mod sync_instance;
pub mod upload_from_uri;
pub mod upload_package;

use tacker_rpc::HandlerError;
use uuid::Uuid;

/// A package id from a message.
pub fn package_id(raw: &str) -> Result<Uuid, HandlerError> {
    raw.parse()
        .map_err(|_| HandlerError::new(format!("invalid package id {raw:?}")))
}
