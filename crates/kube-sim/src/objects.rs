//! Create, replace and delete with Kubernetes semantics (metadata, generations,
//! graceful Pod termination, propagation policies), shared by the API and controllers.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::error::ApiErr;
use crate::meta;
use crate::registry::{self, Kind};
use crate::store::{Key, PodClock, Store};

/// How dependents are handled when an owner is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Propagation {
    /// Owner goes now, dependents after (the default).
    #[default]
    Background,
    /// Dependents go first, then the owner.
    Foreground,
    /// Dependents stay, without the owner reference.
    Orphan,
}

/// `DeleteOptions` that matter here.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeleteOpts {
    /// `gracePeriodSeconds`.
    pub grace: Option<i64>,
    /// `propagationPolicy`.
    pub propagation: Propagation,
}

impl DeleteOpts {
    /// Reads a `DeleteOptions` body and query parameters (the body wins).
    pub fn parse(body: &Value, query: &[(String, String)]) -> Result<Self, ApiErr> {
        let q = |k: &str| query.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let policy = body
            .get("propagationPolicy")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| q("propagationPolicy"));
        let propagation = match policy.as_deref() {
            None | Some("Background") => Propagation::Background,
            Some("Foreground") => Propagation::Foreground,
            Some("Orphan") => Propagation::Orphan,
            Some(other) => {
                return Err(ApiErr::bad(format!("invalid propagationPolicy {other:?}")));
            }
        };
        let grace = body
            .get("gracePeriodSeconds")
            .and_then(Value::as_i64)
            .or_else(|| q("gracePeriodSeconds").and_then(|s| s.parse().ok()));
        Ok(Self { grace, propagation })
    }
}

/// The storage key of an object of `kind` named `name` in `ns`.
pub fn key(kind: &Kind, ns: &str, name: &str) -> Key {
    let ns = if kind.namespaced { ns } else { "" };
    (kind.resource(), ns.to_owned(), name.to_owned())
}

fn what(kind: &Kind) -> String {
    if kind.group.is_empty() {
        kind.plural.to_owned()
    } else {
        format!("{}.{}", kind.plural, kind.group)
    }
}

/// Creates `obj` of `kind` in `ns`.
pub fn create(store: &mut Store, kind: &Kind, ns: &str, mut obj: Value) -> Result<Value, ApiErr> {
    if !obj.is_object() {
        return Err(ApiErr::bad("the body must be a JSON object"));
    }
    if let Some(k) = obj.get("kind").and_then(Value::as_str)
        && k != kind.kind
    {
        return Err(ApiErr::bad(format!(
            "the object is a {k}, posted to {}",
            kind.plural
        )));
    }
    meta::set_str(&mut obj, "/apiVersion", &kind.api_version());
    meta::set_str(&mut obj, "/kind", kind.kind);
    let mut name = meta::name(&obj);
    if name.is_empty() {
        let prefix = meta::str_at(&obj, "/metadata/generateName");
        if prefix.is_empty() {
            return Err(ApiErr::invalid(format!(
                "{} is invalid: metadata.name: Required value",
                kind.kind
            )));
        }
        name = format!("{prefix}{}", meta::suffix());
        meta::set_str(&mut obj, "/metadata/name", &name);
    }
    if !meta::valid_name(&name) {
        return Err(ApiErr::invalid(format!(
            "{} \"{name}\" is invalid: metadata.name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'",
            kind.kind
        )));
    }
    if kind.namespaced {
        let body_ns = meta::namespace(&obj);
        if !body_ns.is_empty() && body_ns != ns {
            return Err(ApiErr::bad(format!(
                "the namespace of the object ({body_ns}) does not match the namespace of the request ({ns})"
            )));
        }
        meta::set_str(&mut obj, "/metadata/namespace", ns);
        let ns_key = key(&NAMESPACE, "", ns);
        match store.get(&ns_key) {
            None => return Err(ApiErr::not_found("namespaces", ns)),
            Some(n) if meta::terminating(n) => {
                return Err(ApiErr::other(
                    403,
                    format!(
                        "{} \"{name}\" is forbidden: unable to create new content in namespace {ns} because it is being terminated",
                        what(kind)
                    ),
                ));
            }
            Some(_) => {}
        }
    } else {
        meta::remove(&mut obj, "/metadata/namespace");
    }
    let k = key(kind, ns, &name);
    if store.contains(&k) {
        return Err(ApiErr::exists(&what(kind), &name));
    }
    meta::set_str(&mut obj, "/metadata/uid", &uuid::Uuid::new_v4().to_string());
    meta::set_str(&mut obj, "/metadata/creationTimestamp", &meta::now());
    meta::set(&mut obj, "/metadata/generation", json!(1));
    meta::remove(&mut obj, "/metadata/deletionTimestamp");
    defaults(store, kind, &mut obj);
    Ok(store.insert(k, obj))
}

