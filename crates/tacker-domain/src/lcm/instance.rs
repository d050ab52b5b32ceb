//! VNF instances.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

crate::text_enum! {
    /// Whether an instance has resources.
    InstantiationState, "instantiationState" {
        /// Created, no resources.
        NotInstantiated = "NOT_INSTANTIATED",
        /// Running.
        Instantiated = "INSTANTIATED",
    }
}

/// A resource in a VIM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceHandle {
    /// The VIM connection it lives in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vim_connection_id: Option<String>,
    /// Its id in the VIM (a Pod name, a server id, ...).
    pub resource_id: String,
    /// Its type in the VIM (e.g. `Deployment`, `OS::Nova::Server`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vim_level_resource_type: Option<String>,
}

/// One VNFC's resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VnfcResourceInfo {
    /// Its id.
    pub id: String,
    /// The VDU it realises.
    pub vdu_id: String,
    /// The compute resource.
    pub compute_resource: ResourceHandle,
    /// Its connection points and their addresses (VM-based VNFCs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vnfc_cp_info: Vec<VnfcCpInfo>,
    /// Driver data.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

/// A VNFC's connection point (SOL003 `VnfcResourceInfo.vnfcCpInfo`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VnfcCpInfo {
    /// Its id.
    pub id: String,
    /// The CPD (the VNFD's `VduCp`).
    pub cpd_id: String,
    /// The external CP it is exposed as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vnf_ext_cp_id: Option<String>,
    /// The link port in the VIM (e.g. a Neutron port id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vnf_link_port_id: Option<String>,
    /// Protocols and addresses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cp_protocol_info: Vec<CpProtocolInfo>,
}

/// A connection point's protocol data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CpProtocolInfo {
    /// `IP_OVER_ETHERNET`.
    pub layer_protocol: String,
    /// MAC and IP addresses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip_over_ethernet: Option<IpOverEthernet>,
}

/// MAC and IP addresses of a connection point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IpOverEthernet {
    /// The MAC address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac_address: Option<String>,
    /// Addresses, by type.
    #[serde(default)]
    pub ip_addresses: Vec<IpAddresses>,
}

/// Addresses of one type on a connection point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IpAddresses {
    /// `IPV4` or `IPV6`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The addresses (a floating address first, when there is one).
    #[serde(default)]
    pub addresses: Vec<String>,
    /// Whether they were assigned dynamically.
    #[serde(default)]
    pub is_dynamic: bool,
    /// The subnet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subnet_id: Option<String>,
}

/// The address management drivers reach VNFC `vnfc` (a `vnfcResourceInfo` id) at on
/// its connection point `cp` (the VNFD's CP name): its first address there.
pub fn address_of(instance: &VnfInstance, vnfc: &str, cp: &str) -> Option<String> {
    instance
        .instantiated_vnf_info
        .as_ref()?
        .vnfc_resource_info
        .iter()
        .find(|r| r.id == vnfc)?
        .vnfc_cp_info
        .iter()
        .find(|c| c.cpd_id == cp)?
        .cp_protocol_info
        .iter()
        .filter_map(|p| p.ip_over_ethernet.as_ref())
        .flat_map(|e| e.ip_addresses.iter())
        .flat_map(|a| a.addresses.iter())
        .next()
        .cloned()
}

/// One VNFC (SOL002 `vnfcInfo`): what `vnfcInstanceId` in heal refers to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VnfcInfo {
    /// Its id.
    pub id: String,
    /// The VDU.
    pub vdu_id: String,
    /// The VnfcResourceInfo it is.
    pub vnfc_resource_info_id: String,
    /// `STARTED` or `STOPPED`.
    pub vnfc_state: String,
    /// `vnfcConfigurableProperties` (set through `vnfcInfoModifications`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub vnfc_configurable_properties: Map<String, Value>,
}

/// The scale level of one aspect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleInfo {
    /// The aspect.
    pub aspect_id: String,
    /// The VNFD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vnfd_id: Option<String>,
    /// The level.
    pub scale_level: u32,
}

/// What an instantiated VNF is made of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstantiatedVnfInfo {
    /// The deployment flavour.
    pub flavour_id: String,
    /// `STARTED` or `STOPPED`.
    pub vnf_state: String,
    /// Scale level per aspect.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scale_status: Vec<ScaleInfo>,
    /// Maximum scale level per aspect.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub max_scale_levels: Vec<ScaleInfo>,
    /// VNFC resources.
    #[serde(default)]
    pub vnfc_resource_info: Vec<VnfcResourceInfo>,
    /// VNFCs.
    #[serde(default)]
    pub vnfc_info: Vec<VnfcInfo>,
    /// Anything else (extCpInfo, virtual links, storage, driver metadata), as given.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl InstantiatedVnfInfo {
    /// What the instance's infra driver recorded (`metadata`: a CNF's namespace, its
    /// manifests or release, a VM VNF's stack), if anything.
    pub fn driver_metadata(&self) -> Option<&Map<String, Value>> {
        self.other.get("metadata").and_then(Value::as_object)
    }

    /// The Kubernetes namespace a CNF was deployed into, as its driver recorded it.
    pub fn cnf_namespace(&self) -> Option<&str> {
        self.driver_metadata()?
            .get("namespace")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
    }
}

