//! `CheckVim`: the VIM's infra driver authenticates with its credentials before the
//! server registers it (or stores new credentials).

use std::sync::Arc;

use prost::Message;
use tacker_domain::lcm::driver::VimConnection;
use tacker_domain::lcm::vim_type;
use tacker_rpc::HandlerError;
use tacker_rpc::proto::{CheckVim, VimChecked};

use crate::Ctx;

pub async fn handle(ctx: &Arc<Ctx>, msg: CheckVim) -> Result<Vec<u8>, HandlerError> {
    let plain = ctx
        .keys
        .open(&msg.sealed_connection)
        .map_err(|e| HandlerError::new(format!("the VIM connection cannot be opened: {e}")))?;
    let value: serde_json::Value = serde_json::from_str(&plain)
        .map_err(|e| HandlerError::new(format!("the VIM connection is not JSON: {e}")))?;
    let vim = VimConnection::from_json("vim", &value)
        .ok_or_else(|| HandlerError::new("the VIM connection has no vimType"))?;
    let mut kind = vim_type::canonical(&vim.vim_type);
    // A Helm VIM is a Kubernetes cluster: a conductor without Helm checks it as one.
    if kind == vim_type::HELM && !ctx.lcm.drivers.infra.contains_key(&kind) {
        kind = vim_type::KUBERNETES.to_owned();
    }
    let problem = match ctx.lcm.drivers.infra.get(&kind) {
        Some(driver) => match driver.check_vim(&vim).await {
            Ok(()) => String::new(),
            Err(e) => e.detail,
        },
        None => format!("no infra driver for VIM type {kind} in this conductor"),
    };
    Ok(VimChecked { problem }.encode_to_vec())
}
