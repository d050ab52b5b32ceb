//! `Ping`: answers with this conductor's id (liveness over the bus).

use prost::Message;
use tacker_rpc::HandlerError;
use tacker_rpc::proto::{Ping, Pong};

use crate::Ctx;

pub async fn handle(ctx: &Ctx, ping: Ping) -> Result<Vec<u8>, HandlerError> {
    Ok(Pong {
        conductor_id: ctx.id.clone(),
        note: ping.note,
    }
    .encode_to_vec())
}
