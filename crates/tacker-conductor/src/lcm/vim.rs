//! Which VIM an operation works in.

use serde_json::Value;
use tacker_domain::lcm::driver::VimConnection;
use tacker_domain::lcm::{OpOcc, OperationParams, VnfInstance};

use super::LcmSettings;

fn first(map: Option<&serde_json::Map<String, Value>>) -> Option<VimConnection> {
    let (id, v) = map?.iter().next()?;
    VimConnection::from_json(id, v)
}

/// The request's VIM (instantiate, change_ext_conn), else the instance's, else the
/// configured default.
pub fn select(lcm: &LcmSettings, op: &OpOcc, instance: &VnfInstance) -> Option<VimConnection> {
    let from_request = match op.request {
        OperationParams::Instantiate(_) | OperationParams::ChangeExtConn(_) => {
            first(op.request.vim_connection_info())
        }
        _ => None,
    };
    from_request
        .or_else(|| first(Some(&instance.vim_connection_info)))
        .or_else(|| {
            lcm.default_vim
                .as_ref()
                .and_then(|v| VimConnection::from_json("default", v))
        })
}

/// The VIM a grant supplies.
pub fn from_grant(grant: &Value) -> Option<VimConnection> {
    first(grant.get("vimConnectionInfo").and_then(Value::as_object))
}

/// A VIM as a `vimConnectionInfo` entry (credentials included: stored, never answered).
pub fn to_json(v: &VimConnection) -> Value {
    serde_json::json!({
        "vimType": v.vim_type,
        "interfaceInfo": v.interface_info,
        "accessInfo": v.access_info,
        "extra": v.extra,
    })
}
