//! Alerts of Prometheus' Alertmanager (its webhook body), as Tacker's Prometheus plugin
//! takes them: `labels.receiver_type = tacker`, `labels.function_type` saying what the
//! alert is for (`vnffm`: an alarm; `auto_heal`: heal VNFCs), `labels.vnf_instance_id`
//! the instance, and its VNFCs named by `labels.vnfc_info_id` (a `vnfcInfo` id) or
//! `labels.pod` (a Pod name, or a pattern of Pod names, matched from the start as Tacker
//! does).

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Map, Value};
use uuid::Uuid;

use super::{Alarm, EventType, PerceivedSeverity};
use crate::lcm::VnfInstance;

/// The `vnfConfigurableProperties` flag opting an instance in to auto-heal.
pub const AUTOHEAL: &str = "isAutohealEnabled";
/// The flag opting an instance in to auto-scale.
pub const AUTOSCALE: &str = "isAutoscaleEnabled";

/// Whether `instance` opted in with `flag` (`true`, as a boolean).
pub fn opted_in(instance: &VnfInstance, flag: &str) -> bool {
    instance.vnf_configurable_properties.get(flag) == Some(&Value::Bool(true))
}

/// Alertmanager's webhook body (its other fields are not needed).
#[derive(Debug, Clone, Deserialize)]
pub struct Webhook {
    /// The alerts of the group.
    pub alerts: Vec<Alert>,
}

/// Firing or resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Firing.
    Firing,
    /// Resolved.
    Resolved,
}

/// One alert.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Alert {
    /// Firing or resolved.
    pub status: Status,
    /// Its labels.
    #[serde(default)]
    pub labels: Map<String, Value>,
    /// Its annotations.
    #[serde(default)]
    pub annotations: Map<String, Value>,
    /// When it started.
    pub starts_at: DateTime<Utc>,
    /// When it ended (resolved alerts; Alertmanager sends year 1 while firing).
    #[serde(default)]
    pub ends_at: Option<DateTime<Utc>>,
    /// Alertmanager's identity of the alert (its label set).
    pub fingerprint: String,
}

/// What an alert is for (`labels.function_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Function {
    /// Raise (and clear) an alarm.
    Fm,
    /// Heal the VNFCs it names.
    AutoHeal,
    /// Scale an aspect.
    AutoScale,
    /// Another (PM) or none.
    Other,
}

fn text<'a>(m: &'a Map<String, Value>, k: &str) -> Option<&'a str> {
    m.get(k).and_then(Value::as_str).filter(|s| !s.is_empty())
}

impl Alert {
    /// A label.
    pub fn label(&self, k: &str) -> Option<&str> {
        text(&self.labels, k)
    }

    /// What it is for; `Other` unless `receiver_type` is `tacker`.
    pub fn function(&self) -> Function {
        if self.label("receiver_type") != Some("tacker") {
            return Function::Other;
        }
        match self.label("function_type") {
            Some("vnffm") => Function::Fm,
            Some("auto_heal") => Function::AutoHeal,
            Some("auto_scale") => Function::AutoScale,
            _ => Function::Other,
        }
    }

    /// The instance it names (`labels.vnf_instance_id`).
    pub fn instance(&self) -> Result<Uuid, String> {
        let raw = self
            .label("vnf_instance_id")
            .ok_or("labels.vnf_instance_id is missing")?;
        raw.parse()
            .map_err(|_| format!("labels.vnf_instance_id {raw:?} is not a VNF instance id"))
    }

    /// The `vnfcInfo` ids of `instance` it names: `labels.vnfc_info_id`, or the VNFCs
    /// whose Pod (`computeResource.resourceId`) `labels.pod` names or matches from the
    /// start. None found is an error saying why.
    pub fn vnfcs(&self, instance: &VnfInstance) -> Result<Vec<String>, String> {
        let info = instance
            .instantiated_vnf_info
            .as_ref()
            .ok_or_else(|| format!("VNF instance {} is not instantiated", instance.id))?;
        if let Some(id) = self.label("vnfc_info_id") {
            return if info.vnfc_info.iter().any(|c| c.id == id) {
                Ok(vec![id.to_owned()])
            } else {
                Err(format!(
                    "labels.vnfc_info_id {id:?} is not a VNFC of VNF instance {}",
                    instance.id
                ))
            };
        }
        let pod = self
            .label("pod")
            .ok_or("labels.vnfc_info_id or labels.pod is needed to name the VNFC")?;
        let pattern = regex::Regex::new(&format!("^(?:{pod})"))
            .map_err(|e| format!("labels.pod {pod:?} is not a pattern: {e}"))?;
        let resources: Vec<&str> = info
            .vnfc_resource_info
            .iter()
            .filter(|r| {
                let name = r.compute_resource.resource_id.as_str();
                name == pod || pattern.is_match(name)
            })
            .map(|r| r.id.as_str())
            .collect();
        let ids: Vec<String> = info
            .vnfc_info
            .iter()
            .filter(|c| resources.contains(&c.vnfc_resource_info_id.as_str()))
            .map(|c| c.id.clone())
            .collect();
        if ids.is_empty() {
            return Err(format!(
                "labels.pod {pod:?} names no VNFC of VNF instance {}",
                instance.id
            ));
        }
        Ok(ids)
    }

