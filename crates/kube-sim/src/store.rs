//! Objects, resource versions and the event log that watches replay.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use tokio::sync::broadcast;

use crate::faults::Faults;
use crate::meta;

/// Where an object is stored: (resource `group/plural`, namespace or `""`, name).
pub type Key = (String, String, String);

/// Events kept for watches that resume from a resource version.
const EVENT_LOG: usize = 20_000;

/// What happened to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    /// Created.
    Added,
    /// Changed.
    Modified,
    /// Removed.
    Deleted,
}

impl EventType {
    /// As watch events spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Added => "ADDED",
            Self::Modified => "MODIFIED",
            Self::Deleted => "DELETED",
        }
    }
}

/// One change, as watches see it.
#[derive(Debug)]
pub struct Event {
    /// The resource version the change produced.
    pub rv: u64,
    /// What happened.
    pub kind: EventType,
    /// `group/plural`.
    pub resource: String,
    /// Namespace or `""`.
    pub namespace: String,
    /// The object after the change (before it, for deletions).
    pub object: Value,
}

/// Per-Pod timing the simulator keeps beside the object.
#[derive(Debug, Clone, Copy, Default)]
pub struct PodClock {
    /// When the Pod becomes ready (`None`: never).
    pub ready_at: Option<Instant>,
    /// When a terminating Pod disappears.
    pub delete_at: Option<Instant>,
}

/// Timing knobs, changeable at run time.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Pending -> Running delay of a new Pod, in milliseconds.
    pub ready_delay_ms: u64,
    /// How long a Pod deleted with a grace period stays terminating, in milliseconds.
    pub terminate_delay_ms: u64,
    /// Nodes (DaemonSets run one Pod per node).
    pub nodes: usize,
}

/// The whole cluster state.
#[derive(Debug)]
pub struct Store {
    objects: BTreeMap<Key, Value>,
    by_uid: HashMap<String, Key>,
    rv: u64,
    log: VecDeque<Arc<Event>>,
    tx: broadcast::Sender<Arc<Event>>,
    /// Pod timing by uid.
    pub pods: HashMap<String, PodClock>,
    /// Injected faults.
    pub faults: Faults,
    /// Timing knobs.
    pub timing: Timing,
    /// Names handed out so far (generated names never repeat).
    counter: u64,
    /// Each Pod's load and metric counters, by uid (see [`crate::metrics`]).
    pub meters: crate::metrics::Meters,
}

impl Store {
    /// An empty cluster with `timing`.
    pub fn new(timing: Timing) -> Self {
        let (tx, _) = broadcast::channel(8192);
        Self {
            objects: BTreeMap::new(),
            by_uid: HashMap::new(),
            rv: 1,
            log: VecDeque::new(),
            tx,
            pods: HashMap::new(),
            faults: Faults::default(),
            timing,
            counter: 0,
            meters: Default::default(),
        }
    }

    /// The current resource version.
    pub fn rv(&self) -> u64 {
        self.rv
    }

    /// A fresh number (for generated names and node ports).
    pub fn next_counter(&mut self) -> u64 {
        self.counter += 1;
        self.counter
    }

