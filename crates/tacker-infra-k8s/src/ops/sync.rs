//! Sync: the stored VNFC lists reconciled with the Pods that run now (Kubernetes may
//! have replaced or rescaled them on its own).

use std::collections::HashSet;

use tacker_domain::lcm::InstantiatedVnfInfo;

use super::{Work, stored};
use crate::error::Result;
use crate::{observe, vnfc};

pub async fn run(w: &Work<'_>) -> Result<Option<InstantiatedVnfInfo>> {
    let s = stored(w.octx)?;
    if super::operate::is_stopped(&s.info) {
        // Stopped on purpose: its VNFCs have no Pods until it is started.
        return Ok(None);
    }
    let pods = observe::vnfc_pods(&w.cluster, &s.namespace, &w.selector, &s.vdus).await?;
    let r = vnfc::reconcile(
        &s.info.vnfc_resource_info,
        &pods,
        None,
        &HashSet::new(),
        &s.namespace,
        w.vim_id(),
    );
    let mut info = s.info;
    info.vnfc_resource_info = r.resources;
    info.vnfc_info = r.infos;
    Ok(Some(info))
}
