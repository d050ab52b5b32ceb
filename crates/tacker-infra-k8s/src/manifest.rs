//! The package's Kubernetes manifests (`lcm-kubernetes-def-files`) turned into what the
//! driver creates: namespace decided, every object labelled with the VNF instance,
//! VDUs bound to their resources, replicas from the VNFD, creation order fixed.

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path};

use serde_json::{Map, Value, json};
use tacker_domain::vnfd::Flavour;

use crate::cluster::{Cluster, Type};
use crate::error::{Error, Result};
use crate::record::{Maker, ManifestRecord};

/// Largest manifest file read.
const MAX_FILE: u64 = 16 * 1024 * 1024;

/// Kinds a VDU can map to (the ones whose Pods are VNFCs).
pub const VDU_KINDS: [&str; 5] = [
    "Pod",
    "Deployment",
    "ReplicaSet",
    "DaemonSet",
    "StatefulSet",
];

/// One object to create.
#[derive(Debug, Clone)]
pub struct Doc {
    /// The file it comes from.
    pub file: String,
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `metadata.name` (empty for reviews).
    pub name: String,
    /// Its type in the cluster.
    pub ty: Type,
    /// The object as created.
    pub body: Value,
}

/// A VDU and the resource whose Pods are its VNFCs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VduResource {
    /// The VDU.
    pub vdu_id: String,
    /// `Pod`, `Deployment`, ...
    pub kind: String,
    /// Its name.
    pub name: String,
}

/// Everything to create for a VNF instance.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The namespace of every namespaced object.
    pub namespace: String,
    /// In creation order.
    pub docs: Vec<Doc>,
    /// VDU bindings, in flavour order.
    pub vdus: Vec<VduResource>,
}

impl Plan {
    /// The document of a VDU's resource.
    pub fn doc_of(&self, v: &VduResource) -> Option<&Doc> {
        self.docs
            .iter()
            .find(|d| d.kind == v.kind && d.name == v.name)
    }

    /// What the instance records to find its resources again.
    pub fn record(&self, files: Vec<String>, made_by: Maker) -> ManifestRecord {
        ManifestRecord {
            namespace: self.namespace.clone(),
            files,
            vdus: self.vdus.clone(),
            stopped_replicas: Default::default(),
            made_by,
        }
    }
}

/// Creation tier of a kind: what others depend on comes first.
fn tier(kind: &str) -> u8 {
    match kind {
        "Namespace" | "PriorityClass" | "StorageClass" | "CustomResourceDefinition" => 0,
        "PersistentVolume" | "ServiceAccount" | "ClusterRole" | "Role" | "LimitRange"
        | "ResourceQuota" | "NetworkPolicy" | "ConfigMap" | "Secret" | "PodTemplate" | "Lease"
        | "ControllerRevision" => 1,
        "ClusterRoleBinding"
        | "RoleBinding"
        | "PersistentVolumeClaim"
        | "Service"
        | "Endpoints" => 2,
        "Binding"
        | "HorizontalPodAutoscaler"
        | "PodDisruptionBudget"
        | "TokenReview"
        | "SubjectAccessReview"
        | "SelfSubjectAccessReview"
        | "SelfSubjectRulesReview"
        | "LocalSubjectAccessReview" => 4,
        _ => 3,
    }
}

/// `file` (relative, no `..`) inside the unpacked package.
pub fn inside(package_dir: &Path, file: &str) -> Result<std::path::PathBuf> {
    let rel = Path::new(file);
    if file.is_empty()
        || rel.is_absolute()
        || rel
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(Error::Manifest(format!(
            "{file:?} is not a path inside the package"
        )));
    }
    Ok(package_dir.join(rel))
}

