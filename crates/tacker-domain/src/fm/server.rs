//! Tacker's FaultNotification of VM-based VNFs (`POST /server_notification/
//! vnf_instances/{id}/servers/{server_id}/notify`, as a server monitor such as
//! Masakari's sends it): a fault of one server, raised as an alarm about its VNFC.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Alarm, EventType, PerceivedSeverity};
use crate::lcm::VnfInstance;

/// The request body.
#[derive(Debug, Clone, Deserialize)]
pub struct ServerNotification {
    /// The fault.
    pub notification: Fault,
}

/// `notification`.
#[derive(Debug, Clone, Deserialize)]
pub struct Fault {
    /// The host the server runs on.
    #[serde(default)]
    pub host_id: Option<String>,
    /// The monitor's alarm.
    pub alarm_id: String,
    /// Its fault id (4 characters).
    pub fault_id: String,
    /// Its fault type (2 characters).
    pub fault_type: String,
    /// More about it.
    #[serde(default)]
    pub fault_option: Option<Map<String, Value>>,
}

impl Fault {
    /// Checks the fields' sizes as Tacker's schema does.
    pub fn check(&self) -> Result<(), String> {
        if self.alarm_id.is_empty() || self.alarm_id.len() > 255 {
            return Err("notification.alarm_id must have 1 to 255 characters".into());
        }
        if self.fault_id.chars().count() != 4 {
            return Err("notification.fault_id must have 4 characters".into());
        }
        if self.fault_type.chars().count() != 2 {
            return Err("notification.fault_type must have 2 characters".into());
        }
        Ok(())
    }
}

/// The `vnfcInfo` id of the VNFC whose server is `server`, if `instance` has it.
pub fn vnfc_of(instance: &VnfInstance, server: &str) -> Option<String> {
    let info = instance.instantiated_vnf_info.as_ref()?;
    let r = info
        .vnfc_resource_info
        .iter()
        .find(|r| r.compute_resource.resource_id == server)?;
    info.vnfc_info
        .iter()
        .find(|c| c.vnfc_resource_info_id == r.id)
        .map(|c| c.id.clone())
}

/// The alarm the fault of `server` (its VNFC `vnfc`) raises: one per server and monitor
/// alarm.
pub fn alarm(
    instance: &VnfInstance,
    server: &str,
    vnfc: &str,
    f: &Fault,
    now: DateTime<Utc>,
) -> Alarm {
    let fingerprint = format!("server_notification:{server}:{}", f.alarm_id);
    let resource = instance.instantiated_vnf_info.as_ref().and_then(|info| {
        info.vnfc_resource_info
            .iter()
            .find(|r| r.compute_resource.resource_id == server)
            .map(|r| r.compute_resource.clone())
    });
    let mut details = vec![
        format!("fingerprint: {fingerprint}"),
        format!("fault_id: {}", f.fault_id),
        format!("fault_type: {}", f.fault_type),
    ];
    if let Some(h) = &f.host_id {
        details.push(format!("host_id: {h}"));
    }
    Alarm {
        vnfc_instance_ids: vec![vnfc.to_owned()],
        faulty_resource: resource,
        perceived_severity: PerceivedSeverity::Major,
        event_type: EventType::Equipment,
        fault_type: f.fault_type.clone(),
        probable_cause: format!("server {server} reported fault {}", f.fault_id),
        fault_details: details,
        ..Alarm::new(instance, fingerprint, now)
    }
}
