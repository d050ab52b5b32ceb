//! The VNFD as the system stores it after onboarding (SOL001 concepts, typed), so no
//! process needs the CSAR to answer questions about a package.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A digest of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest {
    /// Algorithm as SOL004 names it: `SHA-224`, `SHA-256`, `SHA-384` or `SHA-512`.
    pub algorithm: String,
    /// Lower-case hexadecimal digest.
    pub hash: String,
}

/// What a package holds, read from its CSAR.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageModel {
    /// The VNFD.
    pub vnfd: Vnfd,
    /// Every file of the package but its metadata and definitions.
    pub artifacts: Vec<ArtifactInfo>,
    /// The manifest's metadata (`vnf_provider_id`, `vnf_product_name`, ...).
    pub manifest_metadata: BTreeMap<String, String>,
    /// Where the manifest and TOSCA-Metadata point outside the package (not fetched).
    pub external_sources: Vec<String>,
    /// Where every file's data lies inside the CSAR zip, so a file can be served by
    /// reading a byte range of the stored package.
    #[serde(default)]
    pub entries: BTreeMap<String, EntryLocation>,
    /// The manifest's path, if the package has one.
    #[serde(default)]
    pub manifest: Option<String>,
    /// Things users commonly get wrong that still onboard.
    pub warnings: Vec<String>,
}

impl PackageModel {
    /// Whether `path` is a file of the package (not its metadata or definitions).
    pub fn has_artifact(&self, path: &str) -> bool {
        self.artifacts.iter().any(|a| a.path == path)
    }

    /// Whether `path` is a Helm chart of the package: an archive, or a directory
    /// holding artifacts.
    pub fn has_chart(&self, path: &str) -> bool {
        let path = path.trim_end_matches('/');
        let dir = format!("{path}/");
        self.artifacts
            .iter()
            .any(|a| a.path == path || a.path.starts_with(&dir))
    }
}

/// Descriptor-level facts and every deployment flavour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Vnfd {
    /// `descriptor_id` (the vnfdId).
    pub vnfd_id: String,
    /// `provider`.
    pub provider: String,
    /// `product_name`.
    pub product_name: String,
    /// `software_version`.
    pub software_version: String,
    /// `descriptor_version`.
    pub descriptor_version: String,
    /// `vnfm_info`.
    pub vnfm_info: Vec<String>,
    /// The path of the entry definitions file inside the package.
    pub entry_definitions: String,
    /// Every definitions file the VNFD is made of (entry first, then its imports).
    pub definitions: Vec<String>,
    /// Deployment flavours.
    pub flavours: Vec<Flavour>,
    /// The `additionalParams` names the package declares secret: properties with
    /// `metadata: {secret: true}` of its data types derived from
    /// `tosca.datatypes.nfv.VnfOperationAdditionalParameters`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secret_params: Vec<String>,
}

impl Vnfd {
    /// The flavour with this id.
    pub fn flavour(&self, id: &str) -> Option<&Flavour> {
        self.flavours.iter().find(|f| f.id == id)
    }
}

/// A deployment flavour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Flavour {
    /// `flavour_id`.
    pub id: String,
    /// `flavour_description`.
    pub description: String,
    /// The definitions file that defines it.
    pub file: String,
    /// VDUs (`tosca.nodes.nfv.Vdu.Compute`).
    pub vdus: Vec<Vdu>,
    /// Connection points (`tosca.nodes.nfv.VduCp`).
    pub cps: Vec<Cp>,
    /// Internal virtual links (`tosca.nodes.nfv.VnfVirtualLink`).
    pub virtual_links: Vec<VirtualLink>,
    /// Virtual storage (`tosca.nodes.nfv.Vdu.Virtual*Storage`).
    pub storages: Vec<Storage>,
    /// Scaling aspects.
    pub scaling_aspects: Vec<ScalingAspect>,
    /// Instantiation levels.
    pub instantiation_levels: Vec<InstantiationLevel>,
    /// The default instantiation level.
    pub default_instantiation_level: Option<String>,
    /// `interfaces.Vnflcm` hooks.
    pub hooks: Vec<LcmHook>,
}

impl Flavour {
    /// The VDU with this node id.
    pub fn vdu(&self, id: &str) -> Option<&Vdu> {
        self.vdus.iter().find(|v| v.id == id)
    }

    /// The hook of this name (e.g. `instantiate_end`).
    pub fn hook(&self, name: &str) -> Option<&LcmHook> {
        self.hooks.iter().find(|h| h.name == name)
    }
}

/// A VDU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Vdu {
    /// Node template name (the vduId).
    pub id: String,
    /// `properties.name` (for CNFs: the Kubernetes resource name).
    pub name: String,
    /// `properties.description`.
    pub description: String,
    /// `vdu_profile.min_number_of_instances`.
    pub min_instances: u32,
    /// `vdu_profile.max_number_of_instances`.
    pub max_instances: u32,
    /// `sw_image_data`, if any.
    pub sw_image: Option<SwImage>,
    /// `capabilities` as written.
    pub capabilities: Value,
    /// Storage nodes it requires (`virtual_storage`).
    pub storages: Vec<String>,
    /// `VduInitialDelta` instances.
    pub initial_delta: Option<u32>,
    /// `VduScalingAspectDeltas`: aspect -> delta id -> instances.
    pub scaling_deltas: BTreeMap<String, BTreeMap<String, u32>>,
    /// `VduInstantiationLevels`: level -> instances.
    pub instantiation_levels: BTreeMap<String, u32>,
}

