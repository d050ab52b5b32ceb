//! `/v1.0/vims`: Tacker's VIM registry (what `openstack vim register/list/show/set/delete`
//! drive; the client adds `.json` to every path). Credentials are sealed at rest and
//! answered as `***`. A VIM belongs to the tenant that registered it (an administrator
//! may register one for another tenant with `tenant_id`): only that tenant sees, changes
//! and uses it, and each tenant has its own default VIM; administrators see every VIM.
//! An OpenStack VIM is registered (or its credentials changed) only once a conductor's
//! driver authenticated with them (`CheckVim`): 400 naming what failed, nothing stored.

use actix_web::HttpResponse;
use serde_json::{Value, json};
use tacker_db::vims;
use tacker_domain::vim::{Vim, parse_new};
use tacker_rpc::Target;
use tacker_rpc::proto::{CheckVim, VimChecked};
use uuid::Uuid;

use crate::auth::{Principal, Role};
use crate::extract::{AcceptsJson, ByPath, Call, JsonBody, Scoped};
use crate::http::base_url;
use crate::scope::sees_vim;
use crate::{ApiError, ServerState};

fn conflict(c: vims::Conflict, name: &str) -> ApiError {
    match c {
        vims::Conflict::Name => ApiError::Conflict(format!("a VIM named {name} exists already")),
        vims::Conflict::Default(other) => {
            ApiError::Conflict(format!("Default VIM already exists {other}."))
        }
    }
}

fn id_of(raw: &str) -> Result<Uuid, ApiError> {
    let raw = raw.strip_suffix(".json").unwrap_or(raw);
    raw.parse()
        .map_err(|_| ApiError::NotFound(format!("VIM {raw} could not be found")))
}

/// The VIM at `raw`, if the caller sees it (its tenant's, in its areas; else 404, as
/// absent).
impl Scoped for Vim {
    async fn load(st: &ServerState, raw: &str, who: &Principal) -> Result<Self, ApiError> {
        let id = id_of(raw)?;
        st.db
            .vims()
            .get(id, &st.keys)
            .await?
            .filter(|v| sees_vim(who, v))
            .ok_or_else(|| ApiError::NotFound(format!("VIM {id} could not be found")))
    }
}

/// A caller confined to areas registers VIMs in its areas only.
fn check_area(who: &Principal, vim: &Vim) -> Result<(), ApiError> {
    if sees_vim(who, vim) {
        return Ok(());
    }
    Err(ApiError::Forbidden(format!(
        "extra.area {} is not one of the caller's areas",
        vim.area().unwrap_or_default()
    )))
}

pub async fn list(Call { req, who, st }: Call, _: AcceptsJson) -> Result<HttpResponse, ApiError> {
    let q: Vec<(String, String)> = url::form_urlencoded::parse(req.query_string().as_bytes())
        .into_owned()
        .collect();
    let all = st.db.vims().list(who.scope(), &st.keys).await?;
    let wanted = |k: &'static str| -> Vec<&str> {
        q.iter()
            .filter(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
            .collect()
    };
    let (ids, names) = (wanted("id"), wanted("name"));
    let items: Vec<Value> = all
        .iter()
        .filter(|v| ids.iter().all(|w| v.id.to_string() == *w))
        .filter(|v| names.iter().all(|w| v.name == *w))
        .filter(|v| sees_vim(&who, v))
        .map(Vim::to_json)
        .collect();
    Ok(HttpResponse::Ok().json(json!({"vims": items})))
}

/// The tenant a new VIM belongs to: the caller's, or the `tenant_id` of the body, which
/// only an administrator may set to another tenant's.
fn owner_of_new(who: &Principal, b: &Value) -> Result<String, ApiError> {
    let mine = who.owner().unwrap_or_default();
    match b.pointer("/vim/tenant_id") {
        None | Some(Value::Null) => Ok(mine),
        Some(Value::String(t)) if *t == mine || who.may(Role::Admin) => Ok(t.clone()),
        Some(Value::String(t)) => Err(ApiError::Forbidden(format!(
            "tenant_id {t:?} is not the caller's tenant: only an administrator registers a \
             VIM for another tenant"
        ))),
        Some(_) => Err(ApiError::BadRequest("tenant_id must be a string".into())),
    }
}

