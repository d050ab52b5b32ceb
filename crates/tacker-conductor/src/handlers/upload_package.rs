//! `UploadPackage`: the content is in storage; this conductor coordinates onboarding.

use std::sync::Arc;

use tacker_domain::package::OnboardingState;
use tacker_rpc::HandlerError;
use tacker_rpc::proto::UploadPackage;

use crate::Ctx;
use crate::handlers::package_id;
use crate::onboarding;

pub async fn handle(ctx: &Arc<Ctx>, msg: UploadPackage) -> Result<Vec<u8>, HandlerError> {
    let id = package_id(&msg.package_id)?;
    let claimed = onboarding::claim(ctx, id, OnboardingState::Processing)
        .await
        .map_err(HandlerError::new)?;
    if !claimed {
        // Redelivered, or the package moved on (failed as stalled, deleted): nothing to do.
        tracing::info!(package_id = %id, "upload cast for a package no longer UPLOADING; ignored");
        return Ok(Vec::new());
    }
    tracing::info!(package_id = %id, "coordinating onboarding");
    onboarding::coordinate(ctx, id).await;
    Ok(Vec::new())
}
