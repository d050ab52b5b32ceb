//! ReplicaSets keep `replicas` Pods named `<replicaset>-<5 chars>`.

use serde_json::json;

use super::{create_pod, live, owned_pods, pod_ready, replicas, set_status};
use crate::meta;
use crate::objects::{self, DeleteOpts};
use crate::store::Store;

pub fn run(store: &mut Store) {
    for (key, rs) in live(store, "apps/replicasets") {
        let Some(uid) = meta::uid(&rs) else { continue };
        let want = replicas(&rs) as usize;
        let (mut active, _) = owned_pods(store, &key.1, &uid);
        if active.len() < want {
            for _ in active.len()..want {
                let name = format!("{}-{}", key.2, meta::suffix());
                create_pod(store, &rs, &name, |_| {});
            }
        } else if active.len() > want {
            // Unready Pods go first, then the newest.
            active.sort_by_key(|(_, p)| {
                (
                    pod_ready(p),
                    std::cmp::Reverse(meta::str_at(p, "/metadata/creationTimestamp")),
                    std::cmp::Reverse(meta::name(p)),
                )
            });
            for (k, _) in active.iter().take(active.len() - want) {
                objects::delete(store, k, DeleteOpts::default());
            }
        }
        let (active, _) = owned_pods(store, &key.1, &uid);
        let ready = active.iter().filter(|(_, p)| pod_ready(p)).count();
        let status = json!({
            "replicas": active.len(),
            "fullyLabeledReplicas": active.len(),
            "readyReplicas": ready,
            "availableReplicas": ready,
        });
        if let Some(cur) = store.get(&key).cloned() {
            set_status(store, &key, &cur, status);
        }
    }
}
