//! Cancellation of a running occurrence (`POST …/vnf_lcm_op_occs/{id}/cancel`). The API
//! records it on the occurrence; its runner, whichever conductor that is, watches the
//! record: FORCEFUL interrupts the step running now, GRACEFUL stops at the next step
//! boundary (after the grant, a hook or the driver call). Either ends the occurrence as
//! a failure does: ROLLED_BACK from STARTING, FAILED_TEMP from PROCESSING and
//! ROLLING_BACK, from where retry, rollback and fail work. An occurrence whose runner
//! died is settled by the recovery as before (FAILED_TEMP).

use std::future::Future;
use std::time::Duration;

use tacker_domain::Failure;
use tacker_domain::lcm::CancelMode;
use uuid::Uuid;

use crate::Ctx;

/// How often a running step looks for a FORCEFUL cancellation.
const POLL: Duration = Duration::from_millis(300);

/// The failure a cancellation ends an occurrence with.
pub fn cancelled(mode: CancelMode) -> Failure {
    Failure::new(409, format!("cancelled by request (cancelMode {mode})"))
        .with_title("Operation cancelled")
}

async fn pending(ctx: &Ctx, id: Uuid) -> Option<CancelMode> {
    ctx.db.op_occs().pending_cancel(id).await.ok().flatten()
}

/// A step boundary: fails with [`cancelled`] when a cancellation is pending.
pub async fn boundary(ctx: &Ctx, id: Uuid) -> Result<(), Failure> {
    match pending(ctx, id).await {
        Some(mode) => {
            tracing::info!(op_occ_id = %id, %mode, "cancelled");
            Err(cancelled(mode))
        }
        None => Ok(()),
    }
}

/// Runs `steps` unless a FORCEFUL cancellation interrupts them (dropping the step
/// running then).
pub async fn interruptible<T>(
    ctx: &Ctx,
    id: Uuid,
    steps: impl Future<Output = Result<T, Failure>>,
) -> Result<T, Failure> {
    let forceful = async {
        loop {
            tokio::time::sleep(POLL).await;
            if pending(ctx, id).await == Some(CancelMode::Forceful) {
                return;
            }
        }
    };
    tokio::select! {
        r = steps => r,
        () = forceful => {
            tracing::info!(op_occ_id = %id, "cancelled (FORCEFUL): the running step is interrupted");
            Err(cancelled(CancelMode::Forceful))
        }
    }
}