impl Vdu {
    /// The compute flavour the VDU asks for
    /// (`requested_additional_capability_name` under its `virtual_compute` capability).
    pub fn requested_flavour(&self) -> Option<&str> {
        fn find(v: &Value) -> Option<&str> {
            match v {
                Value::Object(m) => m
                    .get("requested_additional_capability_name")
                    .and_then(Value::as_str)
                    .or_else(|| m.values().find_map(find)),
                Value::Array(a) => a.iter().find_map(find),
                _ => None,
            }
        }
        find(self.capabilities.get("virtual_compute")?)
    }
}

/// `sw_image_data`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SwImage {
    /// `name`.
    pub name: String,
    /// `version`.
    pub version: String,
    /// `checksum`.
    pub checksum: Option<Digest>,
    /// `container_format`.
    pub container_format: String,
    /// `disk_format`.
    pub disk_format: String,
    /// `min_disk` as written (e.g. `1 GB`).
    pub min_disk: String,
    /// `min_ram` as written.
    pub min_ram: String,
    /// `size` as written.
    pub size: String,
    /// The SwImage artifact's path in the package, when the image is inside it.
    pub artifact: Option<String>,
}

/// A connection point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cp {
    /// Node template name.
    pub id: String,
    /// The VDU it binds to.
    pub vdu: Option<String>,
    /// The virtual link it connects to.
    pub virtual_link: Option<String>,
    /// `layer_protocols`.
    pub layer_protocols: Vec<String>,
    /// `order`.
    pub order: Option<u32>,
}

/// An internal virtual link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VirtualLink {
    /// Node template name.
    pub id: String,
    /// `description`.
    pub description: String,
    /// `connectivity_type.layer_protocols`.
    pub layer_protocols: Vec<String>,
    /// The first `vl_profile.virtual_link_protocol_data[].l3_protocol_data.cidr`
    /// (the subnet a HOT built from the VNFD makes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cidr: Option<String>,
}

/// Virtual storage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Storage {
    /// Node template name.
    pub id: String,
    /// The node type.
    pub type_name: String,
    /// `size_of_storage` as written.
    pub size: String,
    /// `sw_image_data`, if any.
    pub sw_image: Option<SwImage>,
}

/// A scaling aspect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScalingAspect {
    /// Aspect id (the key under `aspects`).
    pub id: String,
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: String,
    /// `max_scale_level`.
    pub max_scale_level: u32,
    /// `step_deltas`.
    pub step_deltas: Vec<String>,
}

/// An instantiation level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstantiationLevel {
    /// Level id.
    pub id: String,
    /// `description`.
    pub description: String,
    /// `scale_info`: aspect -> scale level.
    pub scale_info: BTreeMap<String, u32>,
}

/// A `Vnflcm` interface operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LcmHook {
    /// Operation name, e.g. `instantiate_end`.
    pub name: String,
    /// The artifact it names (`implementation`).
    pub artifact: Option<String>,
    /// That artifact's path in the package.
    pub artifact_path: Option<String>,
    /// That artifact's type.
    pub artifact_type: Option<String>,
    /// `inputs` as written.
    pub inputs: Value,
}

/// Where a file's data lies inside the CSAR zip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryLocation {
    /// Offset of the (possibly compressed) data from the start of the zip.
    pub offset: u64,
    /// Length of the data as stored.
    pub stored_size: u64,
    /// Length once inflated.
    pub size: u64,
    /// Whether the data is deflated (else stored as is).
    pub deflated: bool,
}

/// What kind of file an artifact is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ArtifactKind {
    /// A software image (`tosca.artifacts.nfv.SwImage`).
    SwImage,
    /// An implementation artifact (management driver, script).
    Implementation,
    /// Anything else (e.g. Kubernetes manifests, HOT templates).
    Other,
}

/// A file of the package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactInfo {
    /// Path inside the package.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// Its digest: the declared one when the package declares it, else SHA-256.
    pub checksum: Digest,
    /// Kind.
    pub kind: ArtifactKind,
    /// Whether the manifest or TOSCA.meta declared its digest (and it was verified).
    pub verified: bool,
}

/// Bytes in a TOSCA `scalar-unit.size` (`1 GB`, `512 MiB`), read as OpenStack reads its
/// units (Nova's and Glance's "MB" and "GB" are binary: `512 MB` is 512 MiB); `None`
/// when unreadable.
pub fn size_in_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic())?;
    let n: f64 = t[..split].trim().parse().ok()?;
    let power = match t[split..].trim().to_ascii_lowercase().as_str() {
        "b" => 0,
        "kb" | "kib" => 1,
        "mb" | "mib" => 2,
        "gb" | "gib" => 3,
        "tb" | "tib" => 4,
        _ => return None,
    };
    let b = (n * 1024.0_f64.powi(power)).ceil();
    (b.is_finite() && b >= 0.0).then_some(b as u64)
}
