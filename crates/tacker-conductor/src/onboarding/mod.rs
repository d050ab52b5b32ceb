//! Onboarding a package across every live conductor (the coordinator's side), and the
//! failure path that leaves nothing half-onboarded.

pub mod uri;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tacker_db::{conductors, packages};
use tacker_domain::ProblemDetails;
use tacker_rpc::proto::{DownloadCsar, DownloadCsarDone, DropCache, DropCacheDone, PrefetchCsar};
use tacker_storage::PackageStore;
use uuid::Uuid;

use crate::Ctx;

/// Why a coordination stopped.
pub enum Stop {
    /// The package failed: record this and clean up.
    Failed(ProblemDetails),
    /// Someone else already ended this onboarding: nothing to do.
    Lost,
}

impl From<ProblemDetails> for Stop {
    fn from(p: ProblemDetails) -> Self {
        Stop::Failed(p)
    }
}

fn internal(ctx: &Ctx, what: &str, e: impl std::fmt::Display) -> Stop {
    Stop::Failed(ProblemDetails::new(
        500,
        format!("conductor {}: {what}: {e}", ctx.id),
    ))
}

/// Files larger than this stay inside the cached `package.zip` (software images are
/// read in place there, by their entry location) instead of being extracted too.
pub const EXTRACT_MAX: u64 = 32 * 1024 * 1024;

/// Extracts a cached CSAR with the same checks as validation (no zip-slip, no symlinks);
/// files over [`EXTRACT_MAX`] stay in the zip.
pub fn extract(zip: &Path, dest: &Path) -> Result<(), String> {
    let file = std::fs::File::open(zip).map_err(|e| e.to_string())?;
    let limits = tacker_csar::Limits::default();
    let mut archive =
        tacker_csar::Archive::open(std::io::BufReader::new(file), &limits).map_err(|problems| {
            problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        })?;
    archive
        .extract_up_to(dest, EXTRACT_MAX)
        .map(|_| ())
        .map_err(|p| p.to_string())
}

/// A cache fill in flight, awaited by everyone who needs the package.
pub type Fill = futures::future::Shared<futures::future::BoxFuture<'static, Result<(), String>>>;

/// Makes sure this conductor's cache holds package `id` with this content digest; joins
/// a fill already in flight for it instead of starting a second one.
pub async fn ensure_cached(ctx: &Ctx, id: Uuid, digest: &str) -> Result<(), String> {
    use futures::FutureExt;
    let id_text = id.to_string();
    if ctx.cache.holds(&id_text, digest) {
        return Ok(());
    }
    let fill = {
        let mut fills = ctx
            .fills
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        fills
            .entry(id_text.clone())
            .or_insert_with(|| {
                let (cache, store, digest, id) = (
                    ctx.cache.clone(),
                    ctx.store.clone(),
                    digest.to_owned(),
                    id_text.clone(),
                );
                async move {
                    let key = PackageStore::package_key(&id);
                    cache
                        .fill(&id, &store, &key, &digest, extract)
                        .await
                        .map_err(|e| e.to_string())
                }
                .boxed()
                .shared()
            })
            .clone()
    };
    let result = fill.await;
    ctx.fills
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .remove(&id_text);
    match result {
        Ok(()) if ctx.cache.holds(&id_text, digest) => Ok(()),
        Ok(()) => Err("the cached copy does not have the expected digest".into()),
        Err(e) => Err(e),
    }
}

/// Waits for a fill of package `id` in flight, if any, so a removal that follows wins.
pub async fn settle_fill(ctx: &Ctx, id: &str) {
    let fill = ctx
        .fills
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(id)
        .cloned();
    if let Some(f) = fill {
        let _ = f.await;
    }
}

