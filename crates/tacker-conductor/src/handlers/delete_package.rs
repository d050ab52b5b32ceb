//! `DeletePackage`: after a soft delete, the content leaves storage and every cache.

use std::sync::Arc;

use tacker_rpc::HandlerError;
use tacker_rpc::proto::DeletePackage;

use crate::Ctx;
use crate::handlers::package_id;
use crate::onboarding;

pub async fn handle(ctx: &Arc<Ctx>, msg: DeletePackage) -> Result<Vec<u8>, HandlerError> {
    let id = package_id(&msg.package_id)?;
    let state = ctx
        .db
        .packages()
        .state_including_deleted(id)
        .await
        .map_err(HandlerError::new)?;
    if !matches!(state, Some((_, true))) {
        tracing::warn!(package_id = %id, "delete cast for a package that is not deleted; ignored");
        return Ok(Vec::new());
    }
    onboarding::purge(ctx, id).await;
    ctx.db
        .packages()
        .mark_purged(id)
        .await
        .map_err(HandlerError::new)?;
    tracing::info!(package_id = %id, "package content removed from storage and caches");
    Ok(Vec::new())
}
