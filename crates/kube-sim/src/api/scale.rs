//! The `scale` subresource of Deployments, ReplicaSets and StatefulSets.

use std::sync::Arc;

use actix_web::HttpResponse;
use serde_json::{Value, json};

use super::Target;
use super::resources::{json_body, patched};
use crate::error::ApiErr;
use crate::objects;
use crate::{Sim, meta};

fn selector_string(obj: &Value) -> String {
    let sel = obj.pointer("/spec/selector").cloned().unwrap_or(json!({}));
    sel.get("matchLabels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default()
}

fn view(obj: &Value) -> Value {
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": meta::name(obj),
            "namespace": meta::namespace(obj),
            "uid": meta::uid(obj),
            "resourceVersion": meta::str_at(obj, "/metadata/resourceVersion"),
            "creationTimestamp": meta::str_at(obj, "/metadata/creationTimestamp"),
        },
        "spec": {"replicas": meta::int_at(obj, "/spec/replicas", 1)},
        "status": {
            "replicas": meta::int_at(obj, "/status/replicas", 0),
            "selector": selector_string(obj),
        },
    })
}

fn key(t: &Target) -> crate::store::Key {
    objects::key(
        t.kind,
        t.namespace.as_deref().unwrap_or_default(),
        t.name.as_deref().unwrap_or_default(),
    )
}

pub fn get(sim: &Arc<Sim>, t: &Target) -> Result<HttpResponse, ApiErr> {
    let store = sim.lock();
    let k = key(t);
    let obj = store
        .get(&k)
        .ok_or_else(|| ApiErr::not_found(t.kind.plural, &k.2))?;
    Ok(HttpResponse::Ok().json(view(obj)))
}

/// PUT (`content_type` `None`) or PATCH of the scale.
pub fn update(
    sim: &Arc<Sim>,
    t: &Target,
    body: &[u8],
    content_type: Option<&str>,
) -> Result<HttpResponse, ApiErr> {
    let mut store = sim.lock();
    let k = key(t);
    let obj = store
        .get(&k)
        .cloned()
        .ok_or_else(|| ApiErr::not_found(t.kind.plural, &k.2))?;
    let current = view(&obj);
    let new = match content_type {
        Some(ct) => patched(&current, body, ct)?,
        None => json_body(body)?,
    };
    let sent_rv = meta::str_at(&new, "/metadata/resourceVersion");
    if content_type.is_none()
        && !sent_rv.is_empty()
        && sent_rv != meta::str_at(&obj, "/metadata/resourceVersion")
    {
        return Err(ApiErr::conflict(format!(
            "Operation cannot be fulfilled on {} \"{}\": the object has been modified",
            t.kind.plural, k.2
        )));
    }
    let replicas = new
        .pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .ok_or_else(|| ApiErr::invalid("Scale is invalid: spec.replicas: Required value"))?;
    if replicas < 0 {
        return Err(ApiErr::invalid(
            "Scale is invalid: spec.replicas: must be greater than or equal to 0",
        ));
    }
    let mut updated = obj.clone();
    meta::set(&mut updated, "/spec/replicas", json!(replicas));
    let stored = objects::replace(&mut store, t.kind, &k, updated, false)?;
    Ok(HttpResponse::Ok().json(view(&stored)))
}