/// A VNF instance (`{:?}` shows its VIM connections without credentials).
#[derive(Clone, PartialEq)]
pub struct VnfInstance {
    /// Id.
    pub id: Uuid,
    /// `vnfInstanceName`.
    pub name: Option<String>,
    /// `vnfInstanceDescription`.
    pub description: Option<String>,
    /// The VNFD.
    pub vnfd_id: String,
    /// The package it was created from.
    pub vnf_pkg_id: Uuid,
    /// `vnfProvider`.
    pub vnf_provider: String,
    /// `vnfProductName`.
    pub vnf_product_name: String,
    /// `vnfSoftwareVersion`.
    pub vnf_software_version: String,
    /// `vnfdVersion`.
    pub vnfd_version: String,
    /// State.
    pub instantiation_state: InstantiationState,
    /// Set when instantiated.
    pub instantiated_vnf_info: Option<InstantiatedVnfInfo>,
    /// VIM connections, with credentials (never answered as is).
    pub vim_connection_info: crate::vim::connection::VimConnections,
    /// `metadata`.
    pub metadata: Map<String, Value>,
    /// `extensions`.
    pub extensions: Map<String, Value>,
    /// `vnfConfigurableProperties`.
    pub vnf_configurable_properties: Map<String, Value>,
    /// The operation in progress or FAILED_TEMP on it.
    pub current_op: Option<Uuid>,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// The tenant it belongs to (its creator's); `None`: every caller sees it.
    pub tenant: Option<String>,
}

use super::ApiVersion;
use super::instance_info::InstanceInfo;
use super::secrets::redact_vim_connection_info;

impl std::fmt::Debug for VnfInstance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VnfInstance")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("description", &self.description)
            .field("vnfd_id", &self.vnfd_id)
            .field("vnf_pkg_id", &self.vnf_pkg_id)
            .field("vnf_provider", &self.vnf_provider)
            .field("vnf_product_name", &self.vnf_product_name)
            .field("vnf_software_version", &self.vnf_software_version)
            .field("vnfd_version", &self.vnfd_version)
            .field("instantiation_state", &self.instantiation_state)
            .field("instantiated_vnf_info", &self.instantiated_vnf_info)
            .field(
                "vim_connection_info",
                &redact_vim_connection_info(&self.vim_connection_info),
            )
            .field("metadata", &self.metadata)
            .field("extensions", &self.extensions)
            .field(
                "vnf_configurable_properties",
                &self.vnf_configurable_properties,
            )
            .field("current_op", &self.current_op)
            .field("created_at", &self.created_at)
            .field("tenant", &self.tenant)
            .finish()
    }
}

impl VnfInstance {
    /// The `VnfInstance` body as v2 answers it, links under `base` (e.g.
    /// `http://h/vnflcm/v2`).
    pub fn to_json(&self, base: &str) -> Value {
        self.info(ApiVersion::V2, base, |_| false).to_value()
    }

    /// Its representation in API version `api`, without the complex attributes
    /// `left_out` names, to be written as it is or made a value: a list page leaves out
    /// by default what it would otherwise build, copy and then drop.
    pub fn info<'a, F: Fn(&str) -> bool>(
        &'a self,
        api: ApiVersion,
        base: &'a str,
        left_out: F,
    ) -> InstanceInfo<'a, F> {
        InstanceInfo {
            instance: self,
            api,
            base,
            left_out,
        }
    }

    /// The VNFC of this id, if instantiated.
    pub fn vnfc(&self, vnfc_id: &str) -> Option<&VnfcInfo> {
        self.instantiated_vnf_info
            .as_ref()?
            .vnfc_info
            .iter()
            .find(|v| v.id == vnfc_id)
    }
}

/// Top-level attributes of `VnfInstance` that filters may name.
pub const VNF_INSTANCE_ATTRIBUTES: &[&str] = &[
    "id",
    "vnfInstanceName",
    "vnfInstanceDescription",
    "vnfdId",
    "vnfProvider",
    "vnfProductName",
    "vnfSoftwareVersion",
    "vnfdVersion",
    "vnfConfigurableProperties",
    "vimConnectionInfo",
    "instantiationState",
    "instantiatedVnfInfo",
    "metadata",
    "extensions",
    "_links",
];

/// Complex attributes left out of lists by default.
pub const VNF_INSTANCE_DEFAULT_EXCLUDED: &[&str] = &[
    "vnfConfigurableProperties",
    "vimConnectionInfo",
    "instantiatedVnfInfo",
    "metadata",
    "extensions",
];

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn credentials_never_leave() {
        let vci = json!({"vim1": {"vimType": "kubernetes",
            "interfaceInfo": {"endpoint": "https://k", "client_key": "ck-1"},
            "accessInfo": {"bearer_token": "t0k", "username": "u", "password": "p", "myPassword": "x",
                "apiKey": "ak-1", "accessToken": "at-1", "client_key": "ck-2"}}});
        let out = redact_vim_connection_info(&serde_json::from_value(vci).unwrap());
        let text = serde_json::to_string(&out).unwrap();
        for secret in ["t0k", "\"p\"", "myPassword", "ak-1", "at-1", "ck-1", "ck-2"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert!(text.contains("https://k") && text.contains("\"username\""));
    }
}