/// Has a conductor's driver authenticate with a VIM's credentials, as an operation
/// would (OpenStack: a Keystone token and Heat in its catalog; Kubernetes, with Helm or
/// not: the API server's discovery, served to authenticated callers only): 400 naming
/// what failed, 503 when no conductor answers. The connection travels sealed with the
/// keyring.
async fn check_credentials(st: &ServerState, vim: &Vim) -> Result<(), ApiError> {
    let mut conn = vim.connection("vim");
    conn.info.vim_type = Some(conn.vim_type.clone());
    let json = serde_json::to_string(&conn.info)
        .map_err(|e| ApiError::Internal(format!("the VIM connection as JSON: {e}")))?;
    let msg = CheckVim {
        sealed_connection: st.keys.seal(&json)?,
    };
    let checked: VimChecked = st
        .bus
        .call(Target::Any, &msg, &[], std::time::Duration::from_secs(45))
        .await
        .map_err(|e| {
            ApiError::Unavailable(format!(
                "no conductor could check the VIM's credentials ({e}); try again"
            ))
        })?;
    if checked.problem.is_empty() {
        Ok(())
    } else {
        Err(ApiError::BadRequest(format!(
            "VIM {} cannot be used: {}",
            vim.name, checked.problem
        )))
    }
}

pub async fn create(
    Call { req, who, st }: Call,
    _: AcceptsJson,
    JsonBody(b): JsonBody<Value>,
) -> Result<HttpResponse, ApiError> {
    let vim = parse_new(&b, &owner_of_new(&who, &b)?)?;
    check_area(&who, &vim)?;
    crate::http::check_vim_endpoint(&st, &vim.auth_url, "auth_url").await?;
    check_credentials(&st, &vim).await?;
    if let Some(c) = st.db.vims().create(&vim, &st.keys).await? {
        return Err(conflict(c, &vim.name));
    }
    tracing::info!(vim_id = %vim.id, name = %vim.name, vim_type = %vim.vim_type, tenant = %vim.tenant_id, "VIM registered");
    let location = format!("{}/v1.0/vims/{}", base_url(&req, &st), vim.id);
    Ok(HttpResponse::Created()
        .insert_header((actix_web::http::header::LOCATION, location))
        .json(json!({"vim": vim.to_json()})))
}

pub async fn show(_: AcceptsJson, ByPath(vim): ByPath<Vim>) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(json!({"vim": vim.to_json()})))
}

pub async fn update(
    Call { who, st, .. }: Call,
    _: AcceptsJson,
    JsonBody(b): JsonBody<Value>,
    ByPath(mut vim): ByPath<Vim>,
) -> Result<HttpResponse, ApiError> {
    vim.update(&b)?;
    check_area(&who, &vim)?;
    crate::http::check_vim_endpoint(&st, &vim.auth_url, "auth_url").await?;
    // New credentials are tried first (as Tacker re-registers on a new password); a
    // change of name or description does not depend on the VIM answering.
    let credentials = ["auth_cred", "vim_project", "auth_url"]
        .iter()
        .any(|k| b.get("vim").and_then(|v| v.get(*k)).is_some());
    if credentials {
        check_credentials(&st, &vim).await?;
    }
    if let Some(c) = st.db.vims().update(&vim, &st.keys).await? {
        return Err(conflict(c, &vim.name));
    }
    tracing::info!(vim_id = %vim.id, "VIM updated");
    Ok(HttpResponse::Ok().json(json!({"vim": vim.to_json()})))
}

pub async fn delete(
    Call { st, .. }: Call,
    _: AcceptsJson,
    ByPath(vim): ByPath<Vim>,
) -> Result<HttpResponse, ApiError> {
    let id = vim.id;
    if st.db.instances().using_vim(&id.to_string()).await? {
        return Err(ApiError::Conflict(format!(
            "VIM {id} is used by a VNF instance"
        )));
    }
    if !st.db.vims().delete(id).await? {
        return Err(ApiError::NotFound(format!("VIM {id} could not be found")));
    }
    tracing::info!(vim_id = %id, "VIM deleted");
    Ok(HttpResponse::NoContent().finish())
}
