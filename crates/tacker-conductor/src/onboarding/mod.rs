//! Onboarding a package across every live conductor (the coordinator's side), and the
//! failure path that leaves nothing half-onboarded.

pub mod uri;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tacker_db::{conductors, packages};
use tacker_domain::ProblemDetails;
use tacker_rpc::proto::{DownloadCsar, DownloadCsarDone, DropCache, DropCacheDone};
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

/// Extracts a cached CSAR with the same checks as validation (no zip-slip, no symlinks).
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
    archive.extract_to(dest).map_err(|p| p.to_string())
}

/// Makes sure this conductor's cache holds package `id` with this SHA-512.
pub async fn ensure_cached(ctx: &Ctx, id: Uuid, sha512: &str) -> Result<(), tacker_storage::Error> {
    let id_text = id.to_string();
    if ctx.cache.holds(&id_text, sha512) {
        return Ok(());
    }
    let key = PackageStore::package_key(&id_text);
    ctx.cache
        .fill(&id_text, &ctx.store, &key, sha512, extract)
        .await
}

/// Coordinates the onboarding of `id`, now PROCESSING under this conductor: cache it
/// here, validate it, record its model, have every live conductor cache it, then
/// ONBOARDED — or the failure path.
pub async fn coordinate(ctx: &Arc<Ctx>, id: Uuid) {
    match try_coordinate(ctx, id).await {
        Ok(()) => {
            ctx.metrics.onboarded(true);
            tracing::info!(package_id = %id, "ONBOARDED");
        }
        Err(Stop::Failed(problem)) => {
            ctx.metrics.onboarded(false);
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

    ensure_cached(ctx, id, &sha512).await.map_err(|e| {
        Stop::Failed(ProblemDetails::new(
            500,
            format!("conductor {} could not cache the package: {e}", ctx.id),
        ))
    })?;
    let path = ctx.cache.csar_path(&id.to_string());
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
    let members: Vec<String> = match ctx.db.run(move |c| conductors::list(c)).await {
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
    if let Err(e) = ctx.cache.remove(&id_text).await {
        tracing::warn!(package_id = %id, error = %e, "could not clear the local cache");
    }
}
