//! `PrefetchCsar`: start caching a package a coordinator just took. Coordinators no
//! longer send it (a package reaches the other conductors only once it is valid, by
//! `DownloadCsar`); it is still served during a rolling upgrade, for coordinators of the
//! previous version, and copies the CSAR only (nothing is extracted before an operation
//! needs it).

use std::sync::Arc;

use tacker_domain::package::OnboardingState;
use tacker_rpc::HandlerError;
use tacker_rpc::proto::PrefetchCsar;
use tracing::Instrument;

use crate::Ctx;
use crate::cache::ensure_cached;
use crate::handlers::package_id;

pub async fn handle(ctx: &Arc<Ctx>, msg: PrefetchCsar) -> Result<Vec<u8>, HandlerError> {
    let id = package_id(&msg.package_id)?;
    let state = ctx
        .db
        .packages()
        .state_including_deleted(id)
        .await
        .map_err(HandlerError::new)?;
    if state != Some((OnboardingState::Processing, false)) {
        return Ok(Vec::new());
    }
    if let Err(e) = ensure_cached(ctx, id, &msg.content_digest)
        .instrument(tracing::info_span!("prefetch.cache"))
        .await
    {
        // DownloadCsar will try again and report it.
        tracing::debug!(package_id = %id, error = %e, "prefetch failed");
    }
    Ok(Vec::new())
}
