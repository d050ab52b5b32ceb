//! `VnfLcmOpOcc`, the representation of an operation occurrence (SOL003 5.5.2.13),
//! written once: as a JSON value for one occurrence, and straight into a list page's
//! bytes.

use std::fmt::Display;

use serde::Serialize;
use serde::ser::{Error as _, SerializeMap, Serializer};
use serde_json::Value;

use super::op::{OpOcc, OperationState};
use super::secrets::shown_params;
use crate::href::{Href, Joined};

/// An occurrence's representation, links under `base` (e.g. `http://h/vnflcm/v2`),
/// without the complex attributes `left_out` names (`operationParams`, `error`,
/// `resourceChanges`, `changedInfo`, `changedExtConnectivity`). Secrets in its request
/// are never in it.
///
/// Its keys come in the order of a JSON value's (sorted), so the bytes written straight
/// from it are the bytes of the value built from it.
pub struct OccInfo<'a, F: Fn(&str) -> bool> {
    /// The occurrence.
    pub occ: &'a OpOcc,
    /// The API's base URL.
    pub base: &'a str,
    /// Whether a complex attribute is left out.
    pub left_out: F,
}

/// `_links`: `self`, the instance, and the tasks the occurrence's state allows.
struct Links<'a> {
    occ: &'a OpOcc,
    me: &'a str,
    base: &'a str,
}

impl Serialize for Links<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = self.occ;
        let task = |path: &'static &'static str| [&self.me as &dyn Display, &"/", path];
        // Sorted by relation name.
        let mut m = s.serialize_map(None)?;
        if o.cancellable() && o.cancel_pending.is_none() {
            m.serialize_entry("cancel", &Href(&Joined(&task(&"cancel"))))?;
        }
        if o.state == OperationState::FailedTemp {
            for rel in &["fail", "retry", "rollback"] {
                m.serialize_entry(rel, &Href(&Joined(&task(rel))))?;
            }
        }
        m.serialize_entry("self", &Href(self.me))?;
        let instance = [
            &self.base as &dyn Display,
            &"/vnf_instances/",
            &o.vnf_instance_id,
        ];
        m.serialize_entry("vnfInstance", &Href(&Joined(&instance)))?;
        m.end()
    }
}

impl<F: Fn(&str) -> bool> Serialize for OccInfo<'_, F> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = self.occ;
        let kept = |name: &str| !(self.left_out)(name);
        let me = format!("{}/vnf_lcm_op_occs/{}", self.base, o.id);
        let mut m = s.serialize_map(None)?;
        let links = Links {
            occ: o,
            me: &me,
            base: self.base,
        };
        m.serialize_entry("_links", &links)?;
        if let Some(mode) = o.cancel_pending {
            m.serialize_entry("cancelMode", &mode)?;
        }
        let values = [
            ("changedExtConnectivity", &o.changed_ext_connectivity),
            ("changedInfo", &o.changed_info),
        ];
        for (name, v) in values {
            if let Some(v) = v.as_ref().filter(|_| kept(name)) {
                m.serialize_entry(name, v)?;
            }
        }
        if let Some(e) = o.error.as_ref().filter(|_| kept("error")) {
            // As a value: its keys sorted, as everywhere else in the representation.
            let e = serde_json::to_value(e).map_err(S::Error::custom)?;
            m.serialize_entry("error", &e)?;
        }
        if let Some(g) = &o.grant_id {
            m.serialize_entry("grantId", g)?;
        }
        m.serialize_entry("id", &o.id)?;
        m.serialize_entry("isAutomaticInvocation", &o.is_automatic_invocation)?;
        m.serialize_entry("isCancelPending", &o.cancel_pending.is_some())?;
        m.serialize_entry("operation", &o.operation)?;
        if kept("operationParams") {
            // Rows stored before secrets were masked at storage are masked here too.
            m.serialize_entry("operationParams", &shown_params(&o.operation_params))?;
        }
        m.serialize_entry("operationState", &o.state)?;
        if let Some(r) = o
            .resource_changes
            .as_ref()
            .filter(|_| kept("resourceChanges"))
        {
            m.serialize_entry("resourceChanges", r)?;
        }
        m.serialize_entry("startTime", &o.start_time.to_rfc3339())?;
        m.serialize_entry("stateEnteredTime", &o.state_entered_time.to_rfc3339())?;
        m.serialize_entry("vnfInstanceId", &o.vnf_instance_id)?;
        m.end()
    }
}

