//! VNF fault management (SOL003 v3.3.1 `/vnffm/v1`): alarms raised and cleared by the
//! alerts of a monitoring system (Prometheus' Alertmanager, [`alert`]), their
//! subscriptions and notifications.

pub mod alert;
pub mod notification;
pub mod server;
pub mod subscription;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use crate::lcm::ResourceHandle;

crate::text_enum! {
    /// Whether someone has acknowledged an alarm.
    AckState, "ackState" {
        /// Not yet.
        Unacknowledged = "UNACKNOWLEDGED",
        /// Acknowledged.
        Acknowledged = "ACKNOWLEDGED",
    }
}

crate::text_enum! {
    /// How bad it is (SOL003 7.5.4.3).
    PerceivedSeverity, "perceivedSeverity" {
        /// Critical.
        Critical = "CRITICAL",
        /// Major.
        Major = "MAJOR",
        /// Minor.
        Minor = "MINOR",
        /// Warning.
        Warning = "WARNING",
        /// Indeterminate.
        Indeterminate = "INDETERMINATE",
        /// Cleared.
        Cleared = "CLEARED",
    }
}

crate::text_enum! {
    /// The kind of event (SOL003 7.5.4.5).
    EventType, "eventType" {
        /// Communications.
        Communications = "COMMUNICATIONS_ALARM",
        /// Processing error.
        ProcessingError = "PROCESSING_ERROR_ALARM",
        /// Environmental.
        Environmental = "ENVIRONMENTAL_ALARM",
        /// Quality of service.
        Qos = "QOS_ALARM",
        /// Equipment.
        Equipment = "EQUIPMENT_ALARM",
    }
}

/// The `faultyResourceType` of the resources alarms name (Pods and servers).
pub const COMPUTE: &str = "COMPUTE";

/// Attributes of `Alarm` that list filters may name.
pub const ALARM_ATTRIBUTES: &[&str] = &[
    "id",
    "managedObjectId",
    "vnfcInstanceIds",
    "rootCauseFaultyResource",
    "alarmRaisedTime",
    "alarmChangedTime",
    "alarmClearedTime",
    "alarmAcknowledgedTime",
    "ackState",
    "perceivedSeverity",
    "eventTime",
    "eventType",
    "faultType",
    "probableCause",
    "isRootCause",
    "correlatedAlarmIds",
    "faultDetails",
    "_links",
];

/// An alarm (SOL003 7.5.2.4, `vnfcInstanceIds` of SOL002).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Alarm {
    /// Its id.
    pub id: Uuid,
    /// The VNF instance it is about (`managedObjectId`).
    pub vnf_instance_id: Uuid,
    /// The VNFCs it is about.
    pub vnfc_instance_ids: Vec<String>,
    /// The VIM resource at fault (`rootCauseFaultyResource`, a COMPUTE resource: the
    /// first VNFC's Pod or server), when the alert names VNFCs.
    pub faulty_resource: Option<ResourceHandle>,
    /// The alert it was raised by (Alertmanager's fingerprint): a firing alert raises
    /// one alarm however often it is sent, and its resolution clears that one.
    pub fingerprint: String,
    /// Raised.
    pub raised_at: DateTime<Utc>,
    /// Last changed (cleared, acknowledged), if it changed.
    pub changed_at: Option<DateTime<Utc>>,
    /// Cleared, once it is.
    pub cleared_at: Option<DateTime<Utc>>,
    /// Acknowledged, while it is.
    pub acknowledged_at: Option<DateTime<Utc>>,
    /// Acknowledged or not.
    pub ack_state: AckState,
    /// Severity.
    pub perceived_severity: PerceivedSeverity,
    /// When the event happened (the alert's `startsAt`).
    pub event_time: DateTime<Utc>,
    /// Kind of event.
    pub event_type: EventType,
    /// `faultType`.
    pub fault_type: String,
    /// `probableCause`.
    pub probable_cause: String,
    /// `faultDetails`.
    pub fault_details: Vec<String>,
    /// The tenant of the instance.
    pub tenant: Option<String>,
}

