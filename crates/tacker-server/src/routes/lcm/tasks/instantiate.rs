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
        check_base_hot(&m, &r.flavour_id)?;
    }
    Ok(m)
}

/// The type of the tenant's default VIM, when it has one (a request naming no VIM goes
/// there).
async fn default_vim_type(
    st: &ServerState,
    tenant: Option<&str>,
) -> Result<Option<String>, ApiError> {
    let (keys, tenant) = (st.keys.clone(), tenant.unwrap_or_default().to_owned());
    let vim = st
        .db
        .run(move |c| tacker_db::vims::default_vim(c, &tenant, &keys))
        .await?;
    Ok(vim.map(|v| v.connection_type().to_owned()))
}

/// An OpenStack VNF needs a Base HOT for its flavour (`BaseHOT/<flavour>/`): refused at
/// the request (422) rather than failing after the grant.
pub(super) fn check_base_hot(m: &PackageModel, flavour: &str) -> Result<(), ApiError> {
    let dir = format!("BaseHOT/{flavour}/");
    if m.entries.keys().any(|p| p.starts_with(&dir)) {
        return Ok(());
    }
    Err(ApiError::Unprocessable(format!(
        "the VNF package has no {dir} (a Base HOT for flavour {flavour}), which an OpenStack \
         VIM needs: building the HOT from the VNFD, as upstream Tacker does for VNFD-only \
         packages, is not supported yet; add a Base HOT to the package"
    )))
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
