//! Notification bodies.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

use super::op::OpOcc;

/// The notification types a subscription can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NotificationKind {
    /// Operation occurrence state changes.
    #[serde(rename = "VnfLcmOperationOccurrenceNotification")]
    VnfLcmOperationOccurrence,
    /// An instance was created.
    #[serde(rename = "VnfIdentifierCreationNotification")]
    VnfIdentifierCreation,
    /// An instance was deleted.
    #[serde(rename = "VnfIdentifierDeletionNotification")]
    VnfIdentifierDeletion,
}

impl NotificationKind {
    /// The `notificationType` text.
    pub fn as_str(self) -> &'static str {
        match self {
            NotificationKind::VnfLcmOperationOccurrence => "VnfLcmOperationOccurrenceNotification",
            NotificationKind::VnfIdentifierCreation => "VnfIdentifierCreationNotification",
            NotificationKind::VnfIdentifierDeletion => "VnfIdentifierDeletionNotification",
        }
    }
}

fn links(base: &str, subscription: Uuid, instance: Uuid) -> serde_json::Map<String, Value> {
    let mut l = serde_json::Map::new();
    l.insert(
        "vnfInstance".into(),
        json!({"href": format!("{base}/vnf_instances/{instance}")}),
    );
    l.insert(
        "subscription".into(),
        json!({"href": format!("{base}/subscriptions/{subscription}")}),
    );
    l
}

/// A `VnfLcmOperationOccurrenceNotification` for `op` in its current state: `START`
/// when it enters STARTING, PROCESSING or ROLLING_BACK, else `RESULT`.
pub fn op_notification(base: &str, subscription: Uuid, op: &OpOcc) -> Value {
    let status = if op.state.in_progress() {
        "START"
    } else {
        "RESULT"
    };
    let mut l = links(base, subscription, op.vnf_instance_id);
    l.insert(
        "vnfLcmOpOcc".into(),
        json!({"href": format!("{base}/vnf_lcm_op_occs/{}", op.id)}),
    );
    let mut n = json!({
        "id": Uuid::new_v4(),
        "notificationType": NotificationKind::VnfLcmOperationOccurrence.as_str(),
        "subscriptionId": subscription,
        "timeStamp": chrono::Utc::now().to_rfc3339(),
        "notificationStatus": status,
        "operationState": op.state,
        "vnfInstanceId": op.vnf_instance_id,
        "operation": op.operation,
        "isAutomaticInvocation": false,
        "verbosity": "FULL",
        "vnfLcmOpOccId": op.id,
        "_links": l,
    });
    if let Some(changes) = &op.resource_changes
        && let Some(m) = changes.as_object()
    {
        for (k, v) in m {
            n[k] = v.clone();
        }
    }
    if let Some(c) = &op.changed_info {
        n["changedInfo"] = c.clone();
    }
    if let Some(e) = &op.error {
        n["error"] = json!(e);
    }
    n
}

/// A `VnfIdentifierCreationNotification` or `VnfIdentifierDeletionNotification`.
pub fn identifier_notification(
    base: &str,
    kind: NotificationKind,
    subscription: Uuid,
    instance: Uuid,
) -> Value {
    json!({
        "id": Uuid::new_v4(),
        "notificationType": kind.as_str(),
        "subscriptionId": subscription,
        "timeStamp": chrono::Utc::now().to_rfc3339(),
        "vnfInstanceId": instance,
        "_links": links(base, subscription, instance),
    })
}