fn time(t: DateTime<Utc>) -> Value {
    json!(t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

impl Alarm {
    /// Raised by an Alertmanager alert (its fingerprint), not by the VNFM itself nor by
    /// a server fault notification (whose fingerprints name their source, `<source>:`).
    pub fn raised_by_alert(&self) -> bool {
        !self.fingerprint.contains(':')
    }

    /// A new alarm about the whole of `instance`, raised `now` for the condition
    /// `fingerprint` names: unacknowledged, a QoS warning until the caller says more.
    pub fn new(
        instance: &crate::lcm::VnfInstance,
        fingerprint: String,
        now: DateTime<Utc>,
    ) -> Self {
        Self {
            id: Uuid::new_v4(),
            vnf_instance_id: instance.id,
            vnfc_instance_ids: Vec::new(),
            faulty_resource: None,
            fault_details: vec![format!("fingerprint: {fingerprint}")],
            fingerprint,
            raised_at: now,
            changed_at: None,
            cleared_at: None,
            acknowledged_at: None,
            ack_state: AckState::Unacknowledged,
            perceived_severity: PerceivedSeverity::Warning,
            event_time: now,
            event_type: EventType::Qos,
            fault_type: String::new(),
            probable_cause: String::new(),
            tenant: instance.tenant.clone(),
        }
    }

    /// A new alarm about the whole of `instance` raised by the VNFM itself (e.g. an
    /// automatic operation it refused), `fingerprint` naming the condition.
    pub fn of_vnfm(
        instance: &crate::lcm::VnfInstance,
        fingerprint: String,
        probable_cause: String,
        now: DateTime<Utc>,
    ) -> Self {
        Self {
            fault_type: "VNFM".into(),
            probable_cause,
            ..Self::new(instance, fingerprint, now)
        }
    }

    /// The `Alarm` body, links under `fm_base` (`.../vnffm/v1`) and `lcm_base`
    /// (`.../vnflcm/v2`).
    pub fn to_json(&self, fm_base: &str, lcm_base: &str) -> Value {
        let mut o = Map::new();
        o.insert("id".into(), json!(self.id));
        o.insert("managedObjectId".into(), json!(self.vnf_instance_id));
        if !self.vnfc_instance_ids.is_empty() {
            o.insert("vnfcInstanceIds".into(), json!(self.vnfc_instance_ids));
        }
        if let Some(r) = &self.faulty_resource {
            o.insert(
                "rootCauseFaultyResource".into(),
                json!({"faultyResource": r, "faultyResourceType": COMPUTE}),
            );
        }
        o.insert("alarmRaisedTime".into(), time(self.raised_at));
        for (k, t) in [
            ("alarmChangedTime", self.changed_at),
            ("alarmClearedTime", self.cleared_at),
            ("alarmAcknowledgedTime", self.acknowledged_at),
        ] {
            if let Some(t) = t {
                o.insert(k.into(), time(t));
            }
        }
        o.insert("ackState".into(), json!(self.ack_state));
        o.insert("perceivedSeverity".into(), json!(self.perceived_severity));
        o.insert("eventTime".into(), time(self.event_time));
        o.insert("eventType".into(), json!(self.event_type));
        if !self.fault_type.is_empty() {
            o.insert("faultType".into(), json!(self.fault_type));
        }
        o.insert("probableCause".into(), json!(self.probable_cause));
        o.insert("isRootCause".into(), json!(false));
        if !self.fault_details.is_empty() {
            o.insert("faultDetails".into(), json!(self.fault_details));
        }
        o.insert(
            "_links".into(),
            json!({
                "self": {"href": format!("{fm_base}/alarms/{}", self.id)},
                "objectInstance": {"href": format!("{lcm_base}/vnf_instances/{}", self.vnf_instance_id)},
            }),
        );
        Value::Object(o)
    }

    /// Sets the acknowledgement (`now`: when); `None` when it is in that state already.
    pub fn acknowledge(mut self, state: AckState, now: DateTime<Utc>) -> Option<Self> {
        if self.ack_state == state {
            return None;
        }
        self.ack_state = state;
        self.acknowledged_at = (state == AckState::Acknowledged).then_some(now);
        self.changed_at = Some(now);
        Some(self)
    }
}
