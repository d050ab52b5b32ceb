//! The kubelet's part: Pods become Running and Ready, terminating Pods go away; Jobs
//! complete.

use std::time::Instant;

use serde_json::{Value, json};

use crate::meta;
use crate::store::Store;

/// A Running Pod's address: from its uid, in the benchmarking range (198.19.0.0/16), so
/// nothing is ever reached through it.
fn pod_ip(pod: &Value) -> String {
    let uid = pod
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let h = uid.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    format!("198.19.{}.{}", (h >> 8) & 0xff, (h & 0xff).clamp(1, 254))
}

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
        "podIP": pod_ip(pod),
        "podIPs": [{"ip": pod_ip(pod)}],
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

/// What a Pod needs now.
enum Step {
    Remove,
    Status(bool),
    Settled,
}

pub fn run(store: &mut Store, now: Instant) {
    let mut steps = Vec::new();
    for (key, pod) in store.list_refs("/pods") {
        let Some(uid) = pod.pointer("/metadata/uid").and_then(Value::as_str) else {
            continue;
        };
        let clock = store.pods.get(uid).copied().unwrap_or_default();
        if meta::terminating(pod) {
            if clock.delete_at.is_none_or(|d| d <= now)
                && pod
                    .pointer("/metadata/finalizers")
                    .and_then(Value::as_array)
                    .is_none_or(Vec::is_empty)
            {
                steps.push((key.clone(), uid.to_owned(), Step::Remove));
            }
            continue;
        }
        if clock.ready_at.is_some_and(|r| r > now) {
            continue;
        }
        let want_ready = !store.faults.held(pod);
        let is_running = pod.pointer("/status/phase").and_then(Value::as_str) == Some("Running");
        if !is_running || super::pod_ready(pod) != want_ready {
            steps.push((key.clone(), uid.to_owned(), Step::Status(want_ready)));
        } else if want_ready && clock.ready_at.is_some() {
            steps.push((key.clone(), uid.to_owned(), Step::Settled));
        }
    }
    for (key, uid, step) in steps {
        match step {
            Step::Remove => {
                store.remove(&key);
            }
            Step::Status(ready) => {
                if let Some(pod) = store.get(&key).cloned() {
                    let mut new = pod.clone();
                    meta::set(&mut new, "/status", running(&pod, ready));
                    store.update(&key, new);
                }
                if ready && let Some(c) = store.pods.get_mut(&uid) {
                    c.ready_at = None;
                }
            }
            Step::Settled => {
                if let Some(c) = store.pods.get_mut(&uid) {
                    c.ready_at = None;
                }
            }
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
        if (done || due)
            && let Some(c) = store.pods.get_mut(&uid)
        {
            c.ready_at = None;
        }
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