static NAMESPACE: Kind = Kind {
    group: "",
    versions: &["v1"],
    kind: "Namespace",
    plural: "namespaces",
    namespaced: false,
    verbs: registry::FULL,
    subresources: &[],
    short: &[],
};

fn defaults(store: &mut Store, kind: &Kind, obj: &mut Value) {
    match kind.kind {
        "Pod" => {
            if obj.pointer("/spec/nodeName").is_none_or(Value::is_null) {
                let n = store.next_counter() as usize % store.timing.nodes.max(1) + 1;
                meta::set_str(obj, "/spec/nodeName", &format!("node-{n}"));
            }
            if obj.pointer("/spec/restartPolicy").is_none() {
                meta::set_str(obj, "/spec/restartPolicy", "Always");
            }
            if obj.pointer("/spec/terminationGracePeriodSeconds").is_none() {
                meta::set(obj, "/spec/terminationGracePeriodSeconds", json!(30));
            }
            meta::set(
                obj,
                "/status",
                json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}], "qosClass": "Burstable"}),
            );
            if let Some(uid) = meta::uid(obj) {
                let name = meta::name(obj);
                let delay = store
                    .faults
                    .ready_delay(&name, store.timing.ready_delay_ms)
                    .unwrap_or(store.timing.ready_delay_ms);
                store.pods.insert(
                    uid,
                    PodClock {
                        ready_at: Some(Instant::now() + Duration::from_millis(delay)),
                        delete_at: None,
                    },
                );
            }
        }
        "Job" => {
            if let Some(uid) = meta::uid(obj) {
                let delay = store.timing.ready_delay_ms;
                store.pods.insert(
                    uid,
                    PodClock {
                        ready_at: Some(Instant::now() + Duration::from_millis(delay)),
                        delete_at: None,
                    },
                );
            }
            meta::set(
                obj,
                "/status",
                json!({"startTime": meta::now(), "active": 1}),
            );
        }
        "Deployment" | "ReplicaSet" | "StatefulSet" => {
            if obj.pointer("/spec/replicas").is_none_or(Value::is_null) {
                meta::set(obj, "/spec/replicas", json!(1));
            }
            meta::set(obj, "/status", json!({"replicas": 0}));
        }
        "DaemonSet" => meta::set(obj, "/status", json!({})),
        "Namespace" => meta::set(obj, "/status", json!({"phase": "Active"})),
        "PersistentVolumeClaim" => meta::set(obj, "/status", json!({"phase": "Pending"})),
        "PersistentVolume" => {
            if obj.pointer("/spec/persistentVolumeReclaimPolicy").is_none() {
                meta::set_str(obj, "/spec/persistentVolumeReclaimPolicy", "Retain");
            }
            meta::set(obj, "/status", json!({"phase": "Available"}));
        }
        "Service" => {
            if obj.pointer("/spec/type").is_none() {
                meta::set_str(obj, "/spec/type", "ClusterIP");
            }
            let node_port = matches!(
                obj.pointer("/spec/type").and_then(Value::as_str),
                Some("NodePort" | "LoadBalancer")
            );
            if node_port && let Some(Value::Array(ports)) = obj.pointer("/spec/ports").cloned() {
                let mut out = Vec::new();
                for mut p in ports {
                    if p.get("nodePort").is_none() {
                        let n = 30000 + store.next_counter() % 2768;
                        meta::set(&mut p, "/nodePort", json!(n));
                    }
                    out.push(p);
                }
                meta::set(obj, "/spec/ports", Value::Array(out));
            }
            let ip = obj
                .pointer("/spec/clusterIP")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let external =
                obj.pointer("/spec/type").and_then(Value::as_str) == Some("ExternalName");
            if ip.is_empty() && !external {
                // A virtual address no one connects to, from the benchmarking range
                // (198.18.0.0/15) rather than a cluster's usual 10.96.0.0/12.
                let n = store.next_counter() % 65_534 + 1;
                let ip = format!("198.18.{}.{}", n / 256, n % 256);
                meta::set_str(obj, "/spec/clusterIP", &ip);
                meta::set(obj, "/spec/clusterIPs", json!([ip]));
            }
            meta::set(obj, "/status", json!({"loadBalancer": {}}));
        }
        _ => {}
    }
}

