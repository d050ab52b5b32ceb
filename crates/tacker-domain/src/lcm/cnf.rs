//! The CNF parameters of an instantiate or change_vnfpkg request (`additionalParams`,
//! Tacker's names), read once into a type: the API checks them with it, the Kubernetes
//! and Helm drivers read them from it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::failure::Failure;

/// `additionalParams.lcm-kubernetes-def-files`.
pub const DEF_FILES: &str = "additionalParams.lcm-kubernetes-def-files";

/// The value paths of one VDU in a chart (`helm_value_names.<vduId>`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueNames {
    /// The replica count's path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica: Option<String>,
    /// The container image's path (set from the VNFD's `sw_image_data` on a package
    /// change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}

/// `helm_value_names`: value paths by VDU id.
pub type ValueNamesByVdu = BTreeMap<String, ValueNames>;

/// What a request's `additionalParams` ask of a Kubernetes VIM.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CnfParams {
    /// `lcm-kubernetes-def-files`: the package's manifests, in order (non-empty).
    pub def_files: Option<Vec<String>>,
    /// `namespace`: an RFC 1123 label.
    pub namespace: Option<String>,
    /// `helm_chart_path`: a chart archive or directory of the package.
    pub helm_chart_path: Option<String>,
    /// `helm_parameters`: values by dotted path (`--set` style).
    pub helm_parameters: Map<String, Value>,
    /// `helm_value_names`.
    pub helm_value_names: ValueNamesByVdu,
}

fn bad(m: impl Into<String>) -> Failure {
    Failure::bad_request(m)
}

impl CnfParams {
    /// Reads them from `additionalParams` (400 naming the parameter when one has the
    /// wrong shape; absent and `null` are the same).
    pub fn of(p: &Map<String, Value>) -> Result<Self, Failure> {
        let given = |k: &str| p.get(k).filter(|v| !v.is_null());
        Ok(Self {
            def_files: given("lcm-kubernetes-def-files")
                .map(def_files)
                .transpose()?,
            namespace: given("namespace").map(namespace).transpose()?,
            helm_chart_path: match given("helm_chart_path") {
                None => None,
                Some(Value::String(c)) if !c.is_empty() => Some(c.clone()),
                Some(_) => return Err(bad("additionalParams.helm_chart_path must be a path")),
            },
            helm_parameters: match given("helm_parameters") {
                None => Map::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(_) => {
                    return Err(bad(
                        "additionalParams.helm_parameters must be a map of value paths to values",
                    ));
                }
            },
            helm_value_names: given("helm_value_names")
                .map(value_names)
                .transpose()?
                .unwrap_or_default(),
        })
    }

    /// The manifests, or the error a driver that needs them answers.
    pub fn required_def_files(&self) -> Result<&[String], Failure> {
        self.def_files.as_deref().ok_or_else(|| {
            bad(format!(
                "{DEF_FILES} (the package's Kubernetes manifests) is required"
            ))
        })
    }
}

fn def_files(v: &Value) -> Result<Vec<String>, Failure> {
    let files = v
        .as_array()
        .filter(|a| !a.is_empty())
        .ok_or_else(|| bad(format!("{DEF_FILES} must be a non-empty array of paths")))?;
    files
        .iter()
        .map(|f| f.as_str().map(str::to_owned))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| bad(format!("{DEF_FILES} must hold paths")))
}

fn namespace(v: &Value) -> Result<String, Failure> {
    v.as_str()
        .filter(|n| is_rfc1123_label(n))
        .map(str::to_owned)
        .ok_or_else(|| {
            bad("additionalParams.namespace must be a Kubernetes namespace name (RFC 1123 label)")
        })
}

fn value_names(v: &Value) -> Result<ValueNamesByVdu, Failure> {
    let m = v.as_object().ok_or_else(|| {
        bad("additionalParams.helm_value_names must map VDU ids to their value paths")
    })?;
    m.iter()
        .map(|(vdu, names)| {
            ValueNames::deserialize(names)
                .map(|n| (vdu.clone(), n))
                .map_err(|_| {
                    bad(format!(
                        "additionalParams.helm_value_names.{vdu} must be {{\"replica\": path, \"image\": path}}"
                    ))
                })
        })
        .collect()
}

/// Whether `n` is a Kubernetes namespace name.
pub fn is_rfc1123_label(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 63
        && n.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && !n.starts_with('-')
        && !n.ends_with('-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(v: Value) -> Result<CnfParams, String> {
        CnfParams::of(v.as_object().unwrap()).map_err(|f| f.problem().detail)
    }

    #[test]
    fn parameters_read_into_their_types() {
        let p = of(json!({
            "lcm-kubernetes-def-files": ["a.yaml", "b.yaml"], "namespace": "ns-1",
            "helm_chart_path": "Files/chart.tgz", "helm_parameters": {"a.b": 1},
            "helm_value_names": {"VDU1": {"replica": "replicaCount"}}, "other": true
        }))
        .unwrap();
        assert_eq!(
            p.def_files.as_deref(),
            Some(&["a.yaml".to_owned(), "b.yaml".to_owned()][..])
        );
        assert_eq!(p.namespace.as_deref(), Some("ns-1"));
        assert_eq!(p.helm_chart_path.as_deref(), Some("Files/chart.tgz"));
        assert_eq!(p.helm_parameters["a.b"], json!(1));
        assert_eq!(
            p.helm_value_names["VDU1"].replica.as_deref(),
            Some("replicaCount")
        );
        assert_eq!(
            of(json!({"namespace": null})).unwrap(),
            CnfParams::default()
        );
    }

    #[test]
    fn a_wrong_shape_is_named() {
        for (body, text) in [
            (json!({"lcm-kubernetes-def-files": []}), "non-empty array"),
            (json!({"lcm-kubernetes-def-files": [1]}), "must hold paths"),
            (json!({"namespace": "Bad_NS"}), "RFC 1123"),
            (
                json!({"helm_chart_path": ""}),
                "helm_chart_path must be a path",
            ),
            (
                json!({"helm_parameters": [1]}),
                "helm_parameters must be a map",
            ),
            (json!({"helm_value_names": "x"}), "must map VDU ids"),
            (
                json!({"helm_value_names": {"VDU1": {"replicas": "r"}}}),
                "helm_value_names.VDU1 must be",
            ),
        ] {
            let e = of(body.clone()).unwrap_err();
            assert!(e.contains(text), "{body}: {e}");
        }
        assert!(CnfParams::default().required_def_files().is_err());
    }
}
