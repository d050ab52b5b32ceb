//! FM notifications (SOL003 7.5.2.5-7): the facts the outbox keeps and the bodies
//! delivered.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use uuid::Uuid;

use super::Alarm;

/// The FM notification types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FmNotificationKind {
    /// An alarm was raised (or changed).
    #[serde(rename = "AlarmNotification")]
    Alarm,
    /// An alarm was cleared.
    #[serde(rename = "AlarmClearedNotification")]
    AlarmCleared,
    /// The alarm list was rebuilt: subscribers read it again.
    #[serde(rename = "AlarmListRebuiltNotification")]
    AlarmListRebuilt,
}

impl FmNotificationKind {
    /// The `notificationType` text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Alarm => "AlarmNotification",
            Self::AlarmCleared => "AlarmClearedNotification",
            Self::AlarmListRebuilt => "AlarmListRebuiltNotification",
        }
    }
}

/// What an FM notification reports: the alarm as it was when it happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FmFacts {
    /// The notification's id (the same on every delivery attempt).
    pub id: Uuid,
    /// Its type.
    pub fm_kind: FmNotificationKind,
    /// When it happened.
    pub time_stamp: DateTime<Utc>,
    /// The alarm (none for a rebuilt list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alarm: Option<Alarm>,
}

impl FmFacts {
    fn new(kind: FmNotificationKind, alarm: Option<&Alarm>) -> Self {
        Self {
            id: Uuid::new_v4(),
            fm_kind: kind,
            time_stamp: Utc::now(),
            alarm: alarm.cloned(),
        }
    }

    /// `alarm` was raised.
    pub fn raised(alarm: &Alarm) -> Self {
        Self::new(FmNotificationKind::Alarm, Some(alarm))
    }

    /// `alarm` was cleared.
    pub fn cleared(alarm: &Alarm) -> Self {
        Self::new(FmNotificationKind::AlarmCleared, Some(alarm))
    }

    /// The alarm list was rebuilt.
    pub fn rebuilt() -> Self {
        Self::new(FmNotificationKind::AlarmListRebuilt, None)
    }

    /// The same facts under a new notification id (one per subscription).
    pub fn renewed(&self) -> Self {
        Self {
            id: Uuid::new_v4(),
            ..self.clone()
        }
    }

    /// The body delivered to `subscription`, links under `fm_base` (`.../vnffm/v1`) and
    /// `lcm_base` (`.../vnflcm/v2`).
    pub fn render(&self, fm_base: &str, lcm_base: &str, subscription: Uuid) -> Value {
        let mut b = json!({
            "id": self.id,
            "notificationType": self.fm_kind.as_str(),
            "subscriptionId": subscription,
            "timeStamp": self.time_stamp.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "_links": {"subscription": {"href": format!("{fm_base}/subscriptions/{subscription}")}},
        });
        match (self.fm_kind, &self.alarm) {
            (FmNotificationKind::Alarm, Some(a)) => {
                b["alarm"] = a.to_json(fm_base, lcm_base);
            }
            (FmNotificationKind::AlarmCleared, Some(a)) => {
                b["alarmId"] = json!(a.id);
                b["alarmClearedTime"] = json!(
                    a.cleared_at
                        .unwrap_or(self.time_stamp)
                        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                );
                b["_links"]["alarm"] = json!({"href": format!("{fm_base}/alarms/{}", a.id)});
            }
            _ => {
                b["_links"]["alarms"] = json!({"href": format!("{fm_base}/alarms")});
            }
        }
        b
    }
}
