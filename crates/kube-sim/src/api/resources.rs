//! get, list, create, update, patch, delete, deletecollection; bindings and reviews.

use std::sync::Arc;

use actix_web::HttpResponse;
use serde_json::{Value, json};

use super::Target;
use crate::error::ApiErr;
use crate::objects::{self, DeleteOpts};
use crate::selector::{Fields, Selector};
use crate::store::Key;
use crate::{Sim, meta, patch};

fn param<'a>(q: &'a [(String, String)], k: &str) -> Option<&'a str> {
    q.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
}

/// Parses a JSON (or YAML-as-JSON) body.
pub fn json_body(body: &[u8]) -> Result<Value, ApiErr> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(body).map_err(|e| ApiErr::bad(format!("invalid JSON body: {e}")))
}

fn ns_of(t: &Target) -> String {
    t.namespace.clone().unwrap_or_default()
}

fn key_of(t: &Target) -> Key {
    objects::key(t.kind, &ns_of(t), t.name.as_deref().unwrap_or_default())
}

fn what(t: &Target) -> String {
    if t.kind.group.is_empty() {
        t.kind.plural.to_owned()
    } else {
        format!("{}.{}", t.kind.plural, t.kind.group)
    }
}

/// An object as served at the requested version.
pub fn shown(t: &Target, mut v: Value) -> Value {
    meta::set_str(&mut v, "/apiVersion", &t.api_version());
    v
}

/// Label and field selectors of a list, watch or deletecollection.
pub fn filters(q: &[(String, String)]) -> Result<(Selector, Fields), ApiErr> {
    let labels = param(q, "labelSelector")
        .map(Selector::parse)
        .transpose()
        .map_err(|e| ApiErr::bad(e.to_string()))?
        .unwrap_or_default();
    let fields = param(q, "fieldSelector")
        .map(Fields::parse)
        .transpose()
        .map_err(|e| ApiErr::bad(e.to_string()))?
        .unwrap_or_default();
    Ok((labels, fields))
}

pub fn list(
    sim: &Arc<Sim>,
    t: &Target,
    q: &[(String, String)],
    as_table: bool,
) -> Result<HttpResponse, ApiErr> {
    let (labels, fields) = filters(q)?;
    let store = sim.lock();
    let items: Vec<Value> = store
        .list(&t.kind.resource(), t.namespace.as_deref())
        .into_iter()
        .filter(|(_, v)| labels.matches(&meta::labels(v)) && fields.matches(v))
        .map(|(_, v)| shown(t, v))
        .collect();
    if as_table {
        return Ok(HttpResponse::Ok().json(super::table::table(t, &items, store.rv())));
    }
    Ok(HttpResponse::Ok().json(json!({
        "kind": format!("{}List", t.kind.kind),
        "apiVersion": t.api_version(),
        "metadata": {"resourceVersion": store.rv().to_string()},
        "items": items,
    })))
}

pub fn get(sim: &Arc<Sim>, t: &Target, as_table: bool) -> Result<HttpResponse, ApiErr> {
    let store = sim.lock();
    let key = key_of(t);
    let v = store
        .get(&key)
        .cloned()
        .ok_or_else(|| ApiErr::not_found(&what(t), &key.2))?;
    if as_table && t.sub.is_none() {
        return Ok(HttpResponse::Ok().json(super::table::table(t, &[v], store.rv())));
    }
    Ok(HttpResponse::Ok().json(shown(t, v)))
}

fn review(t: &Target, mut body: Value) -> Value {
    let status = match t.kind.kind {
        "TokenReview" => {
            json!({"authenticated": false, "error": "kube-sim does not authenticate tokens"})
        }
        "SelfSubjectRulesReview" => json!({
            "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
            "nonResourceRules": [],
            "incomplete": false,
        }),
        _ => json!({"allowed": true, "reason": "kube-sim allows everything"}),
    };
    meta::set(&mut body, "/status", status);
    meta::set_str(&mut body, "/apiVersion", &t.api_version());
    meta::set_str(&mut body, "/kind", t.kind.kind);
    body
}

fn bind(sim: &Arc<Sim>, t: &Target, body: &Value) -> Result<HttpResponse, ApiErr> {
    let ns = ns_of(t);
    let pod = t.name.clone().unwrap_or_else(|| meta::name(body));
    let node = meta::str_at(body, "/target/name");
    if node.is_empty() {
        return Err(ApiErr::invalid(
            "Binding is invalid: target.name: Required value",
        ));
    }
    let mut store = sim.lock();
    let key: Key = ("/pods".into(), ns, pod.clone());
    let mut p = store
        .get(&key)
        .cloned()
        .ok_or_else(|| ApiErr::not_found("pods", &pod))?;
    meta::set_str(&mut p, "/spec/nodeName", &node);
    store.update(&key, p);
    Ok(HttpResponse::Created().json(json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201})))
}

