//! Onboarding a package across every live conductor (the coordinator's side), and the
//! failure path that leaves nothing half-onboarded.

pub mod uri;

use std::sync::Arc;
use std::time::Duration;

use tacker_db::packages;
use tacker_domain::package::OnboardingState;
use tacker_domain::{Failure, FailureKind};
use tacker_rpc::proto::{DownloadCsar, DownloadCsarDone, DropCache, DropCacheDone};
use tacker_storage::PackageStore;
use tracing::{Instrument, info_span};
use uuid::Uuid;

use crate::Ctx;
use crate::cache::{ensure_cached, settle_fill};

fn internal(ctx: &Ctx, what: &str, e: impl std::fmt::Display) -> Failure {
    Failure::internal(format!("conductor {}: {what}: {e}", ctx.id))
}

/// Takes an UPLOADING package as this conductor's, moving it to `to` (UPLOADING while
/// this conductor fetches it, PROCESSING to coordinate); `false` when it is no longer
/// UPLOADING (a redelivery, or it moved on).
pub async fn claim(ctx: &Ctx, id: Uuid, to: OnboardingState) -> crate::Result<bool> {
    Ok(ctx
        .db
        .packages()
        .claim(
            id,
            &ctx.id,
            &ctx.incarnation,
            OnboardingState::Uploading,
            to,
        )
        .await?)
}

/// Coordinates the onboarding of `id`, now PROCESSING under this conductor: cache it
/// here, validate it, record its model, have every live conductor cache it, then
/// ONBOARDED — or the failure path. Each step is a span named `onboarding.<step>`
/// (`log.span_timings` logs their times).
pub async fn coordinate(ctx: &Arc<Ctx>, id: Uuid) {
    let started = std::time::Instant::now();
    match try_coordinate(ctx, id).await {
        Ok(()) => {
            ctx.metrics.onboarded(true, started.elapsed());
            tracing::info!(package_id = %id, "ONBOARDED");
        }
        Err(f) if f.is_superseded() => {
            tracing::info!(package_id = %id, "onboarding ended elsewhere")
        }
        Err(f) => {
            ctx.metrics.onboarded(false, started.elapsed());
            tracing::warn!(package_id = %id, detail = %f.detail, "onboarding failed");
            fail(ctx, id, &f).await;
        }
    }
}

async fn try_coordinate(ctx: &Arc<Ctx>, id: Uuid) -> Result<(), Failure> {
    let (sha512, digest) = read(ctx, id)
        .instrument(info_span!("onboarding.read"))
        .await?;

    // Only this conductor holds the package until it is valid: the others are asked to
    // (DownloadCsar) once it is.
    ensure_cached(ctx, id, &digest)
        .instrument(info_span!("onboarding.cache"))
        .await
        .map_err(|e| match e.kind {
            FailureKind::BadRequest => e,
            _ => Failure::internal(format!(
                "conductor {} could not cache the package: {e}",
                ctx.id
            )),
        })?;
    let path = ctx.cache.csar_path(&id.to_string());
    let started = std::time::Instant::now();
    let limits = ctx.onboarding.limits.clone();
    let validated = tokio::task::spawn_blocking(move || tacker_csar::validate_file(&path, &limits))
        .instrument(info_span!("onboarding.validate"))
        .await
        .map_err(|e| internal(ctx, "validation task", e))?;
    let model = match validated {
        Ok(v) => v.model,
        Err(tacker_csar::Error::Invalid(problems)) => {
            let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
            return Err(Failure::unprocessable(format!(
                "the package is invalid ({} problem(s)): {}",
                list.len(),
                list.join("; ")
            )));
        }
        Err(e) => return Err(internal(ctx, "reading the cached package", e)),
    };
    tracing::debug!(package_id = %id, elapsed = ?started.elapsed(), "validated");
    let stored = ctx
        .db
        .packages()
        .store_model(id, &ctx.id, &model)
        .instrument(info_span!("onboarding.store_model"))
        .await
        .map_err(|e| internal(ctx, "recording the VNFD", e))?;
    match stored {
        packages::StoreModel::Stored => {}
        packages::StoreModel::Lost => return Err(Failure::superseded()),
        packages::StoreModel::DuplicateVnfdId(other) => {
            return Err(Failure::conflict(format!(
                "vnfdId {} is already used by VNF package {other}",
                model.vnfd.vnfd_id
            )));
        }
        packages::StoreModel::ForeignVendor(vendors) => {
            return Err(Failure::unprocessable(format!(
                "the VNFD's provider {:?} is not one of the vendors the uploader is confined \
                 to ({}): a VENDOR_ role onboards its own provider's packages only",
                model.vnfd.provider,
                vendors.join(", ")
            )));
        }
    }

    let msg = DownloadCsar {
        package_id: id.to_string(),
        sha512,
        content_digest: digest,
    };
    gather(ctx, id, &msg)
        .instrument(info_span!("onboarding.gather"))
        .await
}