impl<F: Fn(&str) -> bool> OccInfo<'_, F> {
    /// As a JSON value.
    pub fn to_value(&self) -> Value {
        // Our own maps, strings and numbers: serialising them cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use uuid::Uuid;

    use super::*;
    use crate::ProblemDetails;
    use crate::lcm::{CancelMode, LcmOperation, OP_OCC_DEFAULT_EXCLUDED, OperationParams};

    fn occs() -> Vec<OpOcc> {
        let body = json!({"flavourId": "simple", "additionalParams": {
            "vdu_params": [{"vdu_id": "VDU1", "old_vnfc_param": {"password": "hunter2"}}]}});
        let request = OperationParams::parse(LcmOperation::Instantiate, &body).unwrap();
        let starting = OpOcc::new(
            Uuid::new_v4(),
            Uuid::new_v4(),
            OperationState::Processing,
            request,
            body,
        );
        let mut cancelling = starting.clone();
        cancelling.cancel_pending = Some(CancelMode::Graceful);
        let mut failed = starting.clone();
        failed.state = OperationState::FailedTemp;
        failed.grant_id = Some("g-1".into());
        failed.error = Some(ProblemDetails::new(500, "the VIM said \"no\""));
        failed.resource_changes = Some(json!({"affectedVnfcs": [{"id": "c", "b": 1}]}));
        failed.changed_info = Some(json!({"vnfInstanceName": "n"}));
        failed.changed_ext_connectivity = Some(json!([]));
        failed.is_automatic_invocation = true;
        vec![starting, cancelling, failed]
    }

    fn info<'a>(
        o: &'a OpOcc,
        left_out: &'a dyn Fn(&str) -> bool,
    ) -> OccInfo<'a, &'a dyn Fn(&str) -> bool> {
        OccInfo {
            occ: o,
            base: "http://h/vnflcm/v2",
            left_out,
        }
    }

    #[test]
    fn the_bytes_written_at_once_are_the_bytes_of_the_value() {
        let lean = |a: &str| OP_OCC_DEFAULT_EXCLUDED.contains(&a);
        for o in occs() {
            for left_out in [&(|_: &str| false) as &dyn Fn(&str) -> bool, &lean] {
                let info = info(&o, left_out);
                let written = serde_json::to_string(&info).unwrap();
                let value = serde_json::to_string(&info.to_value()).unwrap();
                assert_eq!(written, value);
            }
        }
    }

    #[test]
    fn links_follow_the_state_and_left_out_attributes_are_not_rendered() {
        let all = |_: &str| false;
        let lean = |a: &str| OP_OCC_DEFAULT_EXCLUDED.contains(&a);
        let [starting, cancelling, failed] = &occs()[..] else {
            unreachable!()
        };
        let links = |o: &OpOcc| {
            let v = info(o, &all).to_value();
            let mut rels: Vec<String> = v["_links"].as_object().unwrap().keys().cloned().collect();
            rels.sort();
            rels
        };
        assert_eq!(links(starting), ["cancel", "self", "vnfInstance"]);
        assert_eq!(links(cancelling), ["self", "vnfInstance"]);
        assert_eq!(
            links(failed),
            ["fail", "retry", "rollback", "self", "vnfInstance"]
        );
        let full = info(failed, &all).to_value();
        let short = info(failed, &lean).to_value();
        for a in OP_OCC_DEFAULT_EXCLUDED {
            assert!(full.get(*a).is_some() && short.get(*a).is_none(), "{a}");
        }
        assert!(!full.to_string().contains("hunter2"), "{full}");
        assert_eq!(short["grantId"], "g-1");
        assert_eq!(cancelling_mode(cancelling), json!("GRACEFUL"));
    }

    fn cancelling_mode(o: &OpOcc) -> Value {
        info(o, &|_| false).to_value()["cancelMode"].clone()
    }
}
