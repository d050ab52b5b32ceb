//! Periodic resource sync: every `lcm.sync_interval`, each instantiated VNF with no
//! operation in progress has its stored VNFCs reconciled with what runs in its VIM
//! (e.g. Pods Kubernetes replaced on its own). Conductors share the work: one claims an
//! instance in the database before syncing it.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::{Ctx, lcm};

/// Instances claimed per pass.
const BATCH: i64 = 20;

pub async fn run(ctx: Arc<Ctx>, stop: CancellationToken) {
    let every = ctx.lcm.sync_interval;
    if every.is_zero() {
        return;
    }
    let period = (every / 4).clamp(Duration::from_millis(200), Duration::from_secs(10));
    crate::periodic::every(&ctx, period, stop, || sync_due(&ctx, every)).await;
}

/// Syncs the instances not synced for `every`, that this conductor claims.
async fn sync_due(ctx: &Arc<Ctx>, every: Duration) {
    let cutoff = (chrono::Utc::now()
        - chrono::Duration::from_std(every).unwrap_or(chrono::Duration::MAX))
    .naive_utc();
    let due = match ctx.db.instances().claim_sync_due(cutoff, BATCH).await {
        Ok(d) => d,
        Err(e) => {
            tracing::warn!(error = %e, "cannot look for instances to sync");
            return;
        }
    };
    for id in due {
        match lcm::sync_instance(ctx, id).await {
            Ok(true) => {
                tracing::info!(vnf_instance_id = %id, "VNFCs changed in the VIM; stored lists updated")
            }
            Ok(false) => {}
            Err(e) => tracing::warn!(vnf_instance_id = %id, error = %e, "sync failed"),
        }
    }
}
