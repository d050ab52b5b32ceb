//! Alarms reconciled with Alertmanager (`fm.alertmanager_url`): every
//! `fm.reconcile_interval` the open alarms raised by alerts Alertmanager no longer holds
//! active are cleared (their resolution never arrived), and the FM subscribers concerned
//! are told the alarm list was rebuilt. An unreachable Alertmanager clears nothing.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::Ctx;

pub async fn run(ctx: Arc<Ctx>, stop: CancellationToken) {
    if ctx.fm.alertmanager_url.is_none() {
        return;
    }
    let period = ctx.fm.reconcile_interval;
    crate::periodic::every(&ctx, period, stop, || async {
        match pass(&ctx).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(cleared = n, "alarms reconciled with Alertmanager"),
            Err(e) => tracing::warn!(error = %e, "alarms not reconciled with Alertmanager"),
        }
    })
    .await;
}

/// One reconciliation: how many alarms were cleared.
async fn pass(ctx: &Ctx) -> crate::Result<usize> {
    let fail = |e: String| crate::Error::Monitoring(e);
    let Some(am) = &ctx.fm.alertmanager_url else {
        return Ok(0);
    };
    let base = am.base();
    let url =
        format!("{base}/api/v2/alerts?active=true&silenced=true&inhibited=true&unprocessed=true");
    let r = reqwest::Client::new()
        .get(&url)
        .timeout(std::time::Duration::from_secs(10))
        .send()
        .await
        .map_err(|e| fail(format!("GET {url}: {e}")))?;
    if !r.status().is_success() {
        return Err(fail(format!("GET {url} answered {}", r.status())));
    }
    let alerts: Vec<Value> = r
        .json()
        .await
        .map_err(|e| fail(format!("GET {url}: {e}")))?;
    let firing: HashSet<String> = alerts
        .iter()
        .map(|a| a["fingerprint"].as_str().map(str::to_owned))
        .collect::<Option<_>>()
        .ok_or_else(|| fail(format!("GET {url}: an alert without a fingerprint")))?;
    let settled = chrono::Duration::from_std(ctx.fm.reconcile_interval)
        .ok()
        .and_then(|d| chrono::Utc::now().checked_sub_signed(d))
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MIN_UTC);
    Ok(ctx.db.alarms().reconcile(&firing, settled).await?)
}