/// The package's recorded checksum (SHA-512) and content digest.
async fn read(ctx: &Ctx, id: Uuid) -> Result<(String, String), Failure> {
    let stored = ctx
        .db
        .packages()
        .get(id)
        .await
        .map_err(|e| internal(ctx, "reading the package", e))?
        .ok_or_else(Failure::superseded)?;
    let sha512 = stored
        .package
        .checksum
        .map(|c| c.hash)
        .ok_or_else(|| internal(ctx, "reading the package", "no checksum recorded"))?;
    let digest = ctx
        .db
        .packages()
        .content_digest(id)
        .await
        .map_err(|e| internal(ctx, "reading the package", e))?
        .ok_or_else(|| internal(ctx, "reading the package", "no content digest recorded"))?;
    Ok((sha512, digest))
}

/// Has every live READY conductor cache the package and confirm it as its current
/// incarnation, then ONBOARDED. The conductors live when the gathering begins must all
/// confirm (one that stops heartbeating fails the onboarding, naming it), and so must
/// any that becomes READY meanwhile. A member that restarts meanwhile (its confirmation
/// is from an older incarnation) or does not answer is asked again until
/// `download_timeout`; then the onboarding fails, naming them. A member that fails to
/// cache fails it at once.
async fn gather(ctx: &Ctx, id: Uuid, msg: &DownloadCsar) -> Result<(), Failure> {
    let timeout = ctx.onboarding.download_timeout;
    let deadline = tokio::time::Instant::now() + timeout;
    let id_text = id.to_string();
    let dead_after = ctx.dead_after;
    let required: Vec<String> = ctx
        .db
        .conductors()
        .live_ready(dead_after)
        .instrument(info_span!("onboarding.members"))
        .await
        .map_err(|e| internal(ctx, "reading the live conductors", e))?
        .into_iter()
        .map(|c| c.id)
        .collect();
    loop {
        let done = match ctx
            .db
            .packages()
            .complete_onboarding(id, &required, dead_after)
            .instrument(info_span!("onboarding.complete"))
            .await
        {
            Ok(d) => d,
            // The database blipped: try again while time is left.
            Err(tacker_db::Error::Unavailable(e))
                if tokio::time::Instant::now() + Duration::from_millis(500) < deadline =>
            {
                tracing::warn!(package_id = %id, error = %e, "database unreachable; checking the confirmations again");
                tokio::time::sleep(Duration::from_millis(500)).await;
                continue;
            }
            Err(e) => return Err(internal(ctx, "recording ONBOARDED", e)),
        };
        let pending = match done {
            packages::Completion::Done => return Ok(()),
            packages::Completion::Lost => return Err(Failure::superseded()),
            packages::Completion::Missing { dead, .. }
                if !dead.is_empty() && ctx.may_judge_liveness() =>
            {
                return Err(Failure::internal(format!(
                    "conductor(s) {} stopped heartbeating before confirming the package cached",
                    dead.join(", ")
                )));
            }
            // Right after a database outage old heartbeats prove nothing: ask them too.
            packages::Completion::Missing { pending, dead } => {
                pending.into_iter().chain(dead).collect::<Vec<_>>()
            }
        };
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            return Err(Failure::timeout(format!(
                "conductor(s) {} did not confirm caching the package within {timeout:?}",
                pending.join(", ")
            )));
        }
        tracing::debug!(package_id = %id, ?pending, "asking conductors to cache the package");
        // Asked in short rounds, so a member that dies or restarts is noticed soon.
        let round = left.min(dead_after.max(Duration::from_secs(1)));
        let g = ctx
            .bus
            .scatter_gather::<DownloadCsar, DownloadCsarDone>(
                msg,
                &pending,
                &[("package_id", &id_text)],
                round,
            )
            .instrument(info_span!("onboarding.ask", members = pending.len()))
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
            return Err(Failure::internal(failures.join("; ")));
        }
    }
}

