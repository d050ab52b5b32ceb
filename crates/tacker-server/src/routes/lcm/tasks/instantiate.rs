//! `instantiate`.

use serde_json::Value;
use tacker_domain::lcm::request::InstantiateRequest;
use tacker_domain::vnfd::PackageModel;

use super::Checking;
use crate::ApiError;
use crate::auth::Principal;
use crate::routes::lcm::check_vims;

/// The namespace is the caller's tenant's, the VIMs are usable, the request fits the
/// package (flavour, instantiation level, manifests): the package model.
pub async fn check(c: &Checking<'_>, r: &InstantiateRequest) -> Result<PackageModel, ApiError> {
    check_namespace(c.who, r)?;
    let tenant = c.instance.tenant.as_deref();
    check_vims(c.st, c.who, tenant, r.vim_connection_info.iter().flatten()).await?;
    let m = c.model().await?;
    r.check(&m)?;
    Ok(m)
}

/// A caller confined to a tenant deploys CNFs into the namespace of its tenant's name
/// only (Tacker's enhanced policy: the namespace is the tenant).
fn check_namespace(who: &Principal, r: &InstantiateRequest) -> Result<(), ApiError> {
    let Some(tenant) = who.scope() else {
        return Ok(());
    };
    let p = &r.additional_params;
    if !p.contains_key("lcm-kubernetes-def-files") && !p.contains_key("helm_chart_path") {
        return Ok(());
    }
    match p.get("namespace").and_then(Value::as_str) {
        Some(ns) if ns == tenant => Ok(()),
        other => Err(ApiError::Forbidden(format!(
            "a caller of tenant {tenant} deploys CNFs into namespace {tenant} only \
             (additionalParams.namespace is {})",
            other.map_or("not given".to_owned(), |n| format!("{n:?}"))
        ))),
    }
}
