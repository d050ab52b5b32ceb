//! `RunLcmOp`: run an operation occurrence from the state it is in.

use std::sync::Arc;

use tacker_rpc::HandlerError;
use tacker_rpc::proto::RunLcmOp;

use crate::{Ctx, lcm};

pub async fn handle(ctx: &Arc<Ctx>, msg: RunLcmOp) -> Result<Vec<u8>, HandlerError> {
    let id = msg
        .op_occ_id
        .parse()
        .map_err(|_| HandlerError::new(format!("invalid op occurrence id {:?}", msg.op_occ_id)))?;
    lcm::run(ctx, id).await.map_err(HandlerError::new)?;
    Ok(Vec::new())
}
