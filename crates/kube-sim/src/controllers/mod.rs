//! Controllers that act like Kubernetes': each pass moves the cluster one step towards
//! what its objects ask for. `reconcile` runs passes until nothing changes.

mod daemonset;
mod deployment;
mod endpoints;
mod gc;
mod pods;
mod replicaset;
mod statefulset;
mod volumes;

use std::time::Instant;

use serde_json::{Value, json};

use crate::meta;
use crate::objects;
use crate::registry;
use crate::store::{Key, Store};

/// Runs controller passes until the cluster is still (at most a few passes); whether
/// it still moves.
pub fn reconcile(store: &mut Store, now: Instant) -> bool {
    for _ in 0..8 {
        let before = store.rv();
        pods::run(store, now);
        deployment::run(store);
        replicaset::run(store);
        statefulset::run(store);
        daemonset::run(store);
        volumes::run(store);
        endpoints::run(store);
        gc::run(store, now);
        if store.rv() == before {
            return false;
        }
    }
    true
}

/// Whether a Pod is Ready.
pub fn pod_ready(pod: &Value) -> bool {
    pod.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|c| {
            c.iter().any(|x| {
                x.get("type").and_then(Value::as_str) == Some("Ready")
                    && x.get("status").and_then(Value::as_str) == Some("True")
            })
        })
}

/// Stored objects with their keys.
type Objects = Vec<(Key, Value)>;

/// The live (not terminating) Pods controlled by `uid` in `ns`, and the terminating ones.
fn owned_pods(store: &Store, ns: &str, uid: &str) -> (Objects, Objects) {
    store
        .list("/pods", Some(ns))
        .into_iter()
        .filter(|(_, p)| meta::controller_uid(p).as_deref() == Some(uid))
        .partition(|(_, p)| !meta::terminating(p))
}

/// Workloads of `resource` that are not being deleted.
fn live(store: &Store, resource: &str) -> Vec<(Key, Value)> {
    store
        .list(resource, None)
        .into_iter()
        .filter(|(_, v)| !meta::terminating(v))
        .collect()
}

/// Creates a Pod from `owner`'s template, named `name`.
fn create_pod(store: &mut Store, owner: &Value, name: &str, extra: impl FnOnce(&mut Value)) {
    let ns = meta::namespace(owner);
    let template = owner
        .pointer("/spec/template")
        .cloned()
        .unwrap_or(json!({}));
    let mut pod = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": ns,
            "labels": template.pointer("/metadata/labels").cloned().unwrap_or(json!({})),
            "ownerReferences": [meta::owner_ref(owner)],
        },
        "spec": template.get("spec").cloned().unwrap_or(json!({})),
    });
    if let Some(a) = template.pointer("/metadata/annotations") {
        meta::set(&mut pod, "/metadata/annotations", a.clone());
    }
    extra(&mut pod);
    if let Some(kind) = registry::by_resource("/pods")
        && let Err(e) = objects::create(store, kind, &ns, pod)
    {
        tracing::debug!(pod = name, error = %e, "controller could not create a Pod");
    }
}

/// Sets `status` on the object at `key` (and `observedGeneration`).
fn set_status(store: &mut Store, key: &Key, obj: &Value, mut status: Value) {
    let g = meta::int_at(obj, "/metadata/generation", 1);
    meta::set(&mut status, "/observedGeneration", json!(g));
    if obj.get("status") == Some(&status) {
        return;
    }
    let mut new = obj.clone();
    meta::set(&mut new, "/status", status);
    store.update(key, new);
}

/// `spec.replicas` (default 1).
fn replicas(obj: &Value) -> i64 {
    meta::int_at(obj, "/spec/replicas", 1).max(0)
}
