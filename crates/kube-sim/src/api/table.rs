//! `as=Table` answers, so `kubectl get` shows the usual columns.

use serde_json::{Value, json};

use super::Target;
use crate::controllers::pod_ready;
use crate::meta;

/// Whether the client asked for a Table.
pub fn wanted(accept: &str) -> bool {
    accept
        .split(',')
        .next()
        .is_some_and(|first| first.contains("as=Table"))
}

fn age(v: &Value) -> String {
    let created = meta::str_at(v, "/metadata/creationTimestamp");
    let Ok(t) = chrono::DateTime::parse_from_rfc3339(&created) else {
        return "<unknown>".into();
    };
    let s = (chrono::Utc::now() - t.with_timezone(&chrono::Utc))
        .num_seconds()
        .max(0);
    match s {
        0..120 => format!("{s}s"),
        120..7200 => format!("{}m", s / 60),
        7200..172_800 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86400),
    }
}

fn columns(kind: &str) -> Vec<&'static str> {
    match kind {
        "Pod" => vec!["Name", "Ready", "Status", "Restarts", "Age"],
        "Deployment" => vec!["Name", "Ready", "Up-to-date", "Available", "Age"],
        "ReplicaSet" => vec!["Name", "Desired", "Current", "Ready", "Age"],
        "StatefulSet" => vec!["Name", "Ready", "Age"],
        "DaemonSet" => vec!["Name", "Desired", "Current", "Ready", "Age"],
        "PersistentVolumeClaim" | "PersistentVolume" => vec!["Name", "Status", "Age"],
        _ => vec!["Name", "Age"],
    }
}

fn cells(kind: &str, v: &Value) -> Vec<Value> {
    let i = |p: &str| meta::int_at(v, p, 0);
    let name = json!(meta::name(v));
    let age = json!(age(v));
    match kind {
        "Pod" => {
            let total = v
                .pointer("/spec/containers")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            let ready = if pod_ready(v) { total } else { 0 };
            let status = if meta::terminating(v) {
                "Terminating".to_owned()
            } else {
                meta::str_at(v, "/status/phase")
            };
            vec![
                name,
                json!(format!("{ready}/{total}")),
                json!(status),
                json!(0),
                age,
            ]
        }
        "Deployment" => vec![
            name,
            json!(format!(
                "{}/{}",
                i("/status/readyReplicas"),
                i("/spec/replicas")
            )),
            json!(i("/status/updatedReplicas")),
            json!(i("/status/availableReplicas")),
            age,
        ],
        "ReplicaSet" => vec![
            name,
            json!(i("/spec/replicas")),
            json!(i("/status/replicas")),
            json!(i("/status/readyReplicas")),
            age,
        ],
        "StatefulSet" => vec![
            name,
            json!(format!(
                "{}/{}",
                i("/status/readyReplicas"),
                i("/spec/replicas")
            )),
            age,
        ],
        "DaemonSet" => vec![
            name,
            json!(i("/status/desiredNumberScheduled")),
            json!(i("/status/currentNumberScheduled")),
            json!(i("/status/numberReady")),
            age,
        ],
        "PersistentVolumeClaim" | "PersistentVolume" => {
            vec![name, json!(meta::str_at(v, "/status/phase")), age]
        }
        _ => vec![name, age],
    }
}

/// `items` as a Table.
pub fn table(t: &Target, items: &[Value], rv: u64) -> Value {
    let cols: Vec<Value> = columns(t.kind.kind)
        .into_iter()
        .map(|c| {
            json!({"name": c, "type": "string", "format": if c == "Name" { "name" } else { "" }, "description": "", "priority": 0})
        })
        .collect();
    let rows: Vec<Value> = items
        .iter()
        .map(|v| {
            json!({
                "cells": cells(t.kind.kind, v),
                "object": {
                    "kind": "PartialObjectMetadata",
                    "apiVersion": "meta.k8s.io/v1",
                    "metadata": v.get("metadata").cloned().unwrap_or(json!({})),
                },
            })
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": rv.to_string()},
        "columnDefinitions": cols,
        "rows": rows,
    })
}