/// Coordinates the onboarding of `id`, now PROCESSING under this conductor: cache it
/// here, validate it, record its model, have every live conductor cache it, then
/// ONBOARDED — or the failure path.
pub async fn coordinate(ctx: &Arc<Ctx>, id: Uuid) {
    let started = std::time::Instant::now();
    match try_coordinate(ctx, id).await {
        Ok(()) => {
            ctx.metrics.onboarded(true, started.elapsed());
            tracing::info!(package_id = %id, "ONBOARDED");
        }
        Err(Stop::Failed(problem)) => {
            ctx.metrics.onboarded(false, started.elapsed());
            tracing::warn!(package_id = %id, detail = %problem.detail, "onboarding failed");
            fail(ctx, id, problem).await;
        }
        Err(Stop::Lost) => tracing::info!(package_id = %id, "onboarding ended elsewhere"),
    }
}

async fn try_coordinate(ctx: &Arc<Ctx>, id: Uuid) -> Result<(), Stop> {
    let stored = ctx
        .db
        .run(move |c| packages::get(c, id))
        .await
        .map_err(|e| internal(ctx, "reading the package", e))?
        .ok_or(Stop::Lost)?;
    let sha512 = stored
        .package
        .checksum
        .map(|c| c.hash)
        .ok_or_else(|| internal(ctx, "reading the package", "no checksum recorded"))?;
    let digest = ctx
        .db
        .run(move |c| packages::content_digest(c, id))
        .await
        .map_err(|e| internal(ctx, "reading the package", e))?
        .ok_or_else(|| internal(ctx, "reading the package", "no content digest recorded"))?;

    // Conductors start caching now; only DownloadCsar (after validation) counts them in.
    let prefetch = PrefetchCsar {
        package_id: id.to_string(),
        content_digest: digest.clone(),
    };
    if let Err(e) = ctx
        .bus
        .fanout(&prefetch, &[("package_id", &id.to_string())])
        .await
    {
        tracing::debug!(package_id = %id, error = %e, "prefetch fanout failed; conductors fetch on DownloadCsar");
    }
    ensure_cached(ctx, id, &digest).await.map_err(|e| {
        Stop::Failed(ProblemDetails::new(
            500,
            format!("conductor {} could not cache the package: {e}", ctx.id),
        ))
    })?;
    let path = ctx.cache.csar_path(&id.to_string());
    let started = std::time::Instant::now();
    let validated = tokio::task::spawn_blocking(move || {
        tacker_csar::validate_file(&path, &tacker_csar::Limits::default())
    })
    .await
    .map_err(|e| internal(ctx, "validation task", e))?;
    let model = match validated {
        Ok(v) => v.model,
        Err(tacker_csar::Error::Invalid(problems)) => {
            let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
            return Err(Stop::Failed(ProblemDetails::new(
                422,
                format!(
                    "the package is invalid ({} problem(s)): {}",
                    list.len(),
                    list.join("; ")
                ),
            )));
        }
        Err(e) => return Err(internal(ctx, "reading the cached package", e)),
    };
    tracing::debug!(package_id = %id, elapsed = ?started.elapsed(), "validated");
    let me = ctx.id.clone();
    let m = model.clone();
    let stored = ctx
        .db
        .run(move |c| packages::store_model(c, id, &me, &m))
        .await
        .map_err(|e| internal(ctx, "recording the VNFD", e))?;
    match stored {
        packages::StoreModel::Stored => {}
        packages::StoreModel::Lost => return Err(Stop::Lost),
        packages::StoreModel::DuplicateVnfdId(other) => {
            return Err(Stop::Failed(ProblemDetails::new(
                409,
                format!(
                    "vnfdId {} is already used by VNF package {other}",
                    model.vnfd.vnfd_id
                ),
            )));
        }
    }

    let dead_after = ctx.dead_after;
    let live: Vec<String> = ctx
        .db
        .run(move |c| conductors::live_ready(c, dead_after))
        .await
        .map_err(|e| internal(ctx, "reading the live conductors", e))?
        .into_iter()
        .map(|c| c.id)
        .collect();
    let timeout = ctx.onboarding.download_timeout;
    let msg = DownloadCsar {
        package_id: id.to_string(),
        sha512,
        content_digest: digest,
    };
    let id_text = id.to_string();
    let g = ctx
        .bus
        .scatter_gather::<DownloadCsar, DownloadCsarDone>(
            &msg,
            &live,
            &[("package_id", &id_text)],
            timeout,
        )
        .await
        .map_err(|e| internal(ctx, "asking the conductors to cache the package", e))?;
    let failures: Vec<String> = g
        .replies
        .iter()
        .filter_map(|(who, r)| {
            r.as_ref()
                .err()
                .map(|e| format!("conductor {who} failed to cache the package: {e}"))
        })
        .collect();
    if !failures.is_empty() {
        return Err(Stop::Failed(ProblemDetails::new(500, failures.join("; "))));
    }
    if !g.missing.is_empty() {
        return Err(Stop::Failed(ProblemDetails::new(
            504,
            format!(
                "conductor(s) {} did not confirm caching the package within {timeout:?}",
                g.missing.join(", ")
            ),
        )));
    }
    let n = i32::try_from(live.len()).unwrap_or(i32::MAX);
    let done = ctx
        .db
        .run(move |c| packages::complete_onboarding(c, id, n))
        .await
        .map_err(|e| internal(ctx, "recording ONBOARDED", e))?;
    if !done {
        return Err(Stop::Failed(ProblemDetails::new(
            500,
            format!("the download counter does not match the {n} live conductor(s) that confirmed"),
        )));
    }
    Ok(())
}

