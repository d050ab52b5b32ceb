//! Request bodies in Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`),
//! turned into the JSON the rest of the simulator works on.
//!
//! Typed clients (client-go's clientsets, so Helm's release storage) send protobuf for
//! the built-in kinds. The simulator decodes what they send: Secrets and ConfigMaps
//! (Helm stores releases in either) and DeleteOptions. Answers stay JSON, which those
//! clients accept too. Field numbers are those of Kubernetes' `generated.proto` files.

use std::collections::BTreeMap;

use base64::Engine;
use prost::Message;
use serde_json::{Map, Value, json};

use crate::error::ApiErr;

/// The content type of protobuf bodies.
pub const CONTENT_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The 4 bytes every protobuf body starts with.
const MAGIC: &[u8] = b"k8s\0";

#[derive(Clone, PartialEq, Message)]
struct TypeMeta {
    #[prost(string, optional, tag = "1")]
    api_version: Option<String>,
    #[prost(string, optional, tag = "2")]
    kind: Option<String>,
}

/// `runtime.Unknown`: the envelope around every object.
#[derive(Clone, PartialEq, Message)]
struct Unknown {
    #[prost(message, optional, tag = "1")]
    type_meta: Option<TypeMeta>,
    #[prost(bytes = "vec", optional, tag = "2")]
    raw: Option<Vec<u8>>,
}

