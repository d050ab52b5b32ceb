//! The endpoints controller: each Service with a selector has an Endpoints object of its
//! name listing its ready Pods (clients such as upstream Tacker wait for it before they
//! call a Service ready); the Endpoints of a Service gone go with it.

use serde_json::{Map, Value, json};

use crate::controllers::pod_ready;
use crate::meta;
use crate::objects::{self, DeleteOpts};
use crate::registry;
use crate::selector::Selector;
use crate::store::Store;

pub fn run(store: &mut Store) {
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
        let Some(kind) = registry::by_resource("/endpoints") else {
            return;
        };
        let key = objects::key(kind, &ns, &name);
        match store.get(&key).cloned() {
            Some(old) if old.get("subsets") == Some(&subsets) => {}
            Some(mut old) => {
                meta::set(&mut old, "/subsets", subsets);
                store.update(&key, old);
            }
            None => {
                let labels = svc
                    .pointer("/metadata/labels")
                    .cloned()
                    .unwrap_or(json!({}));
                let ep = json!({"metadata": {"name": name, "namespace": ns, "labels": labels},
                    "subsets": subsets});
                if let Err(e) = objects::create(store, kind, &ns, ep) {
                    tracing::debug!(service = name, error = %e, "no Endpoints made");
                }
            }
        }
    }
    // Endpoints whose Service is gone.
    let gone: Vec<_> = store
        .list("/endpoints", None)
        .into_iter()
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

/// One subset of `svc`'s ready Pods in `ns` matching `sel` and its ports (none: no
/// subsets, as Kubernetes writes it).
fn subsets(store: &Store, ns: &str, sel: &Map<String, Value>, svc: &Value) -> Value {
    let sel = Selector::from_spec(&json!({ "matchLabels": sel }));
    let addresses: Vec<Value> = store
        .list("/pods", Some(ns))
        .into_iter()
        .filter(|(_, p)| !meta::terminating(p) && pod_ready(p))
        .filter(|(_, p)| {
            p.pointer("/metadata/labels")
                .and_then(Value::as_object)
                .is_some_and(|l| sel.matches(l))
        })
        .map(|(_, p)| {
            json!({"ip": p.pointer("/status/podIP").cloned().unwrap_or(Value::Null),
                "targetRef": {"kind": "Pod", "namespace": ns, "name": meta::name(&p),
                "uid": meta::uid(&p)}})
        })
        .collect();
    if addresses.is_empty() {
        return json!([]);
    }
    let ports: Vec<Value> = svc
        .pointer("/spec/ports")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|p| {
            json!({"name": p.get("name").cloned().unwrap_or(Value::Null),
                "port": p.get("targetPort").or(p.get("port")).cloned().unwrap_or(Value::Null),
                "protocol": p.get("protocol").cloned().unwrap_or(json!("TCP"))})
        })
        .collect();
    json!([{ "addresses": addresses, "ports": ports }])
}