fn read(package_dir: &Path, file: &str) -> Result<String> {
    let path = inside(package_dir, file)?;
    let meta = std::fs::metadata(&path).map_err(|_| {
        Error::Manifest(format!(
            "{file} (in lcm-kubernetes-def-files) is not an artifact of the VNF package"
        ))
    })?;
    if meta.len() > MAX_FILE {
        return Err(Error::Manifest(format!(
            "{file} is larger than {MAX_FILE} bytes"
        )));
    }
    std::fs::read_to_string(&path).map_err(|e| Error::Manifest(format!("{file}: {e}")))
}

/// Parses every document of a manifest file.
pub fn parse(file: &str, text: &str) -> Result<Vec<Value>> {
    let docs: Vec<Value> = serde_saphyr::from_multiple(text).map_err(|e| {
        Error::Manifest(format!(
            "{file}: invalid YAML: {}",
            e.to_string().lines().next().unwrap_or_default()
        ))
    })?;
    let mut out = Vec::new();
    for (i, d) in docs.into_iter().enumerate() {
        if d.is_null() {
            continue;
        }
        let ok = d.get("apiVersion").and_then(Value::as_str).is_some()
            && d.get("kind").and_then(Value::as_str).is_some();
        if !ok {
            return Err(Error::Manifest(format!(
                "{file}: document {} has no apiVersion or kind",
                i + 1
            )));
        }
        out.push(d);
    }
    Ok(out)
}

fn set_namespace(body: &mut Value, ns: &str) {
    if let Value::Object(o) = body
        && let Value::Object(m) = o.entry("metadata").or_insert_with(|| json!({}))
    {
        m.insert("namespace".into(), Value::String(ns.to_owned()));
    }
}

fn add_label(v: &mut Value, pointer: &str, label: &str, instance: &str) {
    let Some(Value::Object(m)) = v.pointer_mut(pointer) else {
        return;
    };
    let labels = m
        .entry("labels")
        .or_insert_with(|| Value::Object(Map::new()));
    if !labels.is_object() {
        *labels = Value::Object(Map::new());
    }
    if let Value::Object(l) = labels {
        l.insert(label.into(), Value::String(instance.to_owned()));
    }
}

/// What [`build`] needs.
#[derive(Debug)]
pub struct Request<'a> {
    /// The unpacked package.
    pub package_dir: &'a Path,
    /// `lcm-kubernetes-def-files`.
    pub files: &'a [String],
    /// `additionalParams.namespace`.
    pub namespace: Option<&'a str>,
    /// The flavour.
    pub flavour: &'a Flavour,
    /// Instances per VDU.
    pub counts: &'a HashMap<String, u32>,
    /// The VNF instance id.
    pub instance: &'a str,
    /// Who makes its objects (the label they get).
    pub made_by: Maker,
    /// What may be touched (`kubernetes.cluster_scoped`, `denied_namespaces`).
    pub policy: &'a crate::settings::K8sSettings,
}

/// The cluster types and names of parsed documents (`(file, document)`).
async fn resolve(cluster: &Cluster, raw: Vec<(String, Value)>) -> Result<Vec<Doc>> {
    let mut docs = Vec::new();
    for (file, d) in raw {
        let api_version = d["apiVersion"].as_str().unwrap_or_default().to_owned();
        let kind = d["kind"].as_str().unwrap_or_default().to_owned();
        let ty = cluster.resolve(&api_version, &kind).await?;
        let name = d
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if name.is_empty() && ty.persisted {
            return Err(Error::Manifest(format!(
                "{file}: a {kind} has no metadata.name"
            )));
        }
        docs.push(Doc {
            file,
            api_version,
            kind,
            name,
            ty,
            body: d,
        });
    }
    Ok(docs)
}

/// What the configuration forbids: a denied namespace, cluster-scoped objects.
fn check_policy(
    docs: &[Doc],
    namespace: &str,
    policy: &crate::settings::K8sSettings,
) -> Result<()> {
    if policy.denied(namespace) {
        return Err(Error::Refused(format!(
            "namespace {namespace} is denied to CNFs (kubernetes.denied_namespaces)"
        )));
    }
    if !policy.cluster_scoped
        && let Some(d) = docs.iter().find(|d| !d.ty.namespaced)
    {
        return Err(Error::Refused(format!(
            "{}: {} {} is cluster-scoped, and kubernetes.cluster_scoped = \"deny\"",
            d.file, d.kind, d.name
        )));
    }
    Ok(())
}

