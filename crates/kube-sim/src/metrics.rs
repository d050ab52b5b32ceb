//! What Prometheus scrapes from a cluster, for the Pods the simulator holds: the kubelet's
//! resource metrics and cAdvisor's (`pod_cpu_usage_seconds_total`,
//! `pod_memory_working_set_bytes`, `container_fs_*`, `container_network_*`) and
//! kube-state-metrics' (`kube_pod_info`, `kube_pod_status_ready`,
//! `kube_node_status_capacity`), served at `GET /metrics` in the text exposition
//! format. Each Pod's load is a knob (`PUT /sim/namespaces/<ns>/pods/<name>/load`):
//! CPU cores used, memory and disk bytes, network bytes per second, and whether it is
//! failed (not ready, whatever its status says).

use std::collections::HashMap;
use std::fmt::Write;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::meta;
use crate::store::Store;

/// A Pod's load.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Load {
    /// CPU cores in use.
    pub cpu: f64,
    /// Working set bytes.
    pub memory_bytes: u64,
    /// Bytes used on its container's filesystem.
    pub disk_bytes: u64,
    /// Bytes received (and sent) per second on `eth0`.
    pub network_bytes_per_second: f64,
    /// Failed: reported not ready.
    pub failed: bool,
}

impl Default for Load {
    fn default() -> Self {
        Self {
            cpu: 0.01,
            memory_bytes: 16 * 1024 * 1024,
            disk_bytes: 4 * 1024 * 1024,
            network_bytes_per_second: 1000.0,
            failed: false,
        }
    }
}

/// A Pod's load and its counters so far (by Pod uid).
#[derive(Debug, Clone)]
pub struct Meter {
    load: Load,
    cpu_seconds: f64,
    network_bytes: f64,
    since: Instant,
}

impl Meter {
    fn new(now: Instant) -> Self {
        Self {
            load: Load::default(),
            cpu_seconds: 0.0,
            network_bytes: 0.0,
            since: now,
        }
    }

    /// The counters now.
    fn counters(&self, now: Instant) -> (f64, f64) {
        let s = now.duration_since(self.since).as_secs_f64();
        (
            self.cpu_seconds + self.load.cpu * s,
            self.network_bytes + self.load.network_bytes_per_second * s,
        )
    }

    /// Sets a new load from now on (the counters keep what was counted).
    fn set(&mut self, load: Load, now: Instant) {
        (self.cpu_seconds, self.network_bytes) = self.counters(now);
        self.since = now;
        self.load = load;
    }
}

/// Every Pod's meter, by uid.
pub type Meters = HashMap<String, Meter>;

/// Sets the load of the Pod with `uid`.
pub fn set_load(meters: &mut Meters, uid: &str, load: Load) {
    let now = Instant::now();
    meters
        .entry(uid.to_owned())
        .or_insert_with(|| Meter::new(now))
        .set(load, now);
}

/// The load of the Pod with `uid`.
pub fn load_of(meters: &Meters, uid: &str) -> Load {
    meters.get(uid).map(|m| m.load).unwrap_or_default()
}

fn ready(pod: &Value) -> bool {
    pod.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|c| {
            c.iter()
                .any(|c| c["type"] == "Ready" && c["status"] == "True")
        })
}

fn esc(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The exposition of every Pod's and node's metrics (meters of Pods seen for the first
/// time start now; those of Pods gone are dropped).
pub fn render(store: &mut Store) -> String {
    let now = Instant::now();
    let pods: Vec<(String, String, String, String, bool)> = store
        .list_refs("/pods")
        .map(|(k, p)| {
            let node = p
                .pointer("/spec/nodeName")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            (
                k.1.clone(),
                k.2.clone(),
                meta::uid(p).unwrap_or_default(),
                node,
                ready(p),
            )
        })
        .collect();
    let nodes: Vec<String> = store
        .list_refs("/nodes")
        .map(|(k, _)| k.2.clone())
        .collect();
    store
        .meters
        .retain(|uid, _| pods.iter().any(|p| p.2 == *uid));
    for p in &pods {
        store
            .meters
            .entry(p.2.clone())
            .or_insert_with(|| Meter::new(now));
    }
    let mut families: Vec<(&str, &str, &str, Vec<String>)> = vec![
        (
            "kube_pod_info",
            "gauge",
            "Information about the Pod",
            vec![],
        ),
        (
            "kube_pod_status_ready",
            "gauge",
            "Whether the Pod is ready",
            vec![],
        ),
        (
            "pod_cpu_usage_seconds_total",
            "counter",
            "CPU time the Pod used",
            vec![],
        ),
        (
            "pod_memory_working_set_bytes",
            "gauge",
            "The Pod's working set",
            vec![],
        ),
        (
            "container_fs_usage_bytes",
            "gauge",
            "Bytes used on the container's filesystem",
            vec![],
        ),
        (
            "container_fs_limit_bytes",
            "gauge",
            "Size of the container's filesystem",
            vec![],
        ),
        (
            "container_network_receive_bytes_total",
            "counter",
            "Bytes received",
            vec![],
        ),
        (
            "container_network_transmit_bytes_total",
            "counter",
            "Bytes sent",
            vec![],
        ),
        (
            "container_network_receive_packets_total",
            "counter",
            "Packets received",
            vec![],
        ),
        (
            "container_network_transmit_packets_total",
            "counter",
            "Packets sent",
            vec![],
        ),
        (
            "kube_node_status_capacity",
            "gauge",
            "A node's capacity",
            vec![],
        ),
    ];
    for (ns, pod, uid, node, is_ready) in &pods {
        let m = &store.meters[uid];
        let (cpu, net) = m.counters(now);
        let ready = *is_ready && !m.load.failed;
        let (ns, pod) = (esc(ns), esc(pod));
        let id = format!("namespace=\"{ns}\",pod=\"{pod}\"");
        let c = format!("{id},container=\"{pod}\"");
        let net_id = format!("{id},interface=\"eth0\"");
        let values: [Vec<String>; 10] = [
            vec![format!("{{{id},uid=\"{uid}\",node=\"{}\"}} 1", esc(node))],
            vec![
                format!(
                    "{{{id},uid=\"{uid}\",condition=\"true\"}} {}",
                    u8::from(ready)
                ),
                format!(
                    "{{{id},uid=\"{uid}\",condition=\"false\"}} {}",
                    u8::from(!ready)
                ),
            ],
            vec![format!("{{{id}}} {cpu}")],
            vec![format!("{{{id}}} {}", m.load.memory_bytes)],
            vec![format!(
                "{{{c},device=\"/dev/sda1\"}} {}",
                m.load.disk_bytes
            )],
            vec![format!(
                "{{{c},device=\"/dev/sda1\"}} {}",
                10u64 * 1024 * 1024 * 1024
            )],
            vec![format!("{{{net_id}}} {net}")],
            vec![format!("{{{net_id}}} {net}")],
            vec![format!("{{{net_id}}} {}", (net / 1000.0).floor())],
            vec![format!("{{{net_id}}} {}", (net / 1000.0).floor())],
        ];
        for (f, v) in families.iter_mut().zip(values) {
            f.3.extend(v);
        }
    }
    for n in &nodes {
        let n = esc(n);
        families[10]
            .3
            .push(format!("{{node=\"{n}\",resource=\"cpu\",unit=\"core\"}} 4"));
        families[10].3.push(format!(
            "{{node=\"{n}\",resource=\"memory\",unit=\"byte\"}} 17179869184"
        ));
    }
    let mut out = String::new();
    for (name, kind, help, samples) in families {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for s in samples {
            let _ = writeln!(out, "{name}{s}");
        }
    }
    out
}