/// Replaces the stored object at `key` with `obj` (`status_only`: only its status).
pub fn replace(
    store: &mut Store,
    kind: &Kind,
    key: &Key,
    mut obj: Value,
    status_only: bool,
) -> Result<Value, ApiErr> {
    let old = store
        .get(key)
        .cloned()
        .ok_or_else(|| ApiErr::not_found(&what(kind), &key.2))?;
    let sent_rv = meta::str_at(&obj, "/metadata/resourceVersion");
    let rv = meta::str_at(&old, "/metadata/resourceVersion");
    if !sent_rv.is_empty() && sent_rv != rv {
        return Err(ApiErr::conflict(format!(
            "Operation cannot be fulfilled on {} \"{}\": the object has been modified; please apply your changes to the latest version and try again",
            what(kind),
            key.2
        )));
    }
    let name = meta::name(&obj);
    if !name.is_empty() && name != key.2 {
        return Err(ApiErr::bad(format!(
            "the name of the object ({name}) does not match the name in the URL ({})",
            key.2
        )));
    }
    if status_only {
        let mut new = old.clone();
        meta::set(
            &mut new,
            "/status",
            obj.get("status").cloned().unwrap_or(json!({})),
        );
        return Ok(store.update(key, new));
    }
    for f in [
        "uid",
        "creationTimestamp",
        "namespace",
        "name",
        "deletionTimestamp",
        "generation",
        "ownerReferences",
    ] {
        let p = format!("/metadata/{f}");
        match old.pointer(&p) {
            Some(v) if f != "ownerReferences" || obj.pointer(&p).is_none() => {
                meta::set(&mut obj, &p, v.clone())
            }
            _ => {}
        }
    }
    meta::set_str(&mut obj, "/apiVersion", &kind.api_version());
    meta::set_str(&mut obj, "/kind", kind.kind);
    // A Service keeps the address it was given when an update leaves it out.
    if kind.kind == "Service"
        && obj
            .pointer("/spec/clusterIP")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
    {
        for f in ["clusterIP", "clusterIPs"] {
            if let Some(v) = old.pointer(&format!("/spec/{f}")) {
                meta::set(&mut obj, &format!("/spec/{f}"), v.clone());
            }
        }
    }
    if let Some(s) = old.get("status")
        && !matches!(kind.kind, "ConfigMap" | "Secret")
    {
        meta::set(&mut obj, "/status", s.clone());
    }
    if old.get("spec") != obj.get("spec") {
        let g = meta::int_at(&old, "/metadata/generation", 1);
        meta::set(&mut obj, "/metadata/generation", json!(g + 1));
    }
    let stored = store.update(key, obj);
    if meta::terminating(&stored)
        && stored
            .pointer("/metadata/finalizers")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty)
        && kind.kind != "Pod"
    {
        store.remove(key);
    }
    Ok(stored)
}

/// Deletes the object at `key`; returns it as the API answers.
pub fn delete(store: &mut Store, key: &Key, opts: DeleteOpts) -> Option<Value> {
    let mut obj = store.get(key).cloned()?;
    let kind = registry::by_resource(&key.0)?;
    let uid = meta::uid(&obj).unwrap_or_default();
    if opts.propagation == Propagation::Orphan {
        for d in store.dependents(&uid) {
            if let Some(mut dep) = store.get(&d).cloned()
                && let Some(Value::Array(refs)) = dep.pointer_mut("/metadata/ownerReferences")
            {
                refs.retain(|r| r.get("uid").and_then(Value::as_str) != Some(uid.as_str()));
                store.update(&d, dep);
            }
        }
    }
    let finalizers = meta::finalizers(&obj);
    if kind.kind == "Namespace" {
        if !meta::terminating(&obj) {
            meta::set_str(&mut obj, "/metadata/deletionTimestamp", &meta::now());
            meta::set_str(&mut obj, "/status/phase", "Terminating");
            return Some(store.update(key, obj));
        }
        return Some(obj);
    }
    if kind.kind == "Pod" {
        let grace = opts
            .grace
            .unwrap_or_else(|| meta::int_at(&obj, "/spec/terminationGracePeriodSeconds", 30))
            .max(0) as u64;
        let delay = store.timing.terminate_delay_ms.min(grace * 1000);
        if delay == 0 && finalizers.is_empty() {
            return store.remove(key);
        }
        if !meta::terminating(&obj) {
            meta::set_str(&mut obj, "/metadata/deletionTimestamp", &meta::now());
            meta::set(
                &mut obj,
                "/metadata/deletionGracePeriodSeconds",
                json!(grace),
            );
        }
        let at = Instant::now() + Duration::from_millis(delay);
        let clock = store.pods.entry(uid).or_default();
        clock.delete_at = Some(clock.delete_at.map_or(at, |d| d.min(at)));
        return Some(store.update(key, obj));
    }
    if opts.propagation == Propagation::Foreground && !store.dependents(&uid).is_empty() {
        if !meta::terminating(&obj) {
            meta::set_str(&mut obj, "/metadata/deletionTimestamp", &meta::now());
        }
        let mut f = finalizers;
        if !f.iter().any(|x| x == "foregroundDeletion") {
            f.push("foregroundDeletion".into());
        }
        meta::set(&mut obj, "/metadata/finalizers", json!(f));
        return Some(store.update(key, obj));
    }
    if !finalizers.is_empty() {
        if !meta::terminating(&obj) {
            meta::set_str(&mut obj, "/metadata/deletionTimestamp", &meta::now());
            return Some(store.update(key, obj));
        }
        return Some(obj);
    }
    store.remove(key)
}