    /// The alarm a firing `vnffm` alert raises about `instance`.
    pub fn alarm(&self, instance: &VnfInstance, now: DateTime<Utc>) -> Result<Alarm, String> {
        // A `vnffm` alert says what it is; an `auto_heal` one need not (a failed VNFC).
        // A load condition (auto_scale) is a warning about quality of service, a failed
        // VNFC (auto_heal) a major processing error.
        let (fm, default_severity, default_event) = match self.function() {
            Function::Fm => (true, PerceivedSeverity::Major, EventType::ProcessingError),
            Function::AutoScale => (false, PerceivedSeverity::Warning, EventType::Qos),
            _ => (false, PerceivedSeverity::Major, EventType::ProcessingError),
        };
        let severity: PerceivedSeverity = match self.label("perceived_severity") {
            Some(s) => s
                .parse()
                .map_err(|e| format!("labels.perceived_severity: {e}"))?,
            None if !fm => default_severity,
            None => return Err("labels.perceived_severity is missing".into()),
        };
        let event_type: EventType = match self.label("event_type") {
            Some(s) => s.parse().map_err(|e| format!("labels.event_type: {e}"))?,
            None if !fm => default_event,
            None => return Err("labels.event_type is missing".into()),
        };
        let detail = text(&self.annotations, "fault_details").unwrap_or("None");
        // A scale alert is about the whole VNF unless it names VNFCs.
        let names_vnfcs = self.label("vnfc_info_id").is_some() || self.label("pod").is_some();
        let vnfcs = if self.function() == Function::AutoScale && !names_vnfcs {
            Vec::new()
        } else {
            self.vnfcs(instance)?
        };
        let faulty_resource = instance.instantiated_vnf_info.as_ref().and_then(|info| {
            let c = info.vnfc_info.iter().find(|c| vnfcs.contains(&c.id))?;
            info.vnfc_resource_info
                .iter()
                .find(|r| r.id == c.vnfc_resource_info_id)
                .map(|r| r.compute_resource.clone())
        });
        Ok(Alarm {
            vnfc_instance_ids: vnfcs,
            faulty_resource,
            perceived_severity: severity,
            event_time: self.starts_at,
            event_type,
            fault_type: text(&self.annotations, "fault_type")
                .unwrap_or_default()
                .to_owned(),
            probable_cause: text(&self.annotations, "probable_cause")
                .or_else(|| self.label("alertname"))
                .unwrap_or_default()
                .to_owned(),
            fault_details: vec![
                format!("fingerprint: {}", self.fingerprint),
                format!("detail: {detail}"),
            ],
            ..Alarm::new(instance, self.fingerprint.clone(), now)
        })
    }

    /// The aspect and direction of an `auto_scale` alert (`labels.aspect_id`,
    /// `labels.auto_scale_type`: `SCALE_OUT` or `SCALE_IN`).
    pub fn scale(&self) -> Result<(String, crate::lcm::request::ScaleType), String> {
        let aspect = self
            .label("aspect_id")
            .ok_or("labels.aspect_id is missing")?;
        let kind = match self.label("auto_scale_type") {
            Some("SCALE_OUT") => crate::lcm::request::ScaleType::ScaleOut,
            Some("SCALE_IN") => crate::lcm::request::ScaleType::ScaleIn,
            Some(other) => {
                return Err(format!(
                    "labels.auto_scale_type {other:?} must be SCALE_OUT or SCALE_IN"
                ));
            }
            None => return Err("labels.auto_scale_type is missing".into()),
        };
        Ok((aspect.to_owned(), kind))
    }