/// How a VDU's `properties.name` names its workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Naming {
    /// The workload's name is the VDU's (manifests).
    Exact,
    /// The same, else (upstream Tacker's rule for Helm charts, whose workloads are
    /// usually named after the release) the VDU's name, `-` and a suffix without `-`:
    /// `vdu1-{{ .Release.Name }}` for a release `vnf<id>`.
    OrSuffixed,
}

/// Each VDU of `flavour` bound to the workload its `properties.name` names in `docs`
/// (`naming`). A VDU with none is an error, except in a CNF Tacker made (`every: false`):
/// Tacker deploys the VDUs its manifests hold and leaves the others out, so those were
/// never there. A VDU that could be either of two suffixed workloads is an error too.
fn bind_vdus(
    docs: &[Doc],
    flavour: &Flavour,
    source: &str,
    every: bool,
    naming: Naming,
) -> Result<Vec<VduResource>> {
    let mut vdus = Vec::new();
    for v in &flavour.vdus {
        let name = if v.name.is_empty() { &v.id } else { &v.name };
        let workloads = || docs.iter().filter(|d| VDU_KINDS.contains(&d.kind.as_str()));
        let mut found = workloads().find(|d| d.name == *name);
        if found.is_none() && naming == Naming::OrSuffixed {
            let suffixed: Vec<&Doc> = workloads()
                .filter(|d| d.name.rsplit_once('-').is_some_and(|(n, _)| n == name))
                .collect();
            if let [a, b, ..] = suffixed.as_slice() {
                return Err(Error::Manifest(format!(
                    "VDU {} ({name}) could be {} {} or {} {} in {source}: name one {name}",
                    v.id, a.kind, a.name, b.kind, b.name
                )));
            }
            found = suffixed.first().copied();
        }
        let Some(found) = found else {
            if !every {
                continue;
            }
            let named = match naming {
                Naming::Exact => name.to_owned(),
                Naming::OrSuffixed => format!("{name} or {name}-<suffix>"),
            };
            return Err(Error::Manifest(format!(
                "VDU {} ({named}) matches no Pod, Deployment, ReplicaSet, DaemonSet or StatefulSet in {source}",
                v.id
            )));
        };
        vdus.push(VduResource {
            vdu_id: v.id.clone(),
            kind: found.kind.clone(),
            name: found.name.clone(),
        });
    }
    Ok(vdus)
}

/// The objects a Helm chart rendered (`source` names it): every namespaced one in
/// `namespace` (a chart that puts one elsewhere is refused), the configuration's
/// policy checked, VDUs bound by name. Nothing is labelled: Helm owns these objects.
pub async fn rendered(
    cluster: &Cluster,
    source: &str,
    text: &str,
    namespace: &str,
    flavour: &Flavour,
    policy: &crate::settings::K8sSettings,
) -> Result<Plan> {
    let raw = parse(source, text)?
        .into_iter()
        .map(|d| (source.to_owned(), d))
        .collect();
    let mut docs = resolve(cluster, raw).await?;
    for d in docs.iter().filter(|d| d.ty.namespaced) {
        if let Some(other) = d
            .body
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            && !other.is_empty()
            && other != namespace
        {
            return Err(Error::Manifest(format!(
                "{source}: {} {} goes into namespace {other}, not the release's {namespace}",
                d.kind, d.name
            )));
        }
    }
    check_policy(&docs, namespace, policy)?;
    let vdus = bind_vdus(&docs, flavour, source, true, Naming::OrSuffixed)?;
    docs.sort_by_key(|d| tier(&d.kind));
    Ok(Plan {
        namespace: namespace.to_owned(),
        docs,
        vdus,
    })
}

