//! Notifications: the facts the outbox keeps, and the bodies delivered to subscribers.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

use super::op::{LcmOperation, OpOcc, OperationState};
use crate::ProblemDetails;

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

/// What an operation occurrence notification reports: the occurrence as it entered the
/// state the notification is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpFacts {
    /// The occurrence.
    pub id: Uuid,
    /// Its operation.
    pub operation: LcmOperation,
    /// The state it entered.
    pub state: OperationState,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ProblemDetails>,
    /// `resourceChanges` (`affectedVnfcs`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_changes: Option<Value>,
    /// `changedInfo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_info: Option<Value>,
    /// Started by the VNFM itself (`isAutomaticInvocation`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub automatic: bool,
}

/// A notification as the outbox keeps it: facts, no URLs. The notifier renders the
/// body, with `_links` under the configured API base, when it delivers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Notification {
    /// The notification's id (the same on every delivery attempt).
    pub id: Uuid,
    /// Its type.
    pub kind: NotificationKind,
    /// When it happened.
    pub time: DateTime<Utc>,
    /// The instance it is about.
    pub vnf_instance_id: Uuid,
    /// The occurrence, for operation occurrence notifications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<OpFacts>,
}

impl Notification {
    /// A `VnfLcmOperationOccurrenceNotification` for `op` in its current state.
    pub fn of_op(op: &OpOcc) -> Self {
        Self {
            id: Uuid::new_v4(),
            kind: NotificationKind::VnfLcmOperationOccurrence,
            time: Utc::now(),
            vnf_instance_id: op.vnf_instance_id,
            op: Some(OpFacts {
                id: op.id,
                operation: op.operation,
                state: op.state,
                error: op.error.clone(),
                resource_changes: op.resource_changes.clone(),
                changed_info: op.changed_info.clone(),
                automatic: op.is_automatic_invocation,
            }),
        }
    }

    /// A `VnfIdentifierCreationNotification` or `VnfIdentifierDeletionNotification`.
    pub fn of_identifier(kind: NotificationKind, instance: Uuid) -> Self {
        Self {
            id: Uuid::new_v4(),
            kind,
            time: Utc::now(),
            vnf_instance_id: instance,
            op: None,
        }
    }

    /// The same facts under a new notification id (one per subscription).
    pub fn renewed(&self) -> Self {
        Self {
            id: Uuid::new_v4(),
            ..self.clone()
        }
    }

    /// The body delivered to `subscription`, links under `base` (e.g.
    /// `http://h/vnflcm/v2`). Operation notifications are `START` when the occurrence
    /// entered STARTING, PROCESSING or ROLLING_BACK, else `RESULT`.
    pub fn render(&self, base: &str, subscription: Uuid) -> Value {
        let mut l = links(base, subscription, self.vnf_instance_id);
        let Some(op) = &self.op else {
            return json!({
                "id": self.id,
                "notificationType": self.kind.as_str(),
                "subscriptionId": subscription,
                "timeStamp": self.time.to_rfc3339(),
                "vnfInstanceId": self.vnf_instance_id,
                "_links": l,
            });
        };
        let status = if op.state.in_progress() {
            "START"
        } else {
            "RESULT"
        };
        l.insert(
            "vnfLcmOpOcc".into(),
            json!({"href": format!("{base}/vnf_lcm_op_occs/{}", op.id)}),
        );
        let mut n = json!({
            "id": self.id,
            "notificationType": self.kind.as_str(),
            "subscriptionId": subscription,
            "timeStamp": self.time.to_rfc3339(),
            "notificationStatus": status,
            "operationState": op.state,
            "vnfInstanceId": self.vnf_instance_id,
            "operation": op.operation,
            "isAutomaticInvocation": op.automatic,
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
}
