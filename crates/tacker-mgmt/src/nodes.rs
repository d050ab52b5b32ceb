//! The VMs of an instance a driver works on: VNFCs found by the CP the parameters name,
//! with the address of that CP, and whether the operation just created them.

use std::collections::BTreeSet;

use serde_json::Value;
use tacker_domain::lcm::driver::OpContext;
use tacker_domain::lcm::{VnfInstance, address_of};

use crate::error::{Error, Result};

/// One VM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Its `vnfcResourceInfo` id (the server's id).
    pub vnfc: String,
    /// Its VDU.
    pub vdu: String,
    /// The address of the CP the driver reaches it at.
    pub address: String,
}

impl Node {
    /// A name for messages: `<VDU> <vnfc>`.
    pub fn name(&self) -> String {
        format!("{} {}", self.vdu, self.vnfc)
    }

    /// Its Kubernetes node name: the VNFC id, lower case (known without reaching the
    /// VM, so a dead node can still be removed from the cluster).
    pub fn k8s_name(&self) -> String {
        self.vnfc.to_ascii_lowercase()
    }
}

/// The VNFCs having CP `cp`, with its address, in the instance's order.
pub fn with_cp(instance: &VnfInstance, cp: &str) -> Result<Vec<Node>> {
    let Some(info) = &instance.instantiated_vnf_info else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for r in &info.vnfc_resource_info {
        if !r.vnfc_cp_info.iter().any(|c| c.cpd_id == cp) {
            continue;
        }
        let address = address_of(instance, &r.id, cp).ok_or_else(|| {
            Error::Invalid(format!(
                "VNFC {} ({}) has no IP address on CP {cp}",
                r.id, r.vdu_id
            ))
        })?;
        out.push(Node {
            vnfc: r.id.clone(),
            vdu: r.vdu_id.clone(),
            address,
        });
    }
    Ok(out)
}

/// The ids of the VNFCs `resourceChanges` lists with `change` (`ADDED`, `REMOVED`).
pub fn changed(ctx: &OpContext, change: &str) -> BTreeSet<String> {
    ctx.resource_changes
        .get("affectedVnfcs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|a| a.get("changeType").and_then(Value::as_str) == Some(change))
        .filter_map(|a| a.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect()
}
