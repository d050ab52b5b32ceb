//! Start-up cache sync: hold every ONBOARDED package, drop everything else.

use std::collections::HashSet;

use futures::StreamExt;

use crate::cache::ensure_cached;
use crate::{Ctx, Result};

/// Packages fetched at once: each fill waits mostly on its file's fsync, so a few side
/// by side keep the disk busy; each holds at most about 9 MiB of buffers.
const PARALLEL_FILLS: usize = 4;

/// Downloads every ONBOARDED package missing from the cache (digests verified),
/// [`PARALLEL_FILLS`] at a time, and removes cache entries that are not ONBOARDED.
/// Fails with the first download error (once the fills under way have ended).
pub async fn run(ctx: &Ctx) -> Result<()> {
    let onboarded = ctx.db.packages().onboarded().await?;
    let keep: HashSet<String> = onboarded.iter().map(|(id, _)| id.to_string()).collect();
    let missing: Vec<_> = onboarded
        .iter()
        .filter(|(id, digest)| !ctx.cache.holds(&id.to_string(), digest))
        .collect();
    let fetched = missing.len();
    // After a failure no new fill starts; those under way finish (none is left half-done).
    let failure = std::sync::Mutex::new(None);
    futures::stream::iter(missing)
        .for_each_concurrent(PARALLEL_FILLS, |(id, digest)| {
            let failure = &failure;
            async move {
                if lock(failure).is_some() {
                    return;
                }
                if let Err(e) = ensure_cached(ctx, *id, digest).await {
                    lock(failure).get_or_insert(crate::Error::Cache(e.detail));
                }
            }
        })
        .await;
    if let Some(e) = lock(&failure).take() {
        return Err(e);
    }
    let mut dropped = 0;
    for cached in ctx.cache.list()? {
        if !keep.contains(&cached) {
            ctx.cache.remove(&cached).await?;
            dropped += 1;
        }
    }
    tracing::info!(conductor_id = %ctx.id, packages = onboarded.len(), fetched, dropped, "cache in sync");
    Ok(())
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