#[derive(Clone, PartialEq, Message)]
struct OwnerReference {
    #[prost(string, optional, tag = "5")]
    api_version: Option<String>,
    #[prost(string, optional, tag = "1")]
    kind: Option<String>,
    #[prost(string, optional, tag = "3")]
    name: Option<String>,
    #[prost(string, optional, tag = "4")]
    uid: Option<String>,
    #[prost(bool, optional, tag = "6")]
    controller: Option<bool>,
    #[prost(bool, optional, tag = "7")]
    block_owner_deletion: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
struct ObjectMeta {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(string, optional, tag = "2")]
    generate_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    namespace: Option<String>,
    #[prost(string, optional, tag = "5")]
    uid: Option<String>,
    #[prost(string, optional, tag = "6")]
    resource_version: Option<String>,
    #[prost(btree_map = "string, string", tag = "11")]
    labels: BTreeMap<String, String>,
    #[prost(btree_map = "string, string", tag = "12")]
    annotations: BTreeMap<String, String>,
    #[prost(message, repeated, tag = "13")]
    owner_references: Vec<OwnerReference>,
    #[prost(string, repeated, tag = "14")]
    finalizers: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
struct Secret {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(btree_map = "string, bytes", tag = "2")]
    data: BTreeMap<String, Vec<u8>>,
    #[prost(string, optional, tag = "3")]
    r#type: Option<String>,
    #[prost(btree_map = "string, string", tag = "4")]
    string_data: BTreeMap<String, String>,
    #[prost(bool, optional, tag = "5")]
    immutable: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
struct ConfigMap {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ObjectMeta>,
    #[prost(btree_map = "string, string", tag = "2")]
    data: BTreeMap<String, String>,
    #[prost(btree_map = "string, bytes", tag = "3")]
    binary_data: BTreeMap<String, Vec<u8>>,
    #[prost(bool, optional, tag = "4")]
    immutable: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
struct DeleteOptions {
    #[prost(int64, optional, tag = "1")]
    grace_period_seconds: Option<i64>,
    #[prost(bool, optional, tag = "3")]
    orphan_dependents: Option<bool>,
    #[prost(string, optional, tag = "4")]
    propagation_policy: Option<String>,
}

fn bad(e: impl std::fmt::Display) -> ApiErr {
    ApiErr::bad(format!("invalid protobuf body: {e}"))
}

fn insert<T: Into<Value>>(m: &mut Map<String, Value>, k: &str, v: Option<T>) {
    if let Some(v) = v {
        m.insert(k.to_owned(), v.into());
    }
}

fn strings(m: BTreeMap<String, String>) -> Option<Value> {
    (!m.is_empty()).then(|| json!(m))
}

fn bytes(m: BTreeMap<String, Vec<u8>>) -> Option<Value> {
    let b64 = base64::engine::general_purpose::STANDARD;
    (!m.is_empty()).then(|| {
        Value::Object(
            m.into_iter()
                .map(|(k, v)| (k, Value::String(b64.encode(v))))
                .collect(),
        )
    })
}

fn meta(m: Option<ObjectMeta>) -> Value {
    let m = m.unwrap_or_default();
    let mut o = Map::new();
    insert(&mut o, "name", m.name);
    insert(&mut o, "generateName", m.generate_name);
    insert(&mut o, "namespace", m.namespace);
    insert(&mut o, "uid", m.uid);
    insert(&mut o, "resourceVersion", m.resource_version);
    insert(&mut o, "labels", strings(m.labels));
    insert(&mut o, "annotations", strings(m.annotations));
    if !m.owner_references.is_empty() {
        let refs: Vec<Value> = m
            .owner_references
            .into_iter()
            .map(|r| {
                let mut o = Map::new();
                insert(&mut o, "apiVersion", r.api_version);
                insert(&mut o, "kind", r.kind);
                insert(&mut o, "name", r.name);
                insert(&mut o, "uid", r.uid);
                insert(&mut o, "controller", r.controller);
                insert(&mut o, "blockOwnerDeletion", r.block_owner_deletion);
                Value::Object(o)
            })
            .collect();
        o.insert("ownerReferences".into(), Value::Array(refs));
    }
    if !m.finalizers.is_empty() {
        o.insert("finalizers".into(), json!(m.finalizers));
    }
    Value::Object(o)
}

/// The JSON of a protobuf body (`k8s\0` + `runtime.Unknown`) of a kind the simulator
/// decodes; a 415 for any other kind.
pub fn to_json(body: &[u8]) -> Result<Value, ApiErr> {
    let rest = body
        .strip_prefix(MAGIC)
        .ok_or_else(|| bad("no k8s\\0 prefix"))?;
    let u = Unknown::decode(rest).map_err(bad)?;
    let tm = u.type_meta.unwrap_or_default();
    let api_version = tm.api_version.unwrap_or_default();
    let kind = tm.kind.unwrap_or_default();
    let raw = u.raw.unwrap_or_default();
    let mut o = Map::new();
    o.insert("apiVersion".into(), Value::String(api_version.clone()));
    o.insert("kind".into(), Value::String(kind.clone()));
    match kind.as_str() {
        "Secret" => {
            let s = Secret::decode(raw.as_slice()).map_err(bad)?;
            o.insert("metadata".into(), meta(s.metadata));
            insert(&mut o, "data", bytes(s.data));
            insert(&mut o, "type", s.r#type);
            insert(&mut o, "stringData", strings(s.string_data));
            insert(&mut o, "immutable", s.immutable);
        }
        "ConfigMap" => {
            let c = ConfigMap::decode(raw.as_slice()).map_err(bad)?;
            o.insert("metadata".into(), meta(c.metadata));
            insert(&mut o, "data", strings(c.data));
            insert(&mut o, "binaryData", bytes(c.binary_data));
            insert(&mut o, "immutable", c.immutable);
        }
        "DeleteOptions" => {
            let d = DeleteOptions::decode(raw.as_slice()).map_err(bad)?;
            insert(&mut o, "gracePeriodSeconds", d.grace_period_seconds);
            insert(&mut o, "orphanDependents", d.orphan_dependents);
            insert(&mut o, "propagationPolicy", d.propagation_policy);
        }
        other => {
            return Err(ApiErr::other(
                415,
                format!(
                    "kube-sim decodes protobuf bodies of Secrets, ConfigMaps and DeleteOptions only, not {other} ({api_version}): send JSON"
                ),
            ));
        }
    }
    Ok(Value::Object(o))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(kind: &str, raw: Vec<u8>) -> Vec<u8> {
        let u = Unknown {
            type_meta: Some(TypeMeta {
                api_version: Some("v1".into()),
                kind: Some(kind.into()),
            }),
            raw: Some(raw),
        };
        let mut out = MAGIC.to_vec();
        out.extend(u.encode_to_vec());
        out
    }

    #[test]
    fn a_helm_release_secret_decodes_to_its_json() {
        let s = Secret {
            metadata: Some(ObjectMeta {
                name: Some("sh.helm.release.v1.vnf.v1".into()),
                namespace: Some("default".into()),
                resource_version: Some("7".into()),
                labels: BTreeMap::from([("owner".into(), "helm".into())]),
                ..Default::default()
            }),
            data: BTreeMap::from([("release".into(), b"H4sI".to_vec())]),
            r#type: Some("helm.sh/release.v1".into()),
            ..Default::default()
        };
        let v = to_json(&envelope("Secret", s.encode_to_vec())).unwrap();
        assert_eq!(v["kind"], "Secret");
        assert_eq!(v["metadata"]["name"], "sh.helm.release.v1.vnf.v1");
        assert_eq!(v["metadata"]["resourceVersion"], "7");
        assert_eq!(v["metadata"]["labels"]["owner"], "helm");
        assert_eq!(v["data"]["release"], "SDRzSQ==");
        assert_eq!(v["type"], "helm.sh/release.v1");
    }

    #[test]
    fn delete_options_decode_and_other_kinds_are_refused() {
        let d = DeleteOptions {
            grace_period_seconds: Some(0),
            propagation_policy: Some("Background".into()),
            ..Default::default()
        };
        let v = to_json(&envelope("DeleteOptions", d.encode_to_vec())).unwrap();
        assert_eq!(v["gracePeriodSeconds"], 0);
        assert_eq!(v["propagationPolicy"], "Background");
        assert_eq!(to_json(&envelope("Pod", vec![])).unwrap_err().code, 415);
        assert!(to_json(b"{}").is_err());
    }
}
