//! Thresholds (SOL003 6.5.2.9): a metric of an object watched for crossings, UP and DOWN
//! with hysteresis, each announced by a `ThresholdCrossedNotification`.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

use super::{ObjectType, metric};
use crate::lcm::SubscriptionAuth;

/// `simpleThresholdDetails`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Simple {
    /// The value crossed.
    pub threshold_value: f64,
    /// Crossings count only beyond `thresholdValue ± hysteresis`.
    pub hysteresis: f64,
}

/// `ThresholdCriteria`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Criteria {
    /// The metric.
    pub performance_metric: String,
    /// `SIMPLE`.
    pub threshold_type: String,
    /// Its value and hysteresis.
    pub simple_threshold_details: Simple,
}

/// A threshold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Threshold {
    /// Id.
    pub id: Uuid,
    /// What it watches.
    pub object_type: ObjectType,
    /// The instance.
    pub object_instance_id: Uuid,
    /// Sub-objects (VNFCs, CPs).
    pub sub_object_instance_ids: Vec<String>,
    /// The metric and its limit.
    pub criteria: Criteria,
    /// Where crossings are announced.
    pub callback_uri: String,
    /// How to authenticate there.
    pub authentication: Option<SubscriptionAuth>,
    /// The tenant of its instance.
    pub tenant: Option<String>,
    /// The side of the threshold each sub-object (`""`: the object) was last seen on.
    #[serde(default)]
    pub state: BTreeMap<String, Side>,
}

/// Where the last value was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    /// Above `thresholdValue + hysteresis` (crossed UP).
    #[serde(rename = "UP")]
    Up,
    /// Below `thresholdValue - hysteresis` (crossed DOWN), or never above.
    #[serde(rename = "DOWN")]
    Down,
}

impl Threshold {
    /// The side a new `value` puts `sub` on, and whether that is a crossing (UP: from
    /// below to above `T + h`; DOWN: from above to below `T - h`; within the band the
    /// side is kept). The first value above the band is a crossing UP; the first below
    /// it is not a crossing.
    pub fn observe(&self, sub: &str, value: f64) -> (Side, Option<Side>) {
        let d = self.criteria.simple_threshold_details;
        let last = self.state.get(sub).copied();
        if value > d.threshold_value + d.hysteresis {
            (Side::Up, (last != Some(Side::Up)).then_some(Side::Up))
        } else if value < d.threshold_value - d.hysteresis {
            (Side::Down, (last == Some(Side::Up)).then_some(Side::Down))
        } else {
            (last.unwrap_or(Side::Down), None)
        }
    }

    /// The `Threshold` body.
    pub fn to_json(&self, pm_base: &str, lcm_base: &str) -> Value {
        let mut v = json!({
            "id": self.id,
            "objectType": self.object_type,
            "objectInstanceId": self.object_instance_id,
            "criteria": self.criteria,
            "callbackUri": self.callback_uri,
            "_links": {
                "self": {"href": format!("{pm_base}/thresholds/{}", self.id)},
                "object": {"href": format!("{lcm_base}/vnf_instances/{}", self.object_instance_id)},
            },
        });
        if !self.sub_object_instance_ids.is_empty() {
            v["subObjectInstanceIds"] = json!(self.sub_object_instance_ids);
        }
        v
    }
}

/// Attributes of `Threshold` list filters may name.
pub const THRESHOLD_ATTRIBUTES: &[&str] = &[
    "id",
    "objectType",
    "objectInstanceId",
    "subObjectInstanceIds",
    "criteria",
    "callbackUri",
    "_links",
];

/// Checks a threshold's request (400 reasons).
pub fn check(t: ObjectType, object: Uuid, c: &Criteria) -> Result<(), String> {
    if c.threshold_type != "SIMPLE" {
        return Err(format!(
            "criteria.thresholdType {:?} is not supported: SIMPLE is",
            c.threshold_type
        ));
    }
    if c.simple_threshold_details.hysteresis < 0.0
        || !c.simple_threshold_details.hysteresis.is_finite()
        || !c.simple_threshold_details.threshold_value.is_finite()
    {
        return Err(
            "simpleThresholdDetails: thresholdValue must be a number and hysteresis one at least 0"
                .into(),
        );
    }
    let m = metric(t, &c.performance_metric)?;
    if let Some(o) = &m.object
        && *o != object.to_string()
    {
        return Err(format!(
            "performanceMetric {}: {o} is not the objectInstanceId",
            m.full
        ));
    }
    Ok(())
}

/// What a `ThresholdCrossedNotification` reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrossingFacts {
    /// The notification's id.
    pub id: Uuid,
    /// When.
    pub time_stamp: DateTime<Utc>,
    /// The threshold.
    pub threshold_id: Uuid,
    /// UP or DOWN.
    pub crossing_direction: Side,
    /// What was measured.
    pub object_type: ObjectType,
    /// The instance.
    pub object_instance_id: Uuid,
    /// The sub-object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_object_instance_id: Option<String>,
    /// The metric.
    pub performance_metric: String,
    /// The value that crossed.
    pub performance_value: f64,
}

impl CrossingFacts {
    /// The body.
    pub fn render(&self, pm_base: &str, lcm_base: &str) -> Value {
        let mut v = json!({
            "id": self.id,
            "notificationType": "ThresholdCrossedNotification",
            "timeStamp": self.time_stamp.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "thresholdId": self.threshold_id,
            "crossingDirection": self.crossing_direction,
            "objectType": self.object_type,
            "objectInstanceId": self.object_instance_id,
            "performanceMetric": self.performance_metric,
            "performanceValue": self.performance_value,
            "_links": {
                "objectInstance": {"href": format!("{lcm_base}/vnf_instances/{}", self.object_instance_id)},
                "threshold": {"href": format!("{pm_base}/thresholds/{}", self.threshold_id)},
            },
        });
        if let Some(s) = &self.sub_object_instance_id {
            v["subObjectInstanceId"] = json!(s);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(state: Option<Side>) -> Threshold {
        Threshold {
            id: Uuid::nil(),
            object_type: ObjectType::Vnf,
            object_instance_id: Uuid::nil(),
            sub_object_instance_ids: vec![],
            criteria: Criteria {
                performance_metric: format!("VCpuUsageMeanVnf.{}", Uuid::nil()),
                threshold_type: "SIMPLE".into(),
                simple_threshold_details: Simple {
                    threshold_value: 0.5,
                    hysteresis: 0.1,
                },
            },
            callback_uri: String::new(),
            authentication: None,
            tenant: None,
            state: state
                .map(|s| BTreeMap::from([(String::new(), s)]))
                .unwrap_or_default(),
        }
    }

    #[test]
    fn crossings_need_to_leave_the_hysteresis_band() {
        assert_eq!(t(None).observe("", 0.7), (Side::Up, Some(Side::Up)));
        assert_eq!(t(None).observe("", 0.3), (Side::Down, None));
        assert_eq!(t(None).observe("", 0.55), (Side::Down, None));
        assert_eq!(t(Some(Side::Up)).observe("", 0.7), (Side::Up, None));
        assert_eq!(t(Some(Side::Up)).observe("", 0.45), (Side::Up, None));
        assert_eq!(
            t(Some(Side::Up)).observe("", 0.39),
            (Side::Down, Some(Side::Down))
        );
        assert_eq!(t(Some(Side::Down)).observe("", 0.59), (Side::Down, None));
        assert_eq!(
            t(Some(Side::Down)).observe("", 0.61),
            (Side::Up, Some(Side::Up))
        );
    }
}