pub fn create(sim: &Arc<Sim>, t: &Target, body: &[u8]) -> Result<HttpResponse, ApiErr> {
    let body = json_body(body)?;
    match (t.kind.kind, t.sub.as_deref()) {
        ("Binding", _) | ("Pod", Some("binding")) => return bind(sim, t, &body),
        ("Pod", Some("eviction")) => {
            let mut store = sim.lock();
            let key = key_of(t);
            objects::delete(&mut store, &key, DeleteOpts::default())
                .ok_or_else(|| ApiErr::not_found("pods", &key.2))?;
            return Ok(HttpResponse::Created().json(json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201})));
        }
        _ => {}
    }
    if t.name.is_some() {
        return Err(ApiErr::not_allowed("POST is not allowed on a named object"));
    }
    if !t.kind.persisted() {
        return Ok(HttpResponse::Created().json(review(t, body)));
    }
    if t.kind.namespaced && t.namespace.is_none() {
        return Err(ApiErr::other(
            404,
            "a namespaced resource is created under /namespaces/<ns>/",
        ));
    }
    let mut store = sim.lock();
    let v = objects::create(&mut store, t.kind, &ns_of(t), body)?;
    Ok(HttpResponse::Created().json(shown(t, v)))
}

pub fn update(sim: &Arc<Sim>, t: &Target, body: &[u8]) -> Result<HttpResponse, ApiErr> {
    let body = json_body(body)?;
    let mut store = sim.lock();
    let key = key_of(t);
    let v = objects::replace(
        &mut store,
        t.kind,
        &key,
        body,
        t.sub.as_deref() == Some("status"),
    )?;
    Ok(HttpResponse::Ok().json(shown(t, v)))
}

/// Applies a PATCH body of `content_type` to `current`.
pub fn patched(current: &Value, body: &[u8], content_type: &str) -> Result<Value, ApiErr> {
    let p = json_body(body)?;
    let mut new = current.clone();
    let ct = content_type.split(';').next().unwrap_or_default().trim();
    match ct {
        "application/merge-patch+json" => patch::merge(&mut new, &p),
        "application/strategic-merge-patch+json" | "application/apply-patch+yaml" => {
            patch::strategic(&mut new, &p)
        }
        "application/json-patch+json" => {
            patch::json_patch(&mut new, &p).map_err(|e| ApiErr::invalid(e.to_string()))?
        }
        other => {
            return Err(ApiErr::other(
                415,
                format!("the body of the request was in an unknown format ({other})"),
            ));
        }
    }
    Ok(new)
}

pub fn patch(sim: &Arc<Sim>, t: &Target, body: &[u8], ct: &str) -> Result<HttpResponse, ApiErr> {
    let mut store = sim.lock();
    let key = key_of(t);
    let current = store
        .get(&key)
        .cloned()
        .ok_or_else(|| ApiErr::not_found(&what(t), &key.2))?;
    let mut new = patched(&current, body, ct)?;
    // A patch that does not name a resource version applies to the current one.
    if new.pointer("/metadata/resourceVersion") == current.pointer("/metadata/resourceVersion") {
        meta::remove(&mut new, "/metadata/resourceVersion");
    }
    let v = objects::replace(
        &mut store,
        t.kind,
        &key,
        new,
        t.sub.as_deref() == Some("status"),
    )?;
    Ok(HttpResponse::Ok().json(shown(t, v)))
}

pub fn delete(
    sim: &Arc<Sim>,
    t: &Target,
    body: &[u8],
    q: &[(String, String)],
) -> Result<HttpResponse, ApiErr> {
    let opts = DeleteOpts::parse(&json_body(body)?, q)?;
    let mut store = sim.lock();
    let key = key_of(t);
    let v = objects::delete(&mut store, &key, opts)
        .ok_or_else(|| ApiErr::not_found(&what(t), &key.2))?;
    Ok(HttpResponse::Ok().json(shown(t, v)))
}

pub fn delete_collection(
    sim: &Arc<Sim>,
    t: &Target,
    body: &[u8],
    q: &[(String, String)],
) -> Result<HttpResponse, ApiErr> {
    let opts = DeleteOpts::parse(&json_body(body)?, q)?;
    let (labels, fields) = filters(q)?;
    let mut store = sim.lock();
    let keys: Vec<Key> = store
        .list(&t.kind.resource(), t.namespace.as_deref())
        .into_iter()
        .filter(|(_, v)| labels.matches(&meta::labels(v)) && fields.matches(v))
        .map(|(k, _)| k)
        .collect();
    let mut items = Vec::new();
    for k in keys {
        if let Some(v) = objects::delete(&mut store, &k, opts) {
            items.push(shown(t, v));
        }
    }
    Ok(HttpResponse::Ok().json(json!({
        "kind": format!("{}List", t.kind.kind),
        "apiVersion": t.api_version(),
        "metadata": {"resourceVersion": store.rv().to_string()},
        "items": items,
    })))
}
