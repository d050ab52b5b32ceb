//! `instantiate`.

use tacker_domain::lcm::request::InstantiateRequest;
use tacker_domain::vnfd::PackageModel;

use super::Checking;
use crate::auth::Principal;
use crate::routes::lcm::check_vims;
use crate::{ApiError, ServerState};
use tacker_domain::lcm::vim_type;

/// The namespace is the caller's tenant's, the VIMs are usable, the request fits the
/// package (flavour, instantiation level, manifests): the package model.
pub async fn check(c: &Checking<'_>, r: &InstantiateRequest) -> Result<PackageModel, ApiError> {
    check_namespace(c.who, r)?;
    let tenant = c.instance.tenant.as_deref();
    let mut types = check_vims(c.st, c.who, tenant, r.vim_connection_info.iter().flatten()).await?;
    if types.is_empty() {
        types.extend(default_vim_type(c.st, tenant).await?);
    }
    let m = c.model().await?;
    r.check(&m)?;
    if types.iter().any(|t| t == vim_type::OPENSTACK) {
        check_base_hot(&m, &r.flavour_id, Some(&r.ext_virtual_links))?;
        check_standard_user_data(&m, r)?;
    }
    check_managed_links(&m, r, &types)?;
    Ok(m)
}

/// The type of the tenant's default VIM, when it has one (a request naming no VIM goes
/// there).
async fn default_vim_type(
    st: &ServerState,
    tenant: Option<&str>,
) -> Result<Option<String>, ApiError> {
    let vim = st
        .db
        .vims()
        .default_vim(tenant.unwrap_or_default(), &st.keys)
        .await?;
    Ok(vim.map(|v| v.connection_type().to_owned()))
}

/// An OpenStack VNF runs the flavour's Base HOT (`BaseHOT/<flavour>/`), else one built
/// from the VNFD: a VNFD that cannot be built into one, or an external connection point
/// that `ext_virtual_links` (when given) leaves without a network, is refused at the request (422) rather than failing
/// after the grant.
pub(super) fn check_base_hot(
    m: &PackageModel,
    flavour: &str,
    ext_virtual_links: Option<&[serde_json::Value]>,
) -> Result<(), ApiError> {
    let dir = format!("BaseHOT/{flavour}/");
    if m.entries.keys().any(|p| p.starts_with(&dir)) {
        return Ok(());
    }
    // An unknown flavour is refused by the request's own check.
    let Some(f) = m.vnfd.flavour(flavour) else {
        return Ok(());
    };
    tacker_domain::hot::translate(f, &|v| v.requested_flavour().is_some())?;
    if let Some(links) = ext_virtual_links {
        tacker_domain::hot::check_external_cps(f, links)?;
    }
    Ok(())
}

/// `extManagedVirtualLinks` put internal virtual links of the flavour on existing
/// networks: only the OpenStack driver does it (elsewhere 422, never ignored), and each
/// entry names an internal virtual link of the flavour and a network.
fn check_managed_links(
    m: &PackageModel,
    r: &InstantiateRequest,
    types: &[String],
) -> Result<(), ApiError> {
    if r.ext_managed_virtual_links.is_empty() {
        return Ok(());
    }
    if types.is_empty() || types.iter().any(|t| t != vim_type::OPENSTACK) {
        return Err(ApiError::Unprocessable(format!(
            "extManagedVirtualLinks needs an OpenStack VIM (the request's VIM types: {types:?})"
        )));
    }
    let flavour = m.vnfd.flavour(&r.flavour_id);
    for (n, l) in r.ext_managed_virtual_links.iter().enumerate() {
        let vl = l
            .get("vnfVirtualLinkDescId")
            .and_then(serde_json::Value::as_str);
        if l.get("resourceId")
            .and_then(serde_json::Value::as_str)
            .is_none()
        {
            return Err(ApiError::BadRequest(format!(
                "extManagedVirtualLinks[{n}].resourceId (the network) is required"
            )));
        }
        let known = vl
            .is_some_and(|vl| flavour.is_some_and(|f| f.virtual_links.iter().any(|v| v.id == vl)));
        if !known {
            return Err(ApiError::Unprocessable(format!(
                "extManagedVirtualLinks[{n}].vnfVirtualLinkDescId {vl:?} is not an internal \
                 virtual link of flavour {}",
                r.flavour_id
            )));
        }
    }
    Ok(())
}

/// `StandardUserData` makes one copy per VNFC of each VDU's resource in the package's
/// Base HOT: a package without one (a HOT built from the VNFD) is refused (422).
fn check_standard_user_data(m: &PackageModel, r: &InstantiateRequest) -> Result<(), ApiError> {
    let class = r
        .additional_params
        .get("lcm-operation-user-data-class")
        .and_then(serde_json::Value::as_str);
    let dir = format!("BaseHOT/{}/", r.flavour_id);
    if class == Some("StandardUserData") && !m.entries.keys().any(|p| p.starts_with(&dir)) {
        return Err(ApiError::Unprocessable(format!(
            "lcm-operation-user-data-class StandardUserData copies each VDU's resource of \
             the package's Base HOT once per VNFC, and the package has no {dir}"
        )));
    }
    Ok(())
}

/// A caller confined to a tenant deploys CNFs into the namespace of its tenant's name
/// only (Tacker's enhanced policy: the namespace is the tenant).
fn check_namespace(who: &Principal, r: &InstantiateRequest) -> Result<(), ApiError> {
    let Some(tenant) = who.scope() else {
        return Ok(());
    };
    let cnf = r.cnf()?;
    if cnf.def_files.is_none() && cnf.helm_chart_path.is_none() {
        return Ok(());
    }
    match cnf.namespace.as_deref() {
        Some(ns) if ns == tenant => Ok(()),
        other => Err(ApiError::Forbidden(format!(
            "a caller of tenant {tenant} deploys CNFs into namespace {tenant} only \
             (additionalParams.namespace is {})",
            other.map_or("not given".to_owned(), |n| format!("{n:?}"))
        ))),
    }
}