/// Reads, resolves and prepares the manifests.
pub async fn build(cluster: &Cluster, r: &Request<'_>) -> Result<Plan> {
    let mut raw = Vec::new();
    for f in r.files {
        for d in parse(f, &read(r.package_dir, f)?)? {
            raw.push((f.clone(), d));
        }
    }
    let mut docs = resolve(cluster, raw).await?;
    let namespace = match r.namespace {
        Some(ns) => ns.to_owned(),
        None => {
            let mut named: Vec<String> = docs
                .iter()
                .filter(|d| d.ty.namespaced)
                .filter_map(|d| {
                    d.body
                        .pointer("/metadata/namespace")
                        .and_then(Value::as_str)
                })
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            named.sort();
            named.dedup();
            match named.len() {
                0 => "default".to_owned(),
                1 => named.remove(0),
                _ => {
                    return Err(Error::Manifest(format!(
                        "the manifests name several namespaces ({}); give additionalParams.namespace",
                        named.join(", ")
                    )));
                }
            }
        }
    };
    check_policy(&docs, &namespace, r.policy)?;
    let vdus = bind_vdus(
        &docs,
        r.flavour,
        "lcm-kubernetes-def-files",
        r.made_by == Maker::Ours,
        Naming::Exact,
    )?;
    let replicas: BTreeMap<(String, String), u32> = vdus
        .iter()
        .filter(|v| matches!(v.kind.as_str(), "Deployment" | "ReplicaSet" | "StatefulSet"))
        .filter_map(|v| {
            r.counts
                .get(&v.vdu_id)
                .map(|n| ((v.kind.clone(), v.name.clone()), *n))
        })
        .collect();
    for d in &mut docs {
        if d.ty.namespaced {
            set_namespace(&mut d.body, &namespace);
        } else if let Some(Value::Object(m)) = d.body.get_mut("metadata") {
            m.remove("namespace");
        }
        if d.ty.persisted {
            add_label(&mut d.body, "/metadata", r.made_by.label(), r.instance);
            if d.body.pointer("/spec/template/metadata").is_some()
                || d.body.pointer("/spec/template/spec").is_some()
            {
                if d.body.pointer("/spec/template/metadata").is_none()
                    && let Some(Value::Object(t)) = d.body.pointer_mut("/spec/template")
                {
                    t.insert("metadata".into(), json!({}));
                }
                add_label(
                    &mut d.body,
                    "/spec/template/metadata",
                    r.made_by.label(),
                    r.instance,
                );
            }
        }
        if let Some(n) = replicas.get(&(d.kind.clone(), d.name.clone()))
            && let Some(Value::Object(spec)) = d.body.get_mut("spec")
        {
            spec.insert("replicas".into(), json!(n));
        }
    }
    docs.sort_by_key(|d| tier(&d.kind));
    Ok(Plan {
        namespace,
        docs,
        vdus,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_document_files_parse_and_skip_empty_documents() {
        let docs = parse(
            "a.yaml",
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n",
        )
        .unwrap();
        assert_eq!(docs.len(), 2);
        assert!(parse("b.yaml", "kind: X\n").is_err());
        assert!(parse("c.yaml", "a: [").is_err());
    }

    #[test]
    fn paths_must_stay_inside_the_package() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            read(dir.path(), "../etc/passwd"),
            Err(Error::Manifest(_))
        ));
        assert!(matches!(
            read(dir.path(), "/etc/passwd"),
            Err(Error::Manifest(_))
        ));
        let err = read(dir.path(), "Files/none.yaml").unwrap_err().to_string();
        assert!(err.contains("not an artifact"), "{err}");
    }

    #[test]
    fn tiers_put_dependencies_first() {
        assert!(tier("Namespace") < tier("ConfigMap"));
        assert!(tier("ConfigMap") < tier("Deployment"));
        assert!(tier("PersistentVolume") < tier("PersistentVolumeClaim"));
        assert!(tier("Pod") < tier("Binding"));
        assert_eq!(tier("Deployment"), tier("MyCustomThing"));
    }
}
