//! `change_vnfpkg`: moves an instantiated VNF to another package (CNFs: Tacker's
//! RollingUpdate). Checked before anything changes: the package is ONBOARDED and
//! ENABLED, its VNFD has the instance's flavour and every VDU running now, the new
//! manifests are in it, and the namespace stays.

use tacker_domain::lcm::request::ChangeVnfpkgRequest;

use super::{Checking, flavour_of};
use crate::ApiError;
use crate::routes::lcm::check_vims;

/// The checks of a package change.
pub async fn check(c: &Checking<'_>, r: &ChangeVnfpkgRequest) -> Result<(), ApiError> {
    let i = c.instance;
    // The Kubernetes, Helm and OpenStack drivers move a VNF to another package: for the
    // simulated VIM the request is refused rather than failed after the grant.
    use tacker_domain::lcm::vim_type::{HELM, KUBERNETES, OPENSTACK};
    super::implemented_on(i, "change_vnfpkg", &[KUBERNETES, HELM, OPENSTACK])?;
    if r.vnfd_id == i.vnfd_id {
        return Err(ApiError::Unprocessable(format!(
            "VNF instance {} is on vnfdId {} already",
            i.id, r.vnfd_id
        )));
    }
    let target =
        crate::routes::lcm::usable_package(c.st, c.who, &r.vnfd_id, i.tenant.as_deref()).await?;
    let pkg = target.id;
    let new =
        c.st.db
            .packages()
            .model(pkg)
            .await?
            .ok_or_else(|| ApiError::Unprocessable(format!("VNF package {pkg} has no VNFD")))?;
    let fid = flavour_of(i);
    let f = new.vnfd.flavour(&fid).ok_or_else(|| {
        ApiError::Unprocessable(format!(
            "vnfdId {} has no flavour {fid:?}, which the instance runs",
            r.vnfd_id
        ))
    })?;
    if let Some(info) = &i.instantiated_vnf_info {
        for vdu in info.vnfc_resource_info.iter().map(|v| &v.vdu_id) {
            if !f.vdus.iter().any(|v| v.id == *vdu) {
                return Err(ApiError::Unprocessable(format!(
                    "VDU {vdu} runs now but is not in flavour {fid:?} of vnfdId {}: the \
                         workloads would not map onto the new package",
                    r.vnfd_id
                )));
            }
        }
    }
    // A VM VNF runs the new package's Base HOT for its flavour, or one built from its
    // VNFD: refused here when it cannot be built.
    if super::vim_types(i).any(|t| tacker_domain::lcm::vim_type::canonical(t) == OPENSTACK) {
        let links = Some(r.ext_virtual_links.as_slice()).filter(|l| !l.is_empty());
        super::instantiate::check_base_hot(&new, &fid, links)?;
    }
    let cnf = r.cnf()?;
    for file in cnf.def_files.iter().flatten() {
        if !new.has_artifact(file) {
            return Err(ApiError::Unprocessable(format!(
                "additionalParams.lcm-kubernetes-def-files: {file:?} is not an artifact of \
                     the package of vnfdId {}",
                r.vnfd_id
            )));
        }
    }
    if let Some(chart) = &cnf.helm_chart_path
        && !new.has_chart(chart)
    {
        return Err(ApiError::Unprocessable(format!(
            "additionalParams.helm_chart_path: {chart:?} is not a chart archive or \
                     directory of the package of vnfdId {}",
            r.vnfd_id
        )));
    }
    let running_ns = i
        .instantiated_vnf_info
        .as_ref()
        .and_then(|x| x.cnf_namespace());
    if let (Some(now), Some(asked)) = (running_ns, &cnf.namespace)
        && now != asked
    {
        return Err(ApiError::Unprocessable(format!(
            "additionalParams.namespace must stay {now} (asked: {asked})"
        )));
    }
    let tenant = i.tenant.as_deref();
    check_vims(c.st, c.who, tenant, r.vim_connection_info.iter().flatten()).await?;
    Ok(())
}
