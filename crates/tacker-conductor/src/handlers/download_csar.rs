//! `DownloadCsar`: cache the package (streamed, digest-checked, extracted, renamed into
//! place) and confirm it as this incarnation of this conductor.

use std::sync::Arc;

use prost::Message;
use tacker_rpc::HandlerError;
use tacker_rpc::proto::{DownloadCsar, DownloadCsarDone};
use tracing::{Instrument, info_span};

use crate::Ctx;
use crate::cache::ensure_cached;
use crate::handlers::package_id;

pub async fn handle(ctx: &Arc<Ctx>, msg: DownloadCsar) -> Result<Vec<u8>, HandlerError> {
    let id = package_id(&msg.package_id)?;
    ensure_cached(ctx, id, &msg.content_digest)
        .instrument(info_span!("download.cache"))
        .await
        .map_err(HandlerError::new)?;
    let counted = ctx
        .db
        .packages()
        .confirm_download(id, &ctx.id, &ctx.incarnation)
        .instrument(info_span!("download.confirm"))
        .await
        .map_err(HandlerError::new)?;
    if !counted {
        return Err(HandlerError::new(
            "the package is no longer being onboarded",
        ));
    }
    tracing::info!(package_id = %id, "package cached");
    Ok(DownloadCsarDone {
        conductor_id: ctx.id.clone(),
    }
    .encode_to_vec())
}
