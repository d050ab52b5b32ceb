//! The kubelet's part: Pods become Running and Ready, terminating Pods go away; Jobs
//! complete.

use std::time::Instant;

use serde_json::{Value, json};

use crate::meta;
use crate::store::Store;

fn running(pod: &Value, ready: bool) -> Value {
    let now = meta::now();
    let flag = if ready { "True" } else { "False" };
    let containers: Vec<Value> = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            json!({
                "name": c.get("name").cloned().unwrap_or(Value::Null),
                "image": c.get("image").cloned().unwrap_or(Value::Null),
                "imageID": "",
                "ready": ready,
                "started": true,
                "restartCount": 0,
                "state": {"running": {"startedAt": now}},
            })
        })
        .collect();
    let start = pod
        .pointer("/status/startTime")
        .cloned()
        .unwrap_or_else(|| json!(now));
    json!({
        "phase": "Running",
        "startTime": start,
        "qosClass": "Burstable",
        "conditions": [
            {"type": "Initialized", "status": "True"},
            {"type": "Ready", "status": flag},
            {"type": "ContainersReady", "status": flag},
            {"type": "PodScheduled", "status": "True"},
        ],
        "containerStatuses": containers,
    })
}

pub fn run(store: &mut Store, now: Instant) {
    for (key, pod) in store.list("/pods", None) {
        let Some(uid) = meta::uid(&pod) else { continue };
        let clock = store.pods.get(&uid).copied().unwrap_or_default();
        if meta::terminating(&pod) {
            if clock.delete_at.is_none_or(|d| d <= now)
                && pod
                    .pointer("/metadata/finalizers")
                    .and_then(Value::as_array)
                    .is_none_or(Vec::is_empty)
            {
                store.remove(&key);
            }
            continue;
        }
        if clock.ready_at.is_some_and(|r| r > now) {
            continue;
        }
        let want_ready = !store.faults.held(&meta::name(&pod));
        let is_running = meta::str_at(&pod, "/status/phase") == "Running";
        if !is_running || super::pod_ready(&pod) != want_ready {
            let mut new = pod.clone();
            meta::set(&mut new, "/status", running(&pod, want_ready));
            store.update(&key, new);
        }
    }
    for (key, job) in store.list("batch/jobs", None) {
        let Some(uid) = meta::uid(&job) else { continue };
        let done = job.pointer("/status/completionTime").is_some();
        let due = store
            .pods
            .get(&uid)
            .and_then(|c| c.ready_at)
            .is_none_or(|r| r <= now);
        if !done && due {
            let completions = meta::int_at(&job, "/spec/completions", 1);
            let mut new = job.clone();
            let start = job
                .pointer("/status/startTime")
                .cloned()
                .unwrap_or_else(|| json!(meta::now()));
            meta::set(
                &mut new,
                "/status",
                json!({
                    "startTime": start,
                    "completionTime": meta::now(),
                    "succeeded": completions,
                    "ready": 0,
                    "conditions": [{"type": "Complete", "status": "True"}],
                }),
            );
            store.update(&key, new);
        }
    }
}