    /// Subscribes to future events.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.tx.subscribe()
    }

    /// Events after `rv`, or `None` when the log no longer reaches back that far.
    pub fn events_since(&self, rv: u64) -> Option<Vec<Arc<Event>>> {
        if let Some(first) = self.log.front()
            && first.rv > rv + 1
            && rv < self.rv
        {
            return None;
        }
        Some(self.log.iter().filter(|e| e.rv > rv).cloned().collect())
    }

    fn emit(&mut self, kind: EventType, key: &Key, object: Value) {
        let e = Arc::new(Event {
            rv: self.rv,
            kind,
            resource: key.0.clone(),
            namespace: key.1.clone(),
            object,
        });
        if self.log.len() >= EVENT_LOG {
            self.log.pop_front();
        }
        self.log.push_back(e.clone());
        // No watchers is fine.
        let _ = self.tx.send(e);
    }

    /// The object at `key`.
    pub fn get(&self, key: &Key) -> Option<&Value> {
        self.objects.get(key)
    }

    /// Whether `key` exists.
    pub fn contains(&self, key: &Key) -> bool {
        self.objects.contains_key(key)
    }

    /// Objects of `resource`, in `namespace` if given, in name order.
    pub fn list(&self, resource: &str, namespace: Option<&str>) -> Vec<(Key, Value)> {
        let start = (
            resource.to_owned(),
            namespace.unwrap_or_default().to_owned(),
            String::new(),
        );
        self.objects
            .range(start..)
            .take_while(|((r, ns, _), _)| r == resource && namespace.is_none_or(|n| n == ns))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Objects of `resource` in every namespace, by reference.
    pub fn list_refs<'a>(
        &'a self,
        resource: &'a str,
    ) -> impl Iterator<Item = (&'a Key, &'a Value)> {
        self.objects
            .range((resource.to_owned(), String::new(), String::new())..)
            .take_while(move |((r, _, _), _)| r == resource)
    }

    /// Whether a Pod or Job waits for a time to pass (readiness, termination).
    pub fn has_timers(&self) -> bool {
        self.pods
            .values()
            .any(|c| c.ready_at.is_some() || c.delete_at.is_some())
    }

    /// Stores a new object (metadata already complete but the resource version).
    pub fn insert(&mut self, key: Key, mut obj: Value) -> Value {
        self.rv += 1;
        meta::set_str(&mut obj, "/metadata/resourceVersion", &self.rv.to_string());
        if let Some(uid) = meta::uid(&obj) {
            self.by_uid.insert(uid, key.clone());
        }
        self.objects.insert(key.clone(), obj.clone());
        self.emit(EventType::Added, &key, obj.clone());
        obj
    }

    /// Replaces an object if it changed; returns what is stored.
    pub fn update(&mut self, key: &Key, mut obj: Value) -> Value {
        if let Some(old) = self.objects.get(key) {
            let old_rv = old.pointer("/metadata/resourceVersion").cloned();
            match old_rv {
                Some(rv) => meta::set(&mut obj, "/metadata/resourceVersion", rv),
                None => meta::remove(&mut obj, "/metadata/resourceVersion"),
            }
            if *old == obj {
                return obj;
            }
        }
        self.rv += 1;
        meta::set_str(&mut obj, "/metadata/resourceVersion", &self.rv.to_string());
        self.objects.insert(key.clone(), obj.clone());
        self.emit(EventType::Modified, key, obj.clone());
        obj
    }

    /// Removes an object for good.
    pub fn remove(&mut self, key: &Key) -> Option<Value> {
        let mut obj = self.objects.remove(key)?;
        if let Some(uid) = meta::uid(&obj) {
            self.pods.remove(&uid);
            self.by_uid.remove(&uid);
        }
        self.rv += 1;
        meta::set_str(&mut obj, "/metadata/resourceVersion", &self.rv.to_string());
        self.emit(EventType::Deleted, key, obj.clone());
        Some(obj)
    }

    /// Whether an object with this uid exists.
    pub fn has_uid(&self, uid: &str) -> bool {
        self.by_uid.contains_key(uid)
    }

    /// Every object, by reference, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&Key, &Value)> {
        self.objects.iter()
    }

    /// Keys of the objects owned by `uid`.
    pub fn dependents(&self, uid: &str) -> Vec<Key> {
        self.objects
            .iter()
            .filter(|(_, v)| meta::owner_uids(v).iter().any(|o| o == uid))
            .map(|(k, _)| k.clone())
            .collect()
    }
}

/// A Kubernetes `Status` failure body.
pub fn status(code: u16, reason: &str, message: &str) -> Value {
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    })
}
