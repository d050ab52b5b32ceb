//! The `noop` management driver: hooks that need no work.

use tacker_domain::lcm::driver::{DriverError, MgmtDriver, OpContext};

/// Runs every hook by doing nothing.
#[derive(Debug, Default)]
pub struct Noop;

#[async_trait::async_trait]
impl MgmtDriver for Noop {
    async fn run_hook(&self, hook: &str, ctx: &OpContext) -> Result<(), DriverError> {
        tracing::debug!(op_occ_id = %ctx.op.id, hook, "noop management driver");
        Ok(())
    }
}
