//! `VnfInstance`, the representation of an instance (SOL003 5.5.2.2), written once: as a
//! JSON value for one instance, and straight into a list page's bytes.

use serde::Serialize;
use serde::ser::{Error as _, SerializeMap, Serializer};
use serde_json::{Map, Value, json};

use super::ApiVersion;
use super::instance::{InstantiationState, VnfInstance};
use super::secrets::redact_vim_connection_info;
use crate::href::{Href, Joined};

/// An instance's representation in API version `api` (v1: `vimConnectionInfo` as a
/// list whose entries carry their id, and `vnfPkgId`), links under `base` (e.g.
/// `http://h/vnflcm/v2`), without the complex attributes `left_out` names
/// (`vnfConfigurableProperties`, `vimConnectionInfo`, `instantiatedVnfInfo`, `metadata`,
/// `extensions`). Credentials are never in it.
///
/// Its keys come in the order of a JSON value's (sorted), so the bytes written straight
/// from it are the bytes of the value built from it.
pub struct InstanceInfo<'a, F: Fn(&str) -> bool> {
    /// The instance.
    pub instance: &'a VnfInstance,
    /// The API version answering.
    pub api: ApiVersion,
    /// The API's base URL.
    pub base: &'a str,
    /// Whether a complex attribute is left out.
    pub left_out: F,
}

/// `_links`: `self` and the tasks the instance's state allows.
struct Links<'a> {
    me: &'a str,
    state: InstantiationState,
}

impl Serialize for Links<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Sorted by relation name, `self` among them.
        let rels: &[(&str, &str)] = match self.state {
            InstantiationState::NotInstantiated => &[("instantiate", "instantiate"), ("self", "")],
            InstantiationState::Instantiated => &[
                ("changeExtConn", "change_ext_conn"),
                ("heal", "heal"),
                ("scale", "scale"),
                ("self", ""),
                ("terminate", "terminate"),
            ],
        };
        let mut m = s.serialize_map(Some(rels.len()))?;
        for (rel, path) in rels {
            if path.is_empty() {
                m.serialize_entry(rel, &Href(self.me))?;
            } else {
                m.serialize_entry(rel, &Href(&Joined(&[&self.me, &"/", path])))?;
            }
        }
        m.end()
    }
}

impl<F: Fn(&str) -> bool> Serialize for InstanceInfo<'_, F> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let i = self.instance;
        let shown =
            |name: &str, map: &Map<String, Value>| !map.is_empty() && !(self.left_out)(name);
        let me = format!("{}/vnf_instances/{}", self.base, i.id);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(
            "_links",
            &Links {
                me: &me,
                state: i.instantiation_state,
            },
        )?;
        if shown("extensions", &i.extensions) {
            m.serialize_entry("extensions", &i.extensions)?;
        }
        m.serialize_entry("id", &i.id)?;
        if let Some(info) = &i.instantiated_vnf_info
            && !(self.left_out)("instantiatedVnfInfo")
        {
            // As a value: its keys sorted, as everywhere else in the representation.
            let info = serde_json::to_value(info).map_err(S::Error::custom)?;
            m.serialize_entry("instantiatedVnfInfo", &info)?;
        }
        m.serialize_entry("instantiationState", &i.instantiation_state)?;
        if shown("metadata", &i.metadata) {
            m.serialize_entry("metadata", &i.metadata)?;
        }
        if !i.vim_connection_info.is_empty() && !(self.left_out)("vimConnectionInfo") {
            let vims = redact_vim_connection_info(&i.vim_connection_info);
            match self.api {
                ApiVersion::V2 => m.serialize_entry("vimConnectionInfo", &vims)?,
                ApiVersion::V1 => m.serialize_entry("vimConnectionInfo", &listed(vims))?,
            }
        }
        if shown("vnfConfigurableProperties", &i.vnf_configurable_properties) {
            m.serialize_entry("vnfConfigurableProperties", &i.vnf_configurable_properties)?;
        }
        if let Some(d) = &i.description {
            m.serialize_entry("vnfInstanceDescription", d)?;
        }
        if let Some(n) = &i.name {
            m.serialize_entry("vnfInstanceName", n)?;
        }
        if self.api == ApiVersion::V1 {
            m.serialize_entry("vnfPkgId", &i.vnf_pkg_id)?;
        }
        m.serialize_entry("vnfProductName", &i.vnf_product_name)?;
        m.serialize_entry("vnfProvider", &i.vnf_provider)?;
        m.serialize_entry("vnfSoftwareVersion", &i.vnf_software_version)?;
        m.serialize_entry("vnfdId", &i.vnfd_id)?;
        m.serialize_entry("vnfdVersion", &i.vnfd_version)?;
        m.end()
    }
}

/// v1's `vimConnectionInfo`: a list whose entries carry their id.
fn listed(vims: Map<String, Value>) -> Vec<Value> {
    vims.into_iter()
        .map(|(id, mut e)| {
            if let Value::Object(o) = &mut e {
                o.insert("id".into(), json!(id));
            }
            e
        })
        .collect()
}

