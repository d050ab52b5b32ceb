//! `ClosedLoopDue`: alerts asked for automatic work on an instance; run the closed loop's
//! pass when it is due (the end of its window) rather than at the next periodic pass.
//! Acked at once: the wait runs on its own, and if this conductor dies meanwhile the
//! periodic passes of the others take the work.

use std::sync::Arc;

use tacker_rpc::HandlerError;
use tacker_rpc::proto::ClosedLoopDue;
use uuid::Uuid;

use crate::{Ctx, closed_loop};

pub async fn handle(ctx: &Arc<Ctx>, msg: ClosedLoopDue) -> Result<Vec<u8>, HandlerError> {
    let id: Uuid = msg
        .vnf_instance_id
        .parse()
        .map_err(|_| HandlerError::new(format!("invalid id {:?}", msg.vnf_instance_id)))?;
    tokio::spawn(closed_loop::when_due(ctx.clone(), id));
    Ok(Vec::new())
}
