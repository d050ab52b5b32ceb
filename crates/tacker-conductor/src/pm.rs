//! Delivery of PM jobs' and thresholds' Prometheus rules (`[pm]`): a rule file per job
//! or threshold (`<rules_dir>/tacker-<id>.json`, written whole then renamed, so
//! Prometheus never reads half a file) followed by Prometheus' reload, and/or a
//! `PrometheusRule` per instance on its Kubernetes VIM. A failed delivery undoes what
//! it wrote and says why (the API refuses the request then); removal removes both.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tacker_domain::lcm::VnfInstance;
use tacker_domain::pm::rules::{self, Owner};
use uuid::Uuid;

use crate::{Ctx, Error, Result};

/// How rules are delivered, and the PromQL table.
#[derive(Debug, Clone)]
pub struct PmSettings {
    /// Where rule files go.
    pub rules_dir: Option<PathBuf>,
    /// Prometheus' reload endpoint.
    pub reload_url: Option<String>,
    /// PrometheusRule objects on the VNF's cluster.
    pub prometheus_rule: bool,
    /// Their labels.
    pub labels: Map<String, Value>,
    /// Thresholds' collection and reporting periods (seconds).
    pub threshold_periods: (u32, u32),
    /// How long reports are kept.
    pub report_retention: Duration,
    /// The PromQL table.
    pub promql: BTreeMap<String, String>,
    /// Timeout of the reload call.
    pub timeout: Duration,
}

impl PmSettings {
    /// The `[pm]` settings of `cfg`: upstream's PromQL table with `pm.promql` over it
    /// (a metric not in the table, or a template that does not fill, is refused).
    pub fn from_config(cfg: &tacker_config::Config) -> crate::Result<Self> {
        let p = &cfg.pm;
        let mut promql = rules::default_promql();
        for (k, v) in &p.promql {
            if !promql.contains_key(k) {
                return Err(crate::Error::Config(format!(
                    "pm.promql.{k}: not a metric of the PromQL table ({})",
                    promql.keys().cloned().collect::<Vec<_>>().join(", ")
                )));
            }
            promql.insert(k.clone(), v.clone());
        }
        rules::check_table(&promql).map_err(crate::Error::Config)?;
        let secs = |d: Duration| u32::try_from(d.as_secs()).unwrap_or(u32::MAX);
        Ok(Self {
            rules_dir: Some(PathBuf::from(&p.rules_dir)).filter(|d| !d.as_os_str().is_empty()),
            reload_url: p.prometheus_reload_url.as_ref().map(ToString::to_string),
            prometheus_rule: p.prometheus_rule,
            labels: p
                .prometheus_rule_labels
                .iter()
                .map(|l| (l.name.clone(), json!(l.value)))
                .collect(),
            threshold_periods: (
                secs(p.threshold_collection_period),
                secs(p.threshold_reporting_period),
            ),
            report_retention: p.report_retention,
            promql,
            timeout: cfg.lcm.http_timeout,
        })
    }
}

/// What rules are for, as stored.
enum Stored {
    Job(tacker_domain::pm::job::PmJob),
    Threshold(tacker_domain::pm::threshold::Threshold),
}

impl Stored {
    fn objects(&self) -> Vec<Uuid> {
        match self {
            Stored::Job(j) => j.object_instance_ids.clone(),
            Stored::Threshold(t) => vec![t.object_instance_id],
        }
    }
}

