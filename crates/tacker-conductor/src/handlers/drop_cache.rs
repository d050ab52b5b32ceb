//! `DropCache`: remove a package from this conductor's cache.

use std::sync::Arc;

use prost::Message;
use tacker_rpc::HandlerError;
use tacker_rpc::proto::{DropCache, DropCacheDone};

use crate::handlers::package_id;
use crate::{Ctx, cache};

pub async fn handle(ctx: &Arc<Ctx>, msg: DropCache) -> Result<Vec<u8>, HandlerError> {
    let id = package_id(&msg.package_id)?;
    // A fill of this package still running here would put it back: let it end first.
    cache::settle_fill(ctx, &id.to_string()).await;
    ctx.cache
        .remove(&id.to_string())
        .await
        .map_err(HandlerError::new)?;
    tracing::debug!(package_id = %id, "dropped from the cache");
    Ok(DropCacheDone {
        conductor_id: ctx.id.clone(),
    }
    .encode_to_vec())
}