/// The failure path: the content leaves storage and every cache, then the package
/// returns to CREATED with `problem` as its failure details.
pub async fn fail(ctx: &Ctx, id: Uuid, problem: ProblemDetails) {
    purge(ctx, id).await;
    match ctx
        .db
        .run(move |c| packages::fail_onboarding(c, id, &problem))
        .await
    {
        Ok(true) => tracing::info!(package_id = %id, "returned to CREATED"),
        Ok(false) => tracing::debug!(package_id = %id, "already out of onboarding"),
        Err(e) => {
            tracing::error!(package_id = %id, error = %e, "could not record the onboarding failure")
        }
    }
}

/// Removes a package's content from storage and from every live conductor's cache.
pub async fn purge(ctx: &Ctx, id: Uuid) {
    let id_text = id.to_string();
    if let Err(e) = ctx.store.delete(&PackageStore::package_key(&id_text)).await {
        tracing::warn!(package_id = %id, error = %e, "could not delete the stored package");
    }
    let dead_after = ctx.dead_after;
    let members: Vec<String> = match ctx.db.run(conductors::list).await {
        Ok(all) => {
            let now = chrono::Utc::now();
            let age = chrono::Duration::from_std(dead_after).unwrap_or(chrono::Duration::MAX);
            all.into_iter()
                .filter(|c| now - c.last_heartbeat < age)
                .map(|c| c.id)
                .collect()
        }
        Err(_) => Vec::new(),
    };
    let msg = DropCache {
        package_id: id_text.clone(),
    };
    let res = ctx
        .bus
        .scatter_gather::<DropCache, DropCacheDone>(
            &msg,
            &members,
            &[("package_id", &id_text)],
            Duration::from_secs(10),
        )
        .await;
    match res {
        Ok(g) if g.missing.is_empty() => {}
        Ok(g) => {
            tracing::warn!(package_id = %id, missing = ?g.missing, "some caches not confirmed cleared; they drop it at their next sync")
        }
        Err(e) => {
            tracing::warn!(package_id = %id, error = %e, "could not ask the caches to drop the package")
        }
    }
    settle_fill(ctx, &id_text).await;
    if let Err(e) = ctx.cache.remove(&id_text).await {
        tracing::warn!(package_id = %id, error = %e, "could not clear the local cache");
    }
}