/// Records a database step of the failure path, retrying while the database is
/// unreachable (a package must not stay in onboarding under a live coordinator).
async fn record<F>(ctx: &Ctx, id: Uuid, what: &str, step: F) -> Option<bool>
where
    F: Fn(&mut tacker_db::DbConnection) -> tacker_db::Result<bool> + Send + Clone + 'static,
{
    let mut delay = Duration::from_millis(200);
    loop {
        let s = step.clone();
        match ctx.db.run(move |c| s(c)).await {
            Ok(done) => return Some(done),
            Err(tacker_db::Error::Unavailable(e)) => {
                tracing::warn!(package_id = %id, error = %e, retry_in = ?delay, "database unreachable; {what} again");
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(5));
            }
            Err(e) => {
                tracing::error!(package_id = %id, error = %e, "could not {what}");
                return None;
            }
        }
    }
}

/// The failure path: the onboarding is marked failing (it can no longer complete), its
/// content leaves storage and every cache, then the package returns to CREATED with
/// `failure` as its details. Nothing is removed when it was no longer being onboarded
/// (it may have been ONBOARDED meanwhile).
pub async fn fail(ctx: &Ctx, id: Uuid, failure: &Failure) {
    let problem = failure.problem();
    let p = problem.clone();
    let failing = record(ctx, id, "record the onboarding failure", move |c| {
        packages::begin_failing(c, id, &p)
    })
    .await;
    if failing != Some(true) {
        return tracing::debug!(package_id = %id, "already out of onboarding; its content stays");
    }
    purge(ctx, id).await;
    let p = problem.clone();
    if record(ctx, id, "return the package to CREATED", move |c| {
        packages::fail_onboarding(c, id, &p)
    })
    .await
        == Some(true)
    {
        tracing::info!(package_id = %id, "returned to CREATED");
    }
}

/// Asks `members` to drop package `id` from their caches.
async fn drop_caches(ctx: &Ctx, id: Uuid, members: &[String]) {
    let id_text = id.to_string();
    let msg = DropCache {
        package_id: id_text.clone(),
    };
    let res = ctx
        .bus
        .scatter_gather::<DropCache, DropCacheDone>(
            &msg,
            members,
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
}

/// Removes a package's content from storage, from every other live conductor's cache
/// and from this one's.
pub async fn purge(ctx: &Ctx, id: Uuid) {
    let id_text = id.to_string();
    if let Err(e) = ctx.store.delete(&PackageStore::package_key(&id_text)).await {
        tracing::warn!(package_id = %id, error = %e, "could not delete the stored package");
    }
    let dead_after = ctx.dead_after;
    match ctx.db.conductors().alive(dead_after).await {
        Ok(alive) => {
            // This conductor's own cache is cleared below (it may not be consuming yet).
            let members: Vec<String> = alive
                .into_iter()
                .map(|c| c.id)
                .filter(|m| *m != ctx.id)
                .collect();
            drop_caches(ctx, id, &members).await;
        }
        Err(e) => {
            tracing::warn!(package_id = %id, error = %e, "cannot read the conductors; their caches drop the package at their next sync")
        }
    }
    settle_fill(ctx, &id_text).await;
    if let Err(e) = ctx.cache.remove(&id_text).await {
        tracing::warn!(package_id = %id, error = %e, "could not clear the local cache");
    }
}