    /// When a resolved alert ended (its `endsAt`, else `now`).
    pub fn ended(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        self.ends_at.filter(|t| *t > self.starts_at).unwrap_or(now)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn instance() -> VnfInstance {
        let mut i = crate::lcm::subscription::tests::instance();
        i.instantiated_vnf_info = Some(
            serde_json::from_value(json!({"flavourId": "simple", "vnfState": "STARTED",
                "vnfcResourceInfo": [
                    {"id": "r1", "vduId": "VDU1", "computeResource": {"resourceId": "web-7d9f-abcde", "vimLevelResourceType": "Deployment"}},
                    {"id": "r2", "vduId": "VDU1", "computeResource": {"resourceId": "web-7d9f-fghij", "vimLevelResourceType": "Deployment"}},
                    {"id": "r3", "vduId": "VDU2", "computeResource": {"resourceId": "db-0", "vimLevelResourceType": "StatefulSet"}}],
                "vnfcInfo": [
                    {"id": "VDU1-web-7d9f-abcde", "vduId": "VDU1", "vnfcResourceInfoId": "r1", "vnfcState": "STARTED"},
                    {"id": "VDU1-web-7d9f-fghij", "vduId": "VDU1", "vnfcResourceInfoId": "r2", "vnfcState": "STARTED"},
                    {"id": "VDU2-db-0", "vduId": "VDU2", "vnfcResourceInfoId": "r3", "vnfcState": "STARTED"}]}))
            .unwrap(),
        );
        i
    }

    fn alert(labels: Value) -> Alert {
        serde_json::from_value(json!({"status": "firing", "labels": labels, "annotations": {"probable_cause": "Pod down"},
            "startsAt": "2026-12-03T10:00:00.123Z", "endsAt": "0001-01-01T00:00:00Z", "fingerprint": "5ef77f1f8a3ecb8d"}))
        .unwrap()
    }

    #[test]
    fn vnfcs_are_named_by_id_by_pod_or_by_a_pod_pattern() {
        let i = instance();
        let a = alert(json!({"vnfc_info_id": "VDU2-db-0"}));
        assert_eq!(a.vnfcs(&i).unwrap(), ["VDU2-db-0"]);
        let a = alert(json!({"pod": "db-0"}));
        assert_eq!(a.vnfcs(&i).unwrap(), ["VDU2-db-0"]);
        let a = alert(json!({"pod": "web\\-7d9f\\-[a-z]{5}$"}));
        assert_eq!(a.vnfcs(&i).unwrap().len(), 2);
        assert!(alert(json!({"pod": "nothing"})).vnfcs(&i).is_err());
        assert!(alert(json!({"vnfc_info_id": "VDU9-x"})).vnfcs(&i).is_err());
        assert!(alert(json!({})).vnfcs(&i).is_err());
    }

    #[test]
    fn a_vnffm_alert_raises_an_alarm_with_its_fingerprint() {
        let i = instance();
        let a = alert(json!({"receiver_type": "tacker", "function_type": "vnffm",
            "vnf_instance_id": i.id.to_string(), "pod": "db-0", "perceived_severity": "CRITICAL",
            "event_type": "PROCESSING_ERROR_ALARM"}));
        assert_eq!(a.function(), Function::Fm);
        assert_eq!(a.instance().unwrap(), i.id);
        let alarm = a.alarm(&i, Utc::now()).unwrap();
        assert_eq!(alarm.perceived_severity, PerceivedSeverity::Critical);
        assert_eq!(alarm.fault_details[0], "fingerprint: 5ef77f1f8a3ecb8d");
        assert_eq!(alarm.probable_cause, "Pod down");
        let j = alarm.to_json("http://h/vnffm/v1", "http://h/vnflcm/v2");
        assert_eq!(j["managedObjectId"], json!(i.id));
        assert_eq!(j["eventTime"], "2026-12-03T10:00:00Z");
        assert!(j.get("alarmClearedTime").is_none());
        let missing =
            alert(json!({"receiver_type": "tacker", "function_type": "vnffm", "pod": "db-0"}));
        assert!(
            missing
                .alarm(&i, Utc::now())
                .unwrap_err()
                .contains("perceived_severity")
        );
        assert_eq!(
            alert(json!({"function_type": "vnffm"})).function(),
            Function::Other
        );
    }
}
