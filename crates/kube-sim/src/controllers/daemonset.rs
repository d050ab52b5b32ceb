//! DaemonSets run one Pod (`<daemonset>-<5 chars>`) on every node.

use serde_json::{Value, json};

use super::{create_pod, live, owned_pods, pod_ready, set_status};
use crate::meta;
use crate::objects::{self, DeleteOpts};
use crate::store::Store;

pub fn run(store: &mut Store) {
    let nodes: Vec<String> = store
        .list("/nodes", None)
        .into_iter()
        .map(|(k, _)| k.2)
        .collect();
    for (key, ds) in live(store, "apps/daemonsets") {
        let Some(uid) = meta::uid(&ds) else { continue };
        let revision = meta::hash(&ds.pointer("/spec/template").cloned().unwrap_or_default());
        let (active, _) = owned_pods(store, &key.1, &uid);
        for node in &nodes {
            let here = active
                .iter()
                .filter(|(_, p)| meta::str_at(p, "/spec/nodeName") == *node)
                .count();
            if here == 0 {
                let name = format!("{}-{}", key.2, meta::suffix());
                let n = node.clone();
                let r = revision.clone();
                create_pod(store, &ds, &name, |pod| {
                    meta::set(pod, "/spec/nodeName", Value::String(n));
                    meta::set_str(pod, "/metadata/labels/controller-revision-hash", &r);
                });
            }
        }
        for (k, p) in &active {
            if !nodes.contains(&meta::str_at(p, "/spec/nodeName")) {
                objects::delete(store, k, DeleteOpts::default());
            }
        }
        // RollingUpdate (maxUnavailable 1): once every Pod is ready, one of an older
        // revision goes; its node gets a new one.
        let (active, terminating) = owned_pods(store, &key.1, &uid);
        let stale =
            |p: &Value| meta::str_at(p, "/metadata/labels/controller-revision-hash") != revision;
        if terminating.is_empty()
            && active.len() == nodes.len()
            && active.iter().all(|(_, p)| pod_ready(p))
            && let Some((k, _)) = active.iter().find(|(_, p)| stale(p))
        {
            objects::delete(store, k, DeleteOpts::default());
        }
        let (active, _) = owned_pods(store, &key.1, &uid);
        let ready = active.iter().filter(|(_, p)| pod_ready(p)).count();
        let updated = active.iter().filter(|(_, p)| !stale(p)).count();
        let status = json!({
            "desiredNumberScheduled": nodes.len(),
            "currentNumberScheduled": active.len(),
            "updatedNumberScheduled": updated,
            "numberReady": ready,
            "numberAvailable": ready,
            "numberMisscheduled": 0,
        });
        if let Some(cur) = store.get(&key).cloned() {
            set_status(store, &key, &cur, status);
        }
    }
}
