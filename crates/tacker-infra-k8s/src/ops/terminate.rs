//! Terminate: delete in reverse order, GRACEFUL (with `gracefulTerminationTimeout` as the
//! grace period) or FORCEFUL (no grace period), and wait until everything is gone.

use serde_json::{Map, Value};
use tacker_domain::lcm::OperationParams;
use tacker_domain::lcm::driver::Outcome;

use super::{Claims, Work, counts_of, delete_all, stored};
use crate::cluster::Deletion;
use crate::error::Result;
use crate::vnfc;

/// The deletion a terminate request asks for (GRACEFUL without a timeout: the
/// objects' own grace periods).
pub fn deletion(params: &OperationParams) -> Deletion {
    let grace = match params {
        OperationParams::Terminate(t) => t.grace_seconds(),
        _ => Some(0),
    };
    Deletion {
        grace: grace.map(|s| s.min(u64::from(u32::MAX)) as u32),
        foreground: true,
    }
}

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let s = stored(w.octx)?;
    let plan = super::plan(w, &s.files, Some(&s.namespace), &counts_of(&s.info)).await?;
    delete_all(w, &plan, deletion(&w.octx.op.request), Claims::Remove).await?;
    let removed: Vec<Value> = s
        .info
        .vnfc_resource_info
        .iter()
        .map(|r| vnfc::affected(r, "REMOVED"))
        .collect();
    Ok(Outcome {
        instantiated_vnf_info: None,
        resource_changes: Map::from_iter([("affectedVnfcs".to_owned(), Value::Array(removed))]),
    })
}