/// Writes (or, `remove`, removes) the rules of job or threshold `id`; how many rules.
pub async fn deliver(ctx: &Arc<Ctx>, id: Uuid, threshold: bool, remove: bool) -> Result<u32> {
    let s = &ctx.pm;
    if s.rules_dir.is_none() && !s.prometheus_rule {
        return Err(Error::Monitoring(
            "no delivery of Prometheus rules is configured (pm.rules_dir and/or pm.prometheus_rule)"
                .into(),
        ));
    }
    let stored = if threshold {
        ctx.db.pm_thresholds().get(id).await?.map(Stored::Threshold)
    } else {
        ctx.db.pm_jobs().get(id).await?.map(Stored::Job)
    };
    let name = rules::group_name(id);
    if remove {
        if let Some(st) = &stored
            && s.prometheus_rule
        {
            for o in st.objects() {
                cluster_rules(ctx, o, &name, None).await?;
            }
        }
        remove_file(ctx, &name).await?;
        return Ok(0);
    }
    let st = stored.ok_or_else(|| Error::Monitoring(format!("{id} not found")))?;
    let mut instances: BTreeMap<Uuid, VnfInstance> = BTreeMap::new();
    for o in st.objects() {
        if let Some(i) = ctx.db.instances().get(o).await? {
            instances.insert(o, i);
        }
    }
    let owner = match &st {
        Stored::Job(j) => Owner::Job(j),
        Stored::Threshold(t) => Owner::Threshold(t, s.threshold_periods.0, s.threshold_periods.1),
    };
    let group = rules::group(owner, &instances, &s.promql, None).map_err(Error::Monitoring)?;
    let count = group["rules"].as_array().map_or(0, Vec::len);
    if let Some(dir) = &s.rules_dir {
        let path = dir.join(format!("{name}.json"));
        let tmp = dir.join(format!(".{name}.json.tmp"));
        let text = serde_json::to_string_pretty(&json!({"groups": [group]}))
            .map_err(|e| Error::Monitoring(e.to_string()))?;
        tokio::fs::write(&tmp, text)
            .await
            .map_err(|e| Error::Monitoring(format!("cannot write {}: {e}", tmp.display())))?;
        tokio::fs::rename(&tmp, &path)
            .await
            .map_err(|e| Error::Monitoring(format!("cannot write {}: {e}", path.display())))?;
        if let Err(e) = reload(ctx).await {
            let _ = tokio::fs::remove_file(&path).await;
            let _ = reload(ctx).await;
            return Err(e);
        }
    }
    if s.prometheus_rule {
        let mut written = Vec::new();
        for o in st.objects() {
            let g =
                rules::group(owner, &instances, &s.promql, Some(o)).map_err(Error::Monitoring)?;
            if let Err(e) = cluster_rules(ctx, o, &name, Some(&g)).await {
                for w in written {
                    let _ = cluster_rules(ctx, w, &name, None).await;
                }
                let _ = remove_file(ctx, &name).await;
                return Err(e);
            }
            written.push(o);
        }
    }
    tracing::info!(owner_id = %id, rules = count, "Prometheus rules delivered");
    Ok(u32::try_from(count).unwrap_or(u32::MAX))
}

/// Removes the rule file `name` (gone already is fine) and reloads Prometheus.
async fn remove_file(ctx: &Ctx, name: &str) -> Result<()> {
    let Some(dir) = &ctx.pm.rules_dir else {
        return Ok(());
    };
    let path = dir.join(format!("{name}.json"));
    match tokio::fs::remove_file(&path).await {
        Ok(()) => reload(ctx).await,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::Monitoring(format!(
            "cannot remove {}: {e}",
            path.display()
        ))),
    }
}

/// POSTs Prometheus' reload endpoint, when configured.
async fn reload(ctx: &Ctx) -> Result<()> {
    let Some(url) = &ctx.pm.reload_url else {
        return Ok(());
    };
    let r = reqwest::Client::new()
        .post(url)
        .timeout(ctx.pm.timeout)
        .send()
        .await
        .map_err(|e| Error::Monitoring(format!("Prometheus' reload ({url}) failed: {e}")))?;
    if !r.status().is_success() {
        let status = r.status();
        let body = r.text().await.unwrap_or_default();
        return Err(Error::Monitoring(format!(
            "Prometheus' reload ({url}) answered {status}: {}",
            body.trim()
        )));
    }
    Ok(())
}

/// Writes or removes the PrometheusRule `name` of instance `o` on its VIM.
async fn cluster_rules(ctx: &Arc<Ctx>, o: Uuid, name: &str, group: Option<&Value>) -> Result<()> {
    let Some((driver, octx)) = crate::lcm::instance_driver(ctx, o)
        .await
        .map_err(|f| Error::Monitoring(f.detail))?
    else {
        return if group.is_some() {
            Err(Error::Monitoring(format!(
                "VNF instance {o} is not instantiated"
            )))
        } else {
            Ok(())
        };
    };
    driver
        .monitoring_rules(&octx, name, &ctx.pm.labels, group)
        .await
        .map_err(|e| {
            Error::Monitoring(format!(
                "PrometheusRule {name} of VNF instance {o}: {}",
                e.problem().detail
            ))
        })
}
