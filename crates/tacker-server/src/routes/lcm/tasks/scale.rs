//! `scale`.

use tacker_domain::lcm::plan;
use tacker_domain::lcm::request::{ScaleRequest, flavour};
use tacker_domain::vnfd::PackageModel;

use super::{Checking, flavour_of};
use crate::ApiError;

/// The aspect is the flavour's, and the limits the stored state already shows hold
/// (drivers check again): the package model.
pub async fn check(c: &Checking<'_>, r: &ScaleRequest) -> Result<PackageModel, ApiError> {
    let m = c.model().await?;
    let f = flavour(&m, &flavour_of(c.instance))?;
    r.check(f)?;
    if let Some(info) = &c.instance.instantiated_vnf_info {
        plan::checked_scale_step(f, info, r).map_err(ApiError::BadRequest)?;
    }
    Ok(m)
}
