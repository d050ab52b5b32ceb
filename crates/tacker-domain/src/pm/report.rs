//! PM reports (SOL003 6.5.2.10) and the notification announcing one.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

use super::ObjectType;

/// One value of a metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sample {
    /// When.
    pub time_stamp: DateTime<Utc>,
    /// The value.
    pub value: f64,
}

/// One entry of a report: a metric of an object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// What was measured.
    pub object_type: ObjectType,
    /// The instance.
    pub object_instance_id: Uuid,
    /// The VNFC or CP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_object_instance_id: Option<String>,
    /// The metric (as the job names it).
    pub performance_metric: String,
    /// Its values.
    pub performance_values: Vec<Sample>,
}

/// A report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Id.
    pub id: Uuid,
    /// Its job.
    pub job_id: Uuid,
    /// When it was ready.
    pub ready_time: DateTime<Utc>,
    /// Its entries.
    pub entries: Vec<Entry>,
}

impl Report {
    /// The `PerformanceReport` body.
    pub fn to_json(&self) -> Value {
        json!({"entries": self.entries.iter().map(|e| {
            let mut v = json!({
                "objectType": e.object_type,
                "objectInstanceId": e.object_instance_id,
                "performanceMetric": e.performance_metric,
                "performanceValues": e.performance_values.iter().map(|s| json!({
                    "timeStamp": s.time_stamp.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                    "value": s.value,
                })).collect::<Vec<_>>(),
            });
            if let Some(s) = &e.sub_object_instance_id {
                v["subObjectInstanceId"] = json!(s);
            }
            v
        }).collect::<Vec<_>>()})
    }
}

/// What a `PerformanceInformationAvailableNotification` reports (kept in the outbox).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportFacts {
    /// The notification's id.
    pub id: Uuid,
    /// When.
    pub time_stamp: DateTime<Utc>,
    /// The job.
    pub pm_job_id: Uuid,
    /// The report.
    pub report_id: Uuid,
    /// What was measured.
    pub object_type: ObjectType,
    /// The instance.
    pub object_instance_id: Uuid,
    /// Its sub-objects in the report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sub_object_instance_ids: Vec<String>,
}

impl ReportFacts {
    /// The body, links under `pm_base` and `lcm_base`.
    pub fn render(&self, pm_base: &str, lcm_base: &str) -> Value {
        let job = format!("{pm_base}/pm_jobs/{}", self.pm_job_id);
        let mut v = json!({
            "id": self.id,
            "notificationType": "PerformanceInformationAvailableNotification",
            "timeStamp": self.time_stamp.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "pmJobId": self.pm_job_id,
            "objectType": self.object_type,
            "objectInstanceId": self.object_instance_id,
            "_links": {
                "objectInstance": {"href": format!("{lcm_base}/vnf_instances/{}", self.object_instance_id)},
                "pmJob": {"href": job},
                "performanceReport": {"href": format!("{job}/reports/{}", self.report_id)},
            },
        });
        if !self.sub_object_instance_ids.is_empty() {
            v["subObjectInstanceIds"] = json!(self.sub_object_instance_ids);
        }
        v
    }
}
