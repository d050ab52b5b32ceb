//! The endpoints controller: each Service with a selector has an Endpoints object of its
//! name listing its ready Pods (clients such as upstream Tacker wait for it before they
//! call a Service ready); the Endpoints it made for a Service gone go with it, those a
//! client made itself stay.

use serde_json::{Map, Value, json};

use crate::controllers::pod_ready;
use crate::meta;
use crate::objects::{self, DeleteOpts};
use crate::registry;
use crate::selector::Selector;
use crate::store::Store;

/// The label marking the Endpoints this controller keeps, as Kubernetes marks them.
const MANAGED_BY: &str = "endpoints.kubernetes.io/managed-by";
const CONTROLLER: &str = "endpoint-controller";

pub fn run(store: &mut Store) {
    let Some(kind) = registry::by_resource("/endpoints") else {
        return;
    };
    let services = super::live(store, "/services");
    for (_, svc) in &services {
        let Some(sel) = svc.pointer("/spec/selector").and_then(Value::as_object) else {
            continue;
        };
        if sel.is_empty() {
            continue;
        }
        let ns = meta::namespace(svc);
        let name = meta::name(svc);
        let subsets = subsets(store, &ns, sel, svc);
        let key = objects::key(kind, &ns, &name);
        match store.get(&key).cloned() {
            Some(old) if old.get("subsets") == Some(&subsets) => {}
            Some(mut old) => {
                meta::set(&mut old, "/subsets", subsets);
                store.update(&key, old);
            }
            None => {
                let mut labels = svc
                    .pointer("/metadata/labels")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                labels.insert(MANAGED_BY.into(), json!(CONTROLLER));
                let ep = json!({"metadata": {"name": name, "namespace": ns, "labels": labels},
                    "subsets": subsets});
                if let Err(e) = objects::create(store, kind, &ns, ep) {
                    tracing::debug!(service = name, error = %e, "no Endpoints made");
                }
            }
        }
    }
    // The Endpoints this controller made for a Service that is gone.
    let gone: Vec<_> = store
        .list("/endpoints", None)
        .into_iter()
        .filter(|(_, ep)| {
            ep.pointer("/metadata/labels")
                .and_then(|l| l.get(MANAGED_BY))
                .and_then(Value::as_str)
                == Some(CONTROLLER)
                && !meta::terminating(ep)
        })
        .filter(|(_, ep)| {
            !services.iter().any(|(_, s)| {
                meta::namespace(s) == meta::namespace(ep) && meta::name(s) == meta::name(ep)
            })
        })
        .map(|(k, _)| k)
        .collect();
    for key in gone {
        objects::delete(store, &key, DeleteOpts::default());
    }
}

/// One subset of `svc`'s ready Pods (with an address) in `ns` matching `sel`, and its
/// ports (no Pod: no subsets, as Kubernetes writes it).
fn subsets(store: &Store, ns: &str, sel: &Map<String, Value>, svc: &Value) -> Value {
    let sel = Selector::from_spec(&json!({ "matchLabels": sel }));
    let pods: Vec<Value> = store
        .list("/pods", Some(ns))
        .into_iter()
        .map(|(_, p)| p)
        .filter(|p| !meta::terminating(p) && pod_ready(p))
        .filter(|p| p.pointer("/status/podIP").and_then(Value::as_str).is_some())
        .filter(|p| {
            p.pointer("/metadata/labels")
                .and_then(Value::as_object)
                .is_some_and(|l| sel.matches(l))
        })
        .collect();
    let Some(first) = pods.first() else {
        return json!([]);
    };
    let addresses: Vec<Value> = pods
        .iter()
        .map(|p| {
            json!({"ip": p.pointer("/status/podIP"),
                "targetRef": {"kind": "Pod", "namespace": ns, "name": meta::name(p),
                "uid": meta::uid(p)}})
        })
        .collect();
    let ports: Vec<Value> = svc
        .pointer("/spec/ports")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let port = target_port(p, first)?;
            Some(
                json!({"name": p.get("name").cloned().unwrap_or(Value::Null),
                "port": port,
                "protocol": p.get("protocol").cloned().unwrap_or(json!("TCP"))}),
            )
        })
        .collect();
    json!([{ "addresses": addresses, "ports": ports }])
}

/// The number a Service port reaches on `pod`: its `targetPort` (a number, or the name of
/// a container port of the Pod), else its `port`; `None` for a name no container has.
fn target_port(port: &Value, pod: &Value) -> Option<u64> {
    match port.get("targetPort") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(name)) => pod
            .pointer("/spec/containers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .flat_map(|c| {
                c.get("ports")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
            })
            .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
            .and_then(|p| p.get("containerPort"))
            .and_then(Value::as_u64),
        _ => port.get("port").and_then(Value::as_u64),
    }
}
