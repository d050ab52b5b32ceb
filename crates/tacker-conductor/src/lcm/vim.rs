//! Which VIM an operation works in: the request's (instantiate, change_ext_conn), else
//! the instance's, else its tenant's registered default VIM, else `lcm.default_vim`. An entry
//! naming a registered VIM (`vimId` without `accessInfo`) is resolved from the registry
//! at each operation, so credentials live in one sealed place.

use serde_json::Value;
use tacker_domain::Failure;
use tacker_domain::lcm::{OpOcc, OperationParams, VnfInstance};
use tacker_domain::vim::{VimConnection, VimConnectionInfo, VimConnections};
use uuid::Uuid;

use crate::Ctx;

fn first(map: Option<&VimConnections>) -> Option<(String, VimConnectionInfo)> {
    map?.iter().next().map(|(k, v)| (k.clone(), v.clone()))
}

/// The connection of entry `key` of a `vimConnectionInfo` of an instance of `tenant`: a
/// registered VIM only when it is the tenant's or of no tenant (registered by an
/// administrator), never another tenant's credentials.
pub async fn resolve(
    ctx: &Ctx,
    key: &str,
    entry: &VimConnectionInfo,
    tenant: Option<&str>,
) -> Result<VimConnection, Failure> {
    if let Some(vim_id) = entry.reference() {
        let unknown = || {
            Failure::unprocessable(format!(
                "vimConnectionInfo.{key}.vimId {vim_id} is not a registered VIM"
            ))
        };
        let id: Uuid = vim_id.parse().map_err(|_| unknown())?;
        let vim = ctx
            .db
            .vims()
            .get(id, &ctx.keys)
            .await
            .map_err(|e| Failure::internal(format!("reading VIM {id}: {e}")))?
            .filter(|v| v.tenant_id.is_empty() || Some(v.tenant_id.as_str()) == tenant)
            .ok_or_else(unknown)?;
        return Ok(vim.connection(key));
    }
    let mut entry = entry.clone();
    entry
        .open(&mut |s| ctx.keys.open(s))
        .map_err(|e| Failure::internal(format!("opening vimConnectionInfo.{key}: {e}")))?;
    VimConnection::new(key, entry)
        .ok_or_else(|| Failure::unprocessable(format!("vimConnectionInfo.{key} names no vimType")))
}

/// The VIM the operation works in (`None`: nothing names one).
pub async fn select(
    ctx: &Ctx,
    op: &OpOcc,
    instance: &VnfInstance,
) -> Result<Option<VimConnection>, Failure> {
    let from_request = match op.request {
        OperationParams::Instantiate(_) | OperationParams::ChangeExtConn(_) => {
            first(op.request.vim_connections())
        }
        _ => None,
    };
    let tenant = instance.tenant.as_deref();
    if let Some((k, v)) = from_request.or_else(|| first(Some(&instance.vim_connection_info))) {
        return resolve(ctx, &k, &v, tenant).await.map(Some);
    }
    let registered = ctx
        .db
        .vims()
        .default_vim(tenant.unwrap_or_default(), &ctx.keys)
        .await
        .map_err(|e| Failure::internal(format!("reading the default VIM: {e}")))?;
    if let Some(v) = registered {
        return Ok(Some(v.connection("default")));
    }
    Ok(ctx
        .lcm
        .default_vim
        .clone()
        .and_then(|v| VimConnection::new("default", v)))
}

/// The VIM a grant for an instance of `tenant` supplies.
pub async fn from_grant(
    ctx: &Ctx,
    grant: &Value,
    tenant: Option<&str>,
) -> Result<Option<VimConnection>, Failure> {
    let vci: Option<VimConnections> =
        match grant.get("vimConnectionInfo") {
            None | Some(Value::Null) => None,
            Some(v) => Some(serde_json::from_value(v.clone()).map_err(|e| {
                Failure::unprocessable(format!("the grant's vimConnectionInfo: {e}"))
            })?),
        };
    match first(vci.as_ref()) {
        Some((k, v)) => resolve(ctx, &k, &v, tenant).await.map(Some),
        None => Ok(None),
    }
}

/// A VIM as a `vimConnectionInfo` entry: a registered VIM by reference only; another
/// with its credentials (stored sealed, never answered).
pub fn entry(v: &VimConnection) -> VimConnectionInfo {
    match &v.vim_id {
        Some(id) => VimConnectionInfo {
            vim_id: Some(id.clone()),
            vim_type: Some(v.vim_type.clone()),
            ..VimConnectionInfo::default()
        },
        None => v.info.clone(),
    }
}
