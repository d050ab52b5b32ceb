//! One module per command group.

pub mod conductor;
pub mod op;
pub mod package;
pub mod subscription;
pub mod vnf;

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};

/// A request body from a JSON or YAML file.
pub fn body_file(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Local(format!("{}: {e}", path.display())))?;
    if let Ok(v) = serde_json::from_str::<Value>(&text) {
        return Ok(v);
    }
    serde_saphyr::from_str::<Value>(&text)
        .map_err(|e| Error::Local(format!("{}: neither JSON nor YAML: {e}", path.display())))
}
