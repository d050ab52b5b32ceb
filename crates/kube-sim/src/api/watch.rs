//! `?watch=true`: a stream of JSON events, one per line, resumable from a resource
//! version while the event log reaches back that far.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use actix_web::HttpResponse;
use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::broadcast::{self, error::RecvError};

use super::Target;
use super::resources::{filters, shown};
use crate::selector::{Fields, Selector};
use crate::store::{Event, EventType, status};
use crate::{Sim, meta};

struct Filter {
    resource: String,
    namespace: Option<String>,
    labels: Selector,
    fields: Fields,
    target: Target,
}

impl Filter {
    fn matches(&self, e: &Event) -> bool {
        e.resource == self.resource
            && self.namespace.as_ref().is_none_or(|n| *n == e.namespace)
            && self.labels.matches(&meta::labels(&e.object))
            && self.fields.matches(&e.object)
    }

    fn line(&self, kind: &str, obj: Value) -> Bytes {
        let mut s = json!({"type": kind, "object": shown(&self.target, obj)}).to_string();
        s.push('\n');
        Bytes::from(s)
    }
}

struct State {
    rx: broadcast::Receiver<Arc<Event>>,
    pending: VecDeque<Bytes>,
    after: u64,
    filter: Filter,
    deadline: tokio::time::Instant,
    done: bool,
}

fn param<'a>(q: &'a [(String, String)], k: &str) -> Option<&'a str> {
    q.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
}

pub fn watch(sim: &Arc<Sim>, t: &Target, q: &[(String, String)]) -> HttpResponse {
    let (labels, fields) = match filters(q) {
        Ok(f) => f,
        Err(e) => return e.response(),
    };
    let filter = Filter {
        resource: t.kind.resource(),
        namespace: t.namespace.clone(),
        labels,
        fields,
        target: t.clone(),
    };
    let timeout = param(q, "timeoutSeconds")
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(1800);
    let store = sim.lock();
    let rx = store.subscribe();
    let mut pending = VecDeque::new();
    let since = param(q, "resourceVersion")
        .filter(|s| !s.is_empty() && *s != "0")
        .and_then(|s| s.parse::<u64>().ok());
    let after = match since {
        None => {
            for (k, v) in store.list(&filter.resource, filter.namespace.as_deref()) {
                let e = Event {
                    rv: 0,
                    kind: EventType::Added,
                    resource: k.0,
                    namespace: k.1,
                    object: v,
                };
                if filter.matches(&e) {
                    pending.push_back(filter.line("ADDED", e.object));
                }
            }
            store.rv()
        }
        Some(rv) => match store.events_since(rv) {
            Some(events) => {
                for e in events.iter().filter(|e| filter.matches(e)) {
                    pending.push_back(filter.line(e.kind.as_str(), e.object.clone()));
                }
                store.rv()
            }
            None => {
                let gone = status(410, "Expired", &format!("too old resource version: {rv}"));
                let mut s = json!({"type": "ERROR", "object": gone}).to_string();
                s.push('\n');
                pending.push_back(Bytes::from(s));
                u64::MAX
            }
        },
    };
    drop(store);
    let state = State {
        rx,
        pending,
        after,
        filter,
        deadline: tokio::time::Instant::now() + Duration::from_secs(timeout),
        done: after == u64::MAX,
    };
    let stream = futures::stream::unfold(state, |mut st| async move {
        loop {
            if let Some(b) = st.pending.pop_front() {
                return Some((Ok::<_, actix_web::Error>(b), st));
            }
            if st.done {
                return None;
            }
            match tokio::time::timeout_at(st.deadline, st.rx.recv()).await {
                Err(_) | Ok(Err(RecvError::Closed | RecvError::Lagged(_))) => return None,
                Ok(Ok(e)) => {
                    if e.rv > st.after && st.filter.matches(&e) {
                        st.pending
                            .push_back(st.filter.line(e.kind.as_str(), e.object.clone()));
                    }
                }
            }
        }
    });
    HttpResponse::Ok()
        .content_type("application/json")
        .streaming(stream)
}
