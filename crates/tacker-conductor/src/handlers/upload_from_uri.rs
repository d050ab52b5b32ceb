//! `UploadFromUri`: fetch the package into storage, then coordinate onboarding.

use std::sync::Arc;

use tacker_domain::Failure;
use tacker_domain::package::OnboardingState;
use tacker_rpc::HandlerError;
use tacker_rpc::proto::UploadFromUri;
use tacker_storage::PackageStore;
use uuid::Uuid;

use crate::Ctx;
use crate::handlers::package_id;
use crate::onboarding::{self, uri};

pub async fn handle(ctx: &Arc<Ctx>, mut msg: UploadFromUri) -> Result<Vec<u8>, HandlerError> {
    let id = package_id(&msg.package_id)?;
    msg.password = ctx.keys.open(&msg.password).map_err(HandlerError::new)?;
    let claimed = onboarding::claim(ctx, id, OnboardingState::Uploading)
        .await
        .map_err(HandlerError::new)?;
    if !claimed {
        tracing::info!(package_id = %id, "upload_from_uri for a package no longer UPLOADING; ignored");
        return Ok(Vec::new());
    }
    tracing::info!(package_id = %id, "fetching the package from its URI");
    if let Err(failure) = fetch(ctx, id, &msg).await {
        tracing::warn!(package_id = %id, detail = %failure.detail, "upload from URI failed");
        onboarding::fail(ctx, id, &failure).await;
        return Ok(Vec::new());
    }
    let claimed = onboarding::claim(ctx, id, OnboardingState::Processing)
        .await
        .map_err(HandlerError::new)?;
    if claimed {
        onboarding::coordinate(ctx, id).await;
    }
    Ok(Vec::new())
}

async fn fetch(ctx: &Arc<Ctx>, id: Uuid, msg: &UploadFromUri) -> Result<(), Failure> {
    let s = &ctx.onboarding;
    let transfer = async {
        let body = uri::open(s, &msg.address, &msg.user_name, &msg.password).await?;
        let key = PackageStore::package_key(&id.to_string());
        // Progress is recorded while the transfer runs.
        let db = ctx.db.clone();
        let every = (s.stall_timeout / 4).max(std::time::Duration::from_millis(200));
        let ticker = tokio::spawn(async move {
            let mut t = tokio::time::interval(every);
            loop {
                t.tick().await;
                let _ = db.packages().touch_progress(id).await;
            }
        });
        let stored = ctx.store.put_stream(&key, body, s.max_package_size).await;
        ticker.abort();
        stored.map_err(|e| match e {
            tacker_storage::Error::TooLarge { limit } => Failure::new(
                413,
                format!(
                    "the package at {} exceeds the limit of {limit} bytes",
                    msg.address
                ),
            ),
            tacker_storage::Error::Source(m) => {
                Failure::new(502, format!("reading {} failed: {m}", msg.address))
            }
            other => Failure::internal(format!(
                "conductor {} could not store the package: {other}",
                ctx.id
            )),
        })
    };
    let stored = tokio::time::timeout(s.uri_timeout, transfer)
        .await
        .map_err(|_| {
            Failure::timeout(format!(
                "fetching {} took longer than {:?}",
                msg.address, s.uri_timeout
            ))
        })??;
    let (size, sha, fast) = (stored.size, stored.sha512.clone(), stored.blake3.clone());
    let ok = ctx
        .db
        .packages()
        .set_content(id, size, &sha, &fast)
        .await
        .map_err(|e| Failure::internal(e.to_string()))?;
    if ok {
        Ok(())
    } else {
        Err(Failure::conflict(
            "the package left UPLOADING during the transfer",
        ))
    }
}
