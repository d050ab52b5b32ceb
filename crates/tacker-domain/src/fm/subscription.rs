//! FM subscriptions (SOL003 7.5.2.2-3): who hears of which alarms.

use serde::{Deserialize, Serialize};

use super::notification::FmNotificationKind;
use super::{Alarm, EventType, PerceivedSeverity};
use crate::lcm::{InstanceFilter, VnfInstance};

/// `FmNotificationsFilter`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FmFilter {
    /// Which instances.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vnf_instance_subscription_filter: Option<InstanceFilter>,
    /// Which notification types (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notification_types: Vec<FmNotificationKind>,
    /// Which faulty resource types (`COMPUTE`, `STORAGE`, `NETWORK`; empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faulty_resource_types: Vec<FaultyResourceType>,
    /// Which severities (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub perceived_severities: Vec<PerceivedSeverity>,
    /// Which event types (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub event_types: Vec<EventType>,
    /// Which probable causes (empty: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probable_causes: Vec<String>,
}

/// `FaultyResourceType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum FaultyResourceType {
    /// A Pod or a server.
    Compute,
    /// A volume.
    Storage,
    /// A network.
    Network,
}

impl FmFilter {
    /// Whether a notification of `kind` about `alarm` of `instance` passes. The alarm
    /// attributes filter alarm notifications; a rebuilt-list notification names no
    /// alarm and passes them.
    pub fn matches(
        &self,
        kind: FmNotificationKind,
        alarm: Option<&Alarm>,
        instance: &VnfInstance,
    ) -> bool {
        if !self.notification_types.is_empty() && !self.notification_types.contains(&kind) {
            return false;
        }
        if let Some(f) = &self.vnf_instance_subscription_filter
            && !f.matches(instance)
        {
            return false;
        }
        let Some(a) = alarm else {
            return true;
        };
        // Alarms name COMPUTE resources only (Pods, servers).
        (self.faulty_resource_types.is_empty()
            || (a.faulty_resource.is_some()
                && self
                    .faulty_resource_types
                    .contains(&FaultyResourceType::Compute)))
            && (self.perceived_severities.is_empty()
                || self.perceived_severities.contains(&a.perceived_severity))
            && (self.event_types.is_empty() || self.event_types.contains(&a.event_type))
            && (self.probable_causes.is_empty() || self.probable_causes.contains(&a.probable_cause))
    }
}

/// An FM subscription.
pub type FmSubscription = crate::subscribed::Subscribed<FmFilter>;

impl FmSubscription {
    /// Whether it may hear of alarms about `instance` (in VIM `areas`).
    pub fn may_hear_of(&self, instance: &VnfInstance, areas: &crate::scope::VimAreas) -> bool {
        (self.tenant.is_none() || self.tenant == instance.tenant)
            && self.confinement.sees_instance(instance, areas)
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use serde_json::json;
    use uuid::Uuid;

    use super::*;
    use crate::fm::AckState;

    fn alarm(severity: PerceivedSeverity) -> Alarm {
        Alarm {
            id: Uuid::new_v4(),
            vnf_instance_id: Uuid::nil(),
            vnfc_instance_ids: vec!["VDU1-a".into()],
            faulty_resource: Some(crate::lcm::ResourceHandle {
                vim_connection_id: None,
                resource_id: "a".into(),
                vim_level_resource_type: Some("Deployment".into()),
            }),
            fingerprint: "f".into(),
            raised_at: Utc::now(),
            changed_at: None,
            cleared_at: None,
            acknowledged_at: None,
            ack_state: AckState::Unacknowledged,
            perceived_severity: severity,
            event_time: Utc::now(),
            event_type: EventType::ProcessingError,
            fault_type: String::new(),
            probable_cause: "Pod down".into(),
            fault_details: vec![],
            tenant: None,
        }
    }

    #[test]
    fn the_filter_reads_types_severities_events_causes_and_resources() {
        let i = crate::lcm::subscription::tests::instance();
        let f: FmFilter = serde_json::from_value(json!({
            "notificationTypes": ["AlarmNotification"],
            "perceivedSeverities": ["CRITICAL"],
            "faultyResourceTypes": ["COMPUTE"],
            "probableCauses": ["Pod down"]}))
        .unwrap();
        let critical = alarm(PerceivedSeverity::Critical);
        assert!(f.matches(FmNotificationKind::Alarm, Some(&critical), &i));
        assert!(!f.matches(FmNotificationKind::AlarmCleared, Some(&critical), &i));
        assert!(!f.matches(
            FmNotificationKind::Alarm,
            Some(&alarm(PerceivedSeverity::Minor)),
            &i
        ));
        let storage: FmFilter =
            serde_json::from_value(json!({"faultyResourceTypes": ["STORAGE"]})).unwrap();
        assert!(!storage.matches(FmNotificationKind::Alarm, Some(&critical), &i));
        assert!(storage.matches(FmNotificationKind::AlarmListRebuilt, None, &i));
        let unknown = serde_json::from_value::<FmFilter>(json!({"severities": ["CRITICAL"]}));
        assert!(unknown.is_err());
    }
}
