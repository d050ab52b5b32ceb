//! This conductor's CSAR cache filled from package storage: one fill per package at a
//! time, shared by everyone who needs it (onboarding, start-up sync, LCM operations).
//! A fill copies the CSAR only; its files are extracted the first time an operation
//! needs them, within the onboarding limits, so a package nobody runs costs its size and
//! no more on every conductor.

use std::path::Path;

use futures::FutureExt;
use tacker_domain::Failure;
use tacker_storage::PackageStore;
use tracing::Instrument;
use uuid::Uuid;

use crate::Ctx;

/// Files larger than this stay inside the cached `package.zip` (software images are
/// read in place there, by their entry location) instead of being extracted too.
pub const EXTRACT_MAX: u64 = 32 * 1024 * 1024;

/// Extracts a cached CSAR with the same checks as validation (no zip-slip, no symlinks,
/// the expansion limits); files over [`EXTRACT_MAX`] stay in the zip.
pub fn extract(
    zip: &Path,
    dest: &Path,
    limits: &tacker_csar::Limits,
) -> Result<(), tacker_csar::Error> {
    let file = std::fs::File::open(zip)?;
    let mut archive = tacker_csar::Archive::open(std::io::BufReader::new(file), limits)
        .map_err(tacker_csar::Error::Invalid)?;
    archive
        .extract_up_to(dest, EXTRACT_MAX)
        .map(|_| ())
        .map_err(|p| tacker_csar::Error::Invalid(vec![p]))
}

/// The local path of file `name` of a cached package: extracted already, or written
/// now from the CSAR (to a temporary name, then renamed, so concurrent operations never
/// read half a file); `None` when the package has no file `name`.
pub fn extract_file(
    p: &crate::lcm::services::PackageFiles,
    name: &str,
) -> Result<Option<std::path::PathBuf>, tacker_domain::lcm::driver::DriverError> {
    use tacker_domain::lcm::driver::DriverError;
    let failed = |why: String| DriverError::new(422, format!("{name}: {why}"));
    let file = std::fs::File::open(&p.zip).map_err(|e| failed(format!("the cached CSAR: {e}")))?;
    let mut archive = tacker_csar::Archive::open(std::io::BufReader::new(file), &p.limits)
        .map_err(|e| failed(format!("the cached CSAR: {e:?}")))?;
    // Only names the archive holds (checked at open: no '..', no absolute paths).
    if !archive.contains(name) || archive.is_dir(name) {
        return Ok(None);
    }
    let target = p.dir.join(name);
    if target.is_file() {
        return Ok(Some(target));
    }
    let partial = p
        .dir
        .join(format!("{name}.partial-{}", Uuid::new_v4().simple()));
    archive
        .extract_file(name, &partial)
        .map_err(|e| failed(e.to_string()))?;
    std::fs::rename(&partial, &target).map_err(|e| {
        let _ = std::fs::remove_file(&partial);
        DriverError::new(500, format!("{name}: {e}"))
    })?;
    Ok(Some(target))
}

/// A cache fill in flight, awaited by everyone who needs the package.
pub type Fill = futures::future::Shared<futures::future::BoxFuture<'static, Result<(), Failure>>>;

/// Makes sure this conductor's cache holds package `id` with this content digest; joins
/// a fill already in flight for it instead of starting a second one.
pub async fn ensure_cached(ctx: &Ctx, id: Uuid, digest: &str) -> Result<(), Failure> {
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
                        .fill(&id, &store, &key, &digest)
                        .await
                        .map_err(|e| Failure::internal(e.to_string()))
                }
                .instrument(tracing::info_span!("cache.fill"))
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
        Ok(()) => Err(Failure::internal(
            "the cached copy does not have the expected digest",
        )),
        Err(e) => Err(e),
    }
}

/// The extracted files of package `id` (cached with this content digest), extracted the
/// first time an operation needs them.
pub async fn ensure_contents(
    ctx: &Ctx,
    id: Uuid,
    digest: &str,
) -> Result<std::path::PathBuf, Failure> {
    ensure_cached(ctx, id, digest).await?;
    let limits = ctx.onboarding.limits.clone();
    ctx.cache
        .contents(&id.to_string(), move |zip, dest| {
            extract(zip, dest, &limits)
        })
        .instrument(tracing::info_span!("cache.extract"))
        .await
        .map_err(|e| match e {
            // The content is not a readable, safe CSAR: the user's to fix.
            tacker_storage::Error::Extract(detail) => {
                Failure::unprocessable(format!("the package is not a valid CSAR: {detail}"))
            }
            e => Failure::internal(e.to_string()),
        })
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
