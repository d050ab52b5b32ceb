//! Which VIM an operation works in: the request's (instantiate, change_ext_conn), else
//! the instance's, else its tenant's registered default VIM, else `lcm.default_vim`. An entry
//! naming a registered VIM (`vimId` without `accessInfo`) is resolved from the registry
//! at each operation, so credentials live in one sealed place.

use serde_json::{Map, Value, json};
use tacker_db::vims;
use tacker_domain::Failure;
use tacker_domain::lcm::driver::VimConnection;
use tacker_domain::lcm::{OpOcc, OperationParams, VnfInstance};
use uuid::Uuid;

use crate::Ctx;

fn first(map: Option<&Map<String, Value>>) -> Option<(String, Value)> {
    map?.iter().next().map(|(k, v)| (k.clone(), v.clone()))
}

/// Whether an entry only names a registered VIM.
fn reference(entry: &Value) -> Option<&str> {
    let id = entry.get("vimId").and_then(Value::as_str)?;
    let has_access = entry
        .get("accessInfo")
        .and_then(Value::as_object)
        .is_some_and(|m| !m.is_empty());
    (!has_access).then_some(id)
}

/// The connection of entry `key` of a `vimConnectionInfo` of an instance of `tenant`: a
/// registered VIM only when it is the tenant's or of no tenant (registered by an
/// administrator), never another tenant's credentials.
pub async fn resolve(
    ctx: &Ctx,
    key: &str,
    entry: &Value,
    tenant: Option<&str>,
) -> Result<VimConnection, Failure> {
    if let Some(vim_id) = reference(entry) {
        let id: Uuid = vim_id.parse().map_err(|_| {
            Failure::unprocessable(format!(
                "vimConnectionInfo.{key}.vimId {vim_id:?} is not a registered VIM"
            ))
        })?;
        let keys = ctx.keys.clone();
        let vim = ctx
            .db
            .run(move |c| vims::get(c, id, &keys))
            .await
            .map_err(|e| Failure::internal(format!("reading VIM {id}: {e}")))?
            .filter(|v| v.tenant_id.is_empty() || Some(v.tenant_id.as_str()) == tenant)
            .ok_or_else(|| {
                Failure::unprocessable(format!(
                    "vimConnectionInfo.{key}.vimId {vim_id} is not a registered VIM"
                ))
            })?;
        return Ok(vim.connection(key));
    }
    let mut entry = entry.clone();
    tacker_domain::lcm::secrets::open_all(&mut entry, &mut |s| ctx.keys.open(s))
        .map_err(|e| Failure::internal(format!("opening vimConnectionInfo.{key}: {e}")))?;
    VimConnection::from_json(key, &entry)
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
            first(op.request.vim_connection_info())
        }
        _ => None,
    };
    let tenant = instance.tenant.as_deref();
    if let Some((k, v)) = from_request.or_else(|| first(Some(&instance.vim_connection_info))) {
        return resolve(ctx, &k, &v, tenant).await.map(Some);
    }
    let (keys, tenant) = (ctx.keys.clone(), tenant.unwrap_or_default().to_owned());
    let registered = ctx
        .db
        .run(move |c| vims::default_vim(c, &tenant, &keys))
        .await
        .map_err(|e| Failure::internal(format!("reading the default VIM: {e}")))?;
    if let Some(v) = registered {
        return Ok(Some(v.connection("default")));
    }
    Ok(ctx
        .lcm
        .default_vim
        .as_ref()
        .and_then(|v| VimConnection::from_json("default", v)))
}

/// The VIM a grant for an instance of `tenant` supplies.
pub async fn from_grant(
    ctx: &Ctx,
    grant: &Value,
    tenant: Option<&str>,
) -> Result<Option<VimConnection>, Failure> {
    match first(grant.get("vimConnectionInfo").and_then(Value::as_object)) {
        Some((k, v)) => resolve(ctx, &k, &v, tenant).await.map(Some),
        None => Ok(None),
    }
}

/// A VIM as a `vimConnectionInfo` entry: a registered VIM by reference only; another
/// with its credentials (stored, never answered).
pub fn to_json(v: &VimConnection) -> Value {
    match &v.vim_id {
        Some(id) => json!({"vimId": id, "vimType": v.vim_type}),
        None => json!({
            "vimType": v.vim_type,
            "interfaceInfo": v.interface_info,
            "accessInfo": v.access_info,
            "extra": v.extra,
        }),
    }
}
