//! Start-up cache sync: hold every ONBOARDED package, drop everything else.

use std::collections::HashSet;

use tacker_db::packages;

use crate::cache::ensure_cached;
use crate::{Ctx, Result};

/// Downloads every ONBOARDED package missing from the cache (digests verified) and
/// removes cache entries that are not ONBOARDED. Fails on the first download error.
pub async fn run(ctx: &Ctx) -> Result<()> {
    let onboarded = ctx.db.run(packages::onboarded).await?;
    let keep: HashSet<String> = onboarded.iter().map(|(id, _)| id.to_string()).collect();
    let mut fetched = 0;
    for (id, digest) in &onboarded {
        if !ctx.cache.holds(&id.to_string(), digest) {
            ensure_cached(ctx, *id, digest)
                .await
                .map_err(|e| crate::Error::Cache(e.detail))?;
            fetched += 1;
        }
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
