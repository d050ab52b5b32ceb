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
        let (active, _) = owned_pods(store, &key.1, &uid);
        for node in &nodes {
            let here = active
                .iter()
                .filter(|(_, p)| meta::str_at(p, "/spec/nodeName") == *node)
                .count();
            if here == 0 {
                let name = format!("{}-{}", key.2, meta::suffix());
                let n = node.clone();
                create_pod(store, &ds, &name, |pod| {
                    meta::set(pod, "/spec/nodeName", Value::String(n));
                });
            }
        }
        for (k, p) in &active {
            if !nodes.contains(&meta::str_at(p, "/spec/nodeName")) {
                objects::delete(store, k, DeleteOpts::default());
            }
        }
        let (active, _) = owned_pods(store, &key.1, &uid);
        let ready = active.iter().filter(|(_, p)| pod_ready(p)).count();
        let status = json!({
            "desiredNumberScheduled": nodes.len(),
            "currentNumberScheduled": active.len(),
            "updatedNumberScheduled": active.len(),
            "numberReady": ready,
            "numberAvailable": ready,
            "numberMisscheduled": 0,
        });
        if let Some(cur) = store.get(&key).cloned() {
            set_status(store, &key, &cur, status);
        }
    }
}
