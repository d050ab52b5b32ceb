//! Sync: what the stack runs now, in the stored order.

use tacker_domain::lcm::InstantiatedVnfInfo;

use super::{Work, stored};
use crate::error::Result;

pub async fn run(w: &Work<'_>) -> Result<Option<InstantiatedVnfInfo>> {
    let s = stored(w.octx)?;
    let read = w.read(&s.stack, &s.info.vnfc_resource_info).await?;
    let mut info = s.info;
    info.vnfc_resource_info = read.resources;
    info.vnfc_info = super::operate::kept(&info.vnfc_info, read.infos);
    Ok(Some(info))
}
