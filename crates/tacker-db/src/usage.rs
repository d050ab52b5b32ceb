//! A package's usage state: IN_USE while an instance is on it or a package change
//! (CHANGE_VNFPKG, or MODIFY_INFO naming a vnfdId) that has not ended moves an instance
//! to it, so neither package can be deleted while it runs or waits for retry or rollback.

use diesel::prelude::*;
use tacker_domain::lcm::{LcmOperation, OperationState};
use tacker_domain::package::UsageState;

use crate::schema::vnf_instances::dsl as inst;
use crate::schema::vnf_lcm_op_occs::dsl as ops;
use crate::schema::vnf_packages::dsl as pkg;
use crate::{DbConnection, Result};

/// States in which a package change has not ended.
const OPEN: [OperationState; 4] = [
    OperationState::Starting,
    OperationState::Processing,
    OperationState::FailedTemp,
    OperationState::RollingBack,
];

/// Whether an open package change (CHANGE_VNFPKG, or MODIFY_INFO naming a vnfdId)
/// targets VNFD `vnfd_id` in a package of `tenant` (an instance resolves a vnfdId within
/// its tenant; a shared package, of none, may be any tenant's target).
fn targeted(c: &mut DbConnection, vnfd_id: &str, tenant: Option<&str>) -> Result<bool> {
    // The stored request is serde's compact JSON of the typed request.
    let needle = format!("%\"vnfdId\":{}%", serde_json::Value::from(vnfd_id));
    let changes = [LcmOperation::ChangeVnfpkg, LcmOperation::ModifyInfo];
    let mut q = ops::vnf_lcm_op_occs
        .filter(ops::operation.eq_any(changes.iter().map(|o| o.as_str())))
        .filter(ops::operation_state.eq_any(OPEN.iter().map(|s| s.as_str())))
        .filter(ops::request.like(needle))
        .into_boxed::<crate::scan::Backend>();
    if let Some(t) = tenant {
        q = q.filter(ops::tenant.eq(t.to_owned()));
    }
    let n: i64 = q.count().get_result(c)?;
    Ok(n > 0)
}

/// Sets the usage state of package `id` from what uses it now.
pub(crate) fn refresh(c: &mut DbConnection, id: &str) -> Result<()> {
    let users: i64 = inst::vnf_instances
        .filter(inst::vnf_pkg_id.eq(id))
        .count()
        .get_result(c)?;
    let row: Option<(Option<String>, Option<String>)> = pkg::vnf_packages
        .filter(pkg::id.eq(id))
        .select((pkg::vnfd_id, pkg::tenant))
        .first(c)
        .optional()?;
    let (vnfd, tenant) = row.unwrap_or_default();
    let in_use = users > 0
        || match vnfd {
            Some(v) => targeted(c, &v, tenant.as_deref())?,
            None => false,
        };
    let state = if in_use {
        UsageState::InUse
    } else {
        UsageState::NotInUse
    };
    diesel::update(
        pkg::vnf_packages
            .filter(pkg::id.eq(id))
            .filter(pkg::usage_state.ne(state.as_str())),
    )
    .set((
        pkg::usage_state.eq(state.as_str()),
        pkg::revision.eq(pkg::revision + 1),
    ))
    .execute(c)?;
    Ok(())
}

/// Refreshes the packages of VNFD `vnfd_id` (not deleted).
pub(crate) fn refresh_vnfd(c: &mut DbConnection, vnfd_id: &str) -> Result<()> {
    let ids: Vec<String> = pkg::vnf_packages
        .filter(pkg::vnfd_id.eq(vnfd_id))
        .filter(pkg::deleted_at.is_null())
        .select(pkg::id)
        .load(c)?;
    for id in ids {
        refresh(c, &id)?;
    }
    Ok(())
}

/// The vnfdId an operation's request moves its instance to, if any.
pub(crate) fn target_of(request: &tacker_domain::lcm::OperationParams) -> Option<&str> {
    match request {
        tacker_domain::lcm::OperationParams::ChangeVnfpkg(r) => Some(&r.vnfd_id),
        tacker_domain::lcm::OperationParams::ModifyInfo(m) => m.vnfd_id.as_deref(),
        _ => None,
    }
}
