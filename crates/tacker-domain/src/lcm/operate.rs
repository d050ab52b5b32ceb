//! `OperateVnfRequest` (`…/operate`): start or stop the whole VNF or named VNFCs.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::instance::VnfInstance;
use crate::failure::Failure;

crate::text_enum! {
    /// `changeStateTo`.
    OperationalState, "changeStateTo" {
        /// Running.
        Started = "STARTED",
        /// Stopped.
        Stopped = "STOPPED",
    }
}

crate::text_enum! {
    /// `stopType`.
    StopType, "stopType" {
        /// At once.
        Forceful = "FORCEFUL",
        /// After `gracefulStopTimeout` at the most.
        Graceful = "GRACEFUL",
    }
}

/// `OperateVnfRequest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OperateRequest {
    /// The VNFCs (`vnfcInfo` ids) to start or stop; empty: the whole VNF.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vnfc_instance_id: Vec<String>,
    /// STARTED or STOPPED.
    pub change_state_to: OperationalState,
    /// How to stop (STOPPED only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_type: Option<StopType>,
    /// Seconds a graceful stop may take (GRACEFUL only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graceful_stop_timeout: Option<u32>,
    /// `additionalParams`.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub additional_params: Map<String, Value>,
}

fn bad(m: impl Into<String>) -> Failure {
    Failure::bad_request(m)
}

impl OperateRequest {
    /// Reads a request body (400 for a stop type without STOPPED, a timeout without
    /// GRACEFUL).
    pub fn parse(body: &Value) -> Result<Self, Failure> {
        if !body.is_object() {
            return Err(bad("the request body must be a JSON object"));
        }
        let r: Self = serde_json::from_value(body.clone())
            .map_err(|e| bad(format!("invalid request body: {e}")))?;
        if r.stop_type.is_some() && r.change_state_to != OperationalState::Stopped {
            return Err(bad("stopType applies to changeStateTo STOPPED only"));
        }
        if r.graceful_stop_timeout.is_some() && r.stop_type != Some(StopType::Graceful) {
            return Err(bad("gracefulStopTimeout applies to stopType GRACEFUL only"));
        }
        Ok(r)
    }

    /// Every named VNFC is one of the instance's (400).
    pub fn check(&self, instance: &VnfInstance) -> Result<(), Failure> {
        super::request::check_vnfcs(&self.vnfc_instance_id, instance)
    }

    /// 409 when the VNF (or every named VNFC) is in the state asked already: nothing
    /// would change.
    pub fn check_changes(&self, instance: &VnfInstance) -> Result<(), Failure> {
        let Some(info) = &instance.instantiated_vnf_info else {
            return Ok(());
        };
        let to = self.change_state_to.as_str();
        let already = if self.vnfc_instance_id.is_empty() {
            info.vnf_state == to
        } else {
            info.vnfc_info
                .iter()
                .filter(|c| self.covers(&c.id))
                .all(|c| c.vnfc_state == to)
        };
        if already {
            return Err(Failure::conflict(format!(
                "{} {to} already: nothing to operate",
                if self.vnfc_instance_id.is_empty() {
                    format!("VNF instance {} is", instance.id)
                } else {
                    "the VNFCs named are".to_owned()
                }
            )));
        }
        Ok(())
    }

    /// Whether it names `vnfc` (a `vnfcInfo` id), or the whole VNF.
    pub fn covers(&self, vnfc: &str) -> bool {
        self.vnfc_instance_id.is_empty() || self.vnfc_instance_id.iter().any(|v| v == vnfc)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn requests_parse_and_mismatched_stop_settings_are_refused() {
        let r = OperateRequest::parse(&json!({"changeStateTo": "STOPPED", "stopType": "GRACEFUL",
            "gracefulStopTimeout": 10}))
        .unwrap();
        assert_eq!(r.change_state_to, OperationalState::Stopped);
        assert!(r.covers("any"));
        for (body, text) in [
            (json!({}), "changeStateTo"),
            (json!({"changeStateTo": "PAUSED"}), "PAUSED"),
            (
                json!({"changeStateTo": "STARTED", "stopType": "FORCEFUL"}),
                "STOPPED only",
            ),
            (
                json!({"changeStateTo": "STOPPED", "stopType": "FORCEFUL", "gracefulStopTimeout": 1}),
                "GRACEFUL only",
            ),
        ] {
            let f = OperateRequest::parse(&body).unwrap_err();
            assert_eq!(f.problem().status, 400);
            assert!(
                f.problem().detail.contains(text),
                "{body}: {}",
                f.problem().detail
            );
        }
    }
}
