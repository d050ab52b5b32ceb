//! Terminate: delete the stack (after `gracefulTerminationTimeout` for GRACEFUL) and
//! wait until it is gone: every host with it.

use std::time::Duration;

use tacker_domain::lcm::OperationParams;
use tacker_domain::lcm::driver::Outcome;

use super::{Work, changes, stack_name, stored};
use crate::error::Result;

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let s = stored(w.octx)?;
    if let OperationParams::Terminate(t) = &w.octx.op.request
        && let Some(grace) = t.grace_seconds().filter(|g| *g > 0)
    {
        tracing::info!(
            grace_s = grace,
            "graceful termination: waiting before deleting the stack"
        );
        tokio::time::sleep(Duration::from_secs(grace)).await;
    }
    remove(w).await?;
    Ok(Outcome {
        instantiated_vnf_info: None,
        resource_changes: changes(&s.info.vnfc_resource_info, &[]),
    })
}

/// Deletes the instance's stack and releases the package images it used (deleted from
/// Glance when nobody uses them): the instance is gone from the VIM.
pub async fn remove(w: &Work<'_>) -> Result<()> {
    remove_stack(w).await?;
    crate::images::release(w.session, w.octx).await
}

/// Deletes the instance's stack, if there is one, and waits until it is gone.
pub async fn remove_stack(w: &Work<'_>) -> Result<()> {
    if let Some(stack) = w.heat.find(&stack_name(w.octx)).await? {
        w.heat.delete(&stack).await?;
        w.heat.wait_gone(&stack).await?;
    }
    Ok(())
}
