//! `DeliverRules`: write or remove a PM job's or threshold's Prometheus rules.

use std::sync::Arc;

use prost::Message;
use tacker_rpc::HandlerError;
use tacker_rpc::proto::{DeliverRules, RulesDelivered};

use crate::{Ctx, pm};

pub async fn handle(ctx: &Arc<Ctx>, msg: DeliverRules) -> Result<Vec<u8>, HandlerError> {
    let id = msg
        .owner_id
        .parse()
        .map_err(|_| HandlerError::new(format!("invalid id {:?}", msg.owner_id)))?;
    let rules = pm::deliver(ctx, id, msg.threshold, msg.remove)
        .await
        .map_err(HandlerError::new)?;
    Ok(RulesDelivered { rules }.encode_to_vec())
}
