//! PM jobs (SOL003 6.5.2.7): what to collect, how often, and where reports are announced.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

use super::{Metric, ObjectType, metric};
use crate::lcm::SubscriptionAuth;

/// `PmJobCriteria`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Criteria {
    /// Metrics.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub performance_metric: Vec<String>,
    /// Metric groups.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub performance_metric_group: Vec<String>,
    /// Seconds between two samples.
    pub collection_period: u32,
    /// Seconds between two reports.
    pub reporting_period: u32,
    /// No report after this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reporting_boundary: Option<DateTime<Utc>>,
}

/// A report of a job, as the job lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportRef {
    /// The report.
    pub id: Uuid,
    /// When it was ready.
    pub ready_time: DateTime<Utc>,
}

/// A PM job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PmJob {
    /// Id.
    pub id: Uuid,
    /// What it measures.
    pub object_type: ObjectType,
    /// The VNF instances.
    pub object_instance_ids: Vec<Uuid>,
    /// Sub-objects (VNFCs, CPs) of the one instance.
    pub sub_object_instance_ids: Vec<String>,
    /// What and how often.
    pub criteria: Criteria,
    /// Where reports are announced.
    pub callback_uri: String,
    /// How to authenticate there (a secret: never answered).
    pub authentication: Option<SubscriptionAuth>,
    /// The tenant of its instances (its creator's).
    pub tenant: Option<String>,
    /// Its reports (read with it, not stored in it).
    #[serde(skip)]
    pub reports: Vec<ReportRef>,
}

impl PmJob {
    /// The metrics it collects: its metrics, and those of its group, each object's for
    /// suffixed metrics of a group.
    pub fn metrics(&self) -> Vec<Metric> {
        let mut out: Vec<Metric> = self
            .criteria
            .performance_metric
            .iter()
            .filter_map(|m| metric(self.object_type, m).ok())
            .collect();
        if !self.criteria.performance_metric_group.is_empty() {
            for name in self.object_type.metrics() {
                if self.object_type.suffixed() {
                    for o in &self.object_instance_ids {
                        out.push(Metric {
                            full: format!("{name}.{o}"),
                            name: name.clone(),
                            object: Some(o.to_string()),
                        });
                    }
                } else {
                    out.push(Metric {
                        full: name.clone(),
                        name,
                        object: None,
                    });
                }
            }
        }
        out.sort_by(|a, b| a.full.cmp(&b.full));
        out.dedup();
        out
    }

    /// The `PmJob` body, links under `pm_base` (`.../vnfpm/v2`) and `lcm_base`.
    pub fn to_json(&self, pm_base: &str, lcm_base: &str) -> Value {
        let me = format!("{pm_base}/pm_jobs/{}", self.id);
        let mut v = json!({
            "id": self.id,
            "objectType": self.object_type,
            "objectInstanceIds": self.object_instance_ids,
            "criteria": self.criteria,
            "callbackUri": self.callback_uri,
            "reports": self.reports.iter().map(|r| json!({
                "href": format!("{me}/reports/{}", r.id),
                "readyTime": r.ready_time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            })).collect::<Vec<_>>(),
            "_links": {
                "self": {"href": me},
                "objects": self.object_instance_ids.iter().map(|o| json!({"href": format!("{lcm_base}/vnf_instances/{o}")})).collect::<Vec<_>>(),
            },
        });
        if !self.sub_object_instance_ids.is_empty() {
            v["subObjectInstanceIds"] = json!(self.sub_object_instance_ids);
        }
        v
    }
}

/// Attributes of `PmJob` list filters may name.
pub const PM_JOB_ATTRIBUTES: &[&str] = &[
    "id",
    "objectType",
    "objectInstanceIds",
    "subObjectInstanceIds",
    "criteria",
    "callbackUri",
    "reports",
    "_links",
];

/// Checks a job's request (400 reasons): the metrics and groups of its object type,
/// sub-objects of one object only, periods that make sense.
pub fn check(t: ObjectType, objects: &[Uuid], subs: &[String], c: &Criteria) -> Result<(), String> {
    if objects.is_empty() {
        return Err("objectInstanceIds must name at least one VNF instance".into());
    }
    if !subs.is_empty() && objects.len() != 1 {
        return Err("subObjectInstanceIds need exactly one objectInstanceId".into());
    }
    if c.performance_metric.is_empty() && c.performance_metric_group.is_empty() {
        return Err("criteria needs performanceMetric or performanceMetricGroup".into());
    }
    if !c.performance_metric_group.is_empty()
        && c.performance_metric_group != [t.group().to_owned()]
    {
        return Err(format!(
            "performanceMetricGroup of objectType {t} is [{:?}]",
            t.group()
        ));
    }
    for m in &c.performance_metric {
        let m = metric(t, m)?;
        if let Some(o) = &m.object
            && !objects.iter().any(|x| x.to_string() == *o)
        {
            return Err(format!(
                "performanceMetric {}: {o} is not one of objectInstanceIds",
                m.full
            ));
        }
    }
    if c.collection_period == 0 || c.reporting_period < c.collection_period {
        return Err(
            "criteria.collectionPeriod must be at least 1 and reportingPeriod at least collectionPeriod"
                .into(),
        );
    }
    Ok(())
}
