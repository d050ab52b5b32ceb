//! Deployments own one ReplicaSet per Pod template (`<deployment>-<template hash>`).

use serde_json::json;

use super::{live, replicas, set_status};
use crate::meta;
use crate::objects;
use crate::registry;
use crate::store::Store;

pub fn run(store: &mut Store) {
    let Some(rs_kind) = registry::by_resource("apps/replicasets") else {
        return;
    };
    for (key, d) in live(store, "apps/deployments") {
        let Some(uid) = meta::uid(&d) else { continue };
        let ns = key.1.clone();
        let want = replicas(&d);
        let template = d.pointer("/spec/template").cloned().unwrap_or(json!({}));
        let hash = meta::hash(&template);
        let current = format!("{}-{hash}", key.2);
        let owned: Vec<_> = store
            .list("apps/replicasets", Some(&ns))
            .into_iter()
            .filter(|(_, rs)| meta::controller_uid(rs).as_deref() == Some(uid.as_str()))
            .collect();
        if !owned.iter().any(|(k, _)| k.2 == current) {
            let mut t = template.clone();
            meta::set_str(&mut t, "/metadata/labels/pod-template-hash", &hash);
            let mut selector = d.pointer("/spec/selector").cloned().unwrap_or(json!({}));
            meta::set_str(&mut selector, "/matchLabels/pod-template-hash", &hash);
            let mut labels = t.pointer("/metadata/labels").cloned().unwrap_or(json!({}));
            meta::set_str(&mut labels, "/pod-template-hash", &hash);
            let rs = json!({
                "metadata": {
                    "name": current,
                    "labels": labels,
                    "ownerReferences": [meta::owner_ref(&d)],
                    "annotations": {"deployment.kubernetes.io/desired-replicas": want.to_string()},
                },
                "spec": {"replicas": want, "selector": selector, "template": t},
            });
            if let Err(e) = objects::create(store, rs_kind, &ns, rs) {
                tracing::debug!(deployment = %key.2, error = %e, "cannot create its ReplicaSet");
            }
        }
        let mut total = 0;
        let mut ready = 0;
        let mut updated = 0;
        for (k, rs) in store.list("apps/replicasets", Some(&ns)) {
            if meta::controller_uid(&rs).as_deref() != Some(uid.as_str()) {
                continue;
            }
            let target = if k.2 == current { want } else { 0 };
            if replicas(&rs) != target {
                let mut new = rs.clone();
                meta::set(&mut new, "/spec/replicas", json!(target));
                let g = meta::int_at(&rs, "/metadata/generation", 1);
                meta::set(&mut new, "/metadata/generation", json!(g + 1));
                store.update(&k, new);
            }
            let r = meta::int_at(&rs, "/status/replicas", 0);
            let rr = meta::int_at(&rs, "/status/readyReplicas", 0);
            total += r;
            ready += rr;
            if k.2 == current {
                updated = r;
            }
        }
        let available = if ready >= want { "True" } else { "False" };
        let status = json!({
            "replicas": total,
            "readyReplicas": ready,
            "availableReplicas": ready,
            "updatedReplicas": updated,
            "unavailableReplicas": (want - ready).max(0),
            "conditions": [
                {"type": "Available", "status": available, "reason": "MinimumReplicasAvailable"},
                {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"},
            ],
        });
        if let Some(cur) = store.get(&key).cloned() {
            set_status(store, &key, &cur, status);
        }
    }
}
