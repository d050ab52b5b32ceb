//! `SyncInstance`: reconcile an instance's stored VNFCs with its VIM now.

use std::sync::Arc;

use prost::Message;
use tacker_rpc::HandlerError;
use tacker_rpc::proto::{SyncInstance, SyncInstanceDone};

use crate::{Ctx, lcm};

pub async fn handle(ctx: &Arc<Ctx>, msg: SyncInstance) -> Result<Vec<u8>, HandlerError> {
    let id = msg
        .vnf_instance_id
        .parse()
        .map_err(|_| HandlerError::new(format!("invalid instance id {:?}", msg.vnf_instance_id)))?;
    let changed = lcm::sync_instance(ctx, id)
        .await
        .map_err(HandlerError::new)?;
    Ok(SyncInstanceDone { changed }.encode_to_vec())
}