impl<F: Fn(&str) -> bool> InstanceInfo<'_, F> {
    /// As a JSON value.
    pub fn to_value(&self) -> Value {
        // Our own maps, strings and numbers: serialising them cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use serde_json::json;
    use uuid::Uuid;

    use super::*;
    use crate::lcm::{InstantiatedVnfInfo, VNF_INSTANCE_DEFAULT_EXCLUDED};

    fn instances() -> Vec<VnfInstance> {
        let bare = VnfInstance {
            id: Uuid::new_v4(),
            name: None,
            description: None,
            vnfd_id: "vnfd-1".into(),
            vnf_pkg_id: Uuid::new_v4(),
            vnf_provider: "Company".into(),
            vnf_product_name: "Sample \"VNF\"".into(),
            vnf_software_version: "1.0".into(),
            vnfd_version: "1.0".into(),
            instantiation_state: InstantiationState::NotInstantiated,
            instantiated_vnf_info: None,
            vim_connection_info: Default::default(),
            metadata: Map::new(),
            extensions: Map::new(),
            vnf_configurable_properties: Map::new(),
            current_op: None,
            created_at: Utc::now(),
            tenant: None,
        };
        let mut full = bare.clone();
        full.name = Some("vnf-a".into());
        full.description = Some("ünïcode".into());
        full.instantiation_state = InstantiationState::Instantiated;
        full.vim_connection_info = serde_json::from_value(json!({
            "vim2": {"vimType": "kubernetes", "interfaceInfo": {"endpoint": "https://k"},
                     "accessInfo": {"bearer_token": "secret-token", "zone": "b"}},
            "vim1": {"vimId": "x", "vimType": "ETSINFV.OPENSTACK_KEYSTONE.V_3"}}))
        .unwrap();
        full.instantiated_vnf_info = Some(
            serde_json::from_value::<InstantiatedVnfInfo>(json!({
                "flavourId": "simple",
                "vnfState": "STARTED",
                "vnfcResourceInfo": [{"id": "r1", "vduId": "VDU1",
                    "computeResource": {"resourceId": "p-1", "vimLevelResourceType": "Pod"}}],
                "metadata": {"namespace": "ns", "a": [2, {"z": 1, "b": 0}]}}))
            .unwrap(),
        );
        full.metadata = json!({"z": 1, "a": {"y": 2, "b": 3}})
            .as_object()
            .cloned()
            .unwrap_or_default();
        full.extensions = json!({"k": "v"}).as_object().cloned().unwrap_or_default();
        full.vnf_configurable_properties = json!({"isAutoscaleEnabled": true})
            .as_object()
            .cloned()
            .unwrap_or_default();
        vec![bare, full]
    }

    fn info<'a>(
        i: &'a VnfInstance,
        api: ApiVersion,
        left_out: &'a dyn Fn(&str) -> bool,
    ) -> InstanceInfo<'a, &'a dyn Fn(&str) -> bool> {
        InstanceInfo {
            instance: i,
            api,
            base: "http://h/vnflcm/v2",
            left_out,
        }
    }

    #[test]
    fn the_bytes_written_at_once_are_the_bytes_of_the_value() {
        let lean = |a: &str| VNF_INSTANCE_DEFAULT_EXCLUDED.contains(&a);
        for i in instances() {
            for api in [ApiVersion::V1, ApiVersion::V2] {
                for left_out in [&(|_: &str| false) as &dyn Fn(&str) -> bool, &lean] {
                    let info = info(&i, api, left_out);
                    let written = serde_json::to_string(&info).unwrap();
                    let value = serde_json::to_string(&info.to_value()).unwrap();
                    assert_eq!(written, value);
                }
            }
        }
    }

    #[test]
    fn versions_left_out_attributes_and_credentials() {
        let i = instances().pop().unwrap();
        let all = |_: &str| false;
        let v2 = info(&i, ApiVersion::V2, &all).to_value();
        let v1 = info(&i, ApiVersion::V1, &all).to_value();
        assert_eq!(v2["vimConnectionInfo"]["vim1"]["vimId"], "x");
        assert_eq!(v1["vimConnectionInfo"][0]["id"], "vim1");
        assert_eq!(v1["vnfPkgId"], json!(i.vnf_pkg_id));
        assert!(v2.get("vnfPkgId").is_none());
        for v in [&v1, &v2] {
            assert!(!v.to_string().contains("secret-token"), "{v}");
            assert_eq!(
                v["_links"]["heal"]["href"],
                format!("http://h/vnflcm/v2/vnf_instances/{}/heal", i.id)
            );
        }
        let lean = |a: &str| a != "metadata" && VNF_INSTANCE_DEFAULT_EXCLUDED.contains(&a);
        let lean = info(&i, ApiVersion::V2, &lean).to_value();
        for a in VNF_INSTANCE_DEFAULT_EXCLUDED {
            let expected = *a == "metadata";
            assert_eq!(lean.get(*a).is_some(), expected, "{a}");
            assert!(v2.get(*a).is_some(), "{a}");
        }
        assert_eq!(lean["vnfInstanceName"], "vnf-a");
    }
}
