//! What a CNF records in `instantiatedVnfInfo.metadata` to find its resources again:
//! the manifests' record and the Helm release's record, read and written with serde
//! (the engine reads only `namespace` of it, through `InstantiatedVnfInfo::cnf_namespace`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tacker_domain::lcm::InstantiatedVnfInfo;
use tacker_domain::lcm::cnf::ValueNamesByVdu;

use crate::cluster::{INSTANCE_LABEL, TACKER_LABEL};
use crate::error::{Error, Result};
use crate::manifest::VduResource;

/// What a CNF deployed from manifests records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestRecord {
    /// Its namespace.
    pub namespace: String,
    /// Its manifests, in order.
    #[serde(rename = "lcm-kubernetes-def-files")]
    pub files: Vec<String>,
    /// Its VDU bindings.
    #[serde(default, with = "vdus")]
    pub vdus: Vec<VduResource>,
    /// While it is stopped (operate): each workload VDU's replica count before.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stopped_replicas: BTreeMap<String, i64>,
    /// Who made its objects (absent: we did).
    #[serde(default, skip_serializing_if = "Maker::is_ours")]
    pub made_by: Maker,
}

/// Who made a CNF's objects, which says how they are marked as the instance's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Maker {
    /// This VNFM: the objects and their Pod templates carry [`INSTANCE_LABEL`].
    #[default]
    Ours,
    /// OpenStack Tacker (a CNF imported from it): the objects carry [`TACKER_LABEL`], their
    /// Pods nothing, so Pods are tied to the instance through their owners alone.
    Tacker,
}

impl Maker {
    fn is_ours(&self) -> bool {
        *self == Self::Ours
    }

    /// The label that marks the instance's objects (and what this driver puts on the
    /// objects it creates for the instance).
    pub fn label(self) -> &'static str {
        match self {
            Self::Ours => INSTANCE_LABEL,
            Self::Tacker => TACKER_LABEL,
        }
    }

    /// The label selector of the instance's Pods and ReplicaSets (empty: every one in the
    /// namespace, then tied to a VDU through its owners).
    pub fn selector(self, instance: &str) -> String {
        match self {
            Self::Ours => format!("{INSTANCE_LABEL}={instance}"),
            Self::Tacker => String::new(),
        }
    }

    /// Who made the objects of the CNF `info` records (we did, unless its record says
    /// otherwise; a CNF not instantiated yet is ours to make).
    pub fn of(info: Option<&InstantiatedVnfInfo>) -> Self {
        info.and_then(InstantiatedVnfInfo::driver_metadata)
            .and_then(|m| m.get("made_by"))
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }
}

/// What a CNF deployed as a Helm release records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HelmRecord {
    /// The release.
    #[serde(rename = "release_name")]
    pub release: String,
    /// Its namespace.
    pub namespace: String,
    /// The chart, in the instance's package.
    #[serde(rename = "helm_chart_path")]
    pub chart: String,
    /// `helm_value_names`.
    #[serde(rename = "helm_value_names", default)]
    pub names: ValueNamesByVdu,
    /// The release's revision when the last operation completed.
    #[serde(default)]
    pub revision: u64,
    /// VDU bindings.
    #[serde(default, with = "vdus")]
    pub vdus: Vec<VduResource>,
    /// While it is stopped (operate): each VDU's replica count before.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stopped_replicas: BTreeMap<String, i64>,
}

/// Reads the record of an instantiated CNF (`what` names it in the error).
fn read<T: serde::de::DeserializeOwned>(info: &InstantiatedVnfInfo, what: &str) -> Result<T> {
    let meta = info.driver_metadata().cloned().unwrap_or_default();
    serde_json::from_value(Value::Object(meta))
        .map_err(|e| Error::Manifest(format!("the instance's {what} record is unusable: {e}")))
}

/// Writes a record into `info`.
fn write<T: Serialize>(info: &mut InstantiatedVnfInfo, rec: &T) {
    let v = serde_json::to_value(rec).unwrap_or(Value::Null);
    info.other.insert("metadata".to_owned(), v);
}

impl ManifestRecord {
    /// Reads it from an instantiated CNF.
    pub fn of(info: &InstantiatedVnfInfo) -> Result<Self> {
        read(info, "Kubernetes")
    }

    /// Records it in `info`.
    pub fn write_to(&self, info: &mut InstantiatedVnfInfo) {
        write(info, self);
    }
}

impl HelmRecord {
    /// Reads it from an instantiated CNF.
    pub fn of(info: &InstantiatedVnfInfo) -> Result<Self> {
        read(info, "Helm release")
    }

    /// Records it in `info`.
    pub fn write_to(&self, info: &mut InstantiatedVnfInfo) {
        write(info, self);
    }
}

/// VDU bindings as `{"VDU1": {"kind", "name"}}`.
mod vdus {
    use super::*;
    use serde::{Deserializer, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Binding {
        #[serde(default)]
        kind: String,
        #[serde(default)]
        name: String,
    }

    pub fn serialize<S: Serializer>(
        v: &[VduResource],
        s: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        let m: Map<String, Value> = v
            .iter()
            .map(|r| {
                let b = Binding {
                    kind: r.kind.clone(),
                    name: r.name.clone(),
                };
                (
                    r.vdu_id.clone(),
                    serde_json::to_value(b).unwrap_or(Value::Null),
                )
            })
            .collect();
        m.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> std::result::Result<Vec<VduResource>, D::Error> {
        let m = std::collections::BTreeMap::<String, Binding>::deserialize(d)?;
        Ok(m.into_iter()
            .map(|(vdu_id, b)| VduResource {
                vdu_id,
                kind: b.kind,
                name: b.name,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn info(meta: Value) -> InstantiatedVnfInfo {
        serde_json::from_value(
            json!({"flavourId": "simple", "vnfState": "STARTED", "metadata": meta}),
        )
        .unwrap()
    }

    #[test]
    fn records_round_trip_in_the_stored_shape() {
        let stored = json!({
            "namespace": "ns", "lcm-kubernetes-def-files": ["a.yaml"],
            "vdus": {"VDU1": {"kind": "Deployment", "name": "web"}}
        });
        let mut i = info(stored.clone());
        let r = ManifestRecord::of(&i).unwrap();
        assert_eq!(r.vdus[0].kind, "Deployment");
        r.write_to(&mut i);
        assert_eq!(i.other["metadata"], stored);

        let stored = json!({
            "namespace": "ns", "release_name": "vnf-1", "helm_chart_path": "Files/c.tgz",
            "helm_value_names": {"VDU1": {"replica": "replicaCount"}}, "revision": 3,
            "vdus": {"VDU1": {"kind": "Deployment", "name": "web"}}
        });
        let mut i = info(stored.clone());
        let r = HelmRecord::of(&i).unwrap();
        assert_eq!(
            (r.revision, r.names["VDU1"].replica.as_deref()),
            (3, Some("replicaCount"))
        );
        r.write_to(&mut i);
        assert_eq!(i.other["metadata"], stored);
    }

    #[test]
    fn a_missing_record_is_an_error_naming_it() {
        let e = HelmRecord::of(&info(json!({"namespace": "ns"}))).unwrap_err();
        assert!(e.to_string().contains("Helm release record"), "{e}");
    }
}
