//! Terminate: the release uninstalled and the claims its StatefulSets made removed:
//! nothing of the VNF stays. A retry after the release is gone finds nothing to do.

use serde_json::{Map, Value};
use tacker_domain::lcm::driver::Outcome;

use super::Op;
use crate::error::Result;
use crate::ops::Claims;
use crate::vnfc;

impl Op<'_, '_> {
    pub async fn terminate(&self) -> Result<Outcome> {
        let (rec, info) = self.recorded()?;
        self.remove(
            &rec.release,
            &rec.namespace,
            &rec.vdus,
            self.w.flavour()?,
            Claims::Remove,
        )
        .await?;
        let removed: Vec<Value> = info
            .vnfc_resource_info
            .iter()
            .map(|r| vnfc::affected(r, "REMOVED"))
            .collect();
        Ok(Outcome {
            instantiated_vnf_info: None,
            resource_changes: Map::from_iter([("affectedVnfcs".to_owned(), Value::Array(removed))]),
        })
    }
}
