//! `/version`, `/api`, `/apis` and the per group-version resource lists.

use actix_web::HttpResponse;
use serde_json::{Value, json};

use crate::registry::{self, KINDS};

/// `/version`.
pub fn version() -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "major": "1",
        "minor": "32",
        "gitVersion": "v1.32.0-kube-sim",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.23",
        "compiler": "gc",
        "platform": "linux/amd64",
    }))
}

/// `/api`.
pub fn core_versions() -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}],
    }))
}

fn group_json(group: &str, versions: &[&str]) -> Value {
    let vs: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{group}/{v}"), "version": v}))
        .collect();
    json!({
        "name": group,
        "versions": vs,
        "preferredVersion": vs.first().cloned().unwrap_or(Value::Null),
    })
}

/// `/apis`.
pub fn groups() -> HttpResponse {
    let groups: Vec<Value> = registry::groups()
        .into_iter()
        .map(|(g, v)| group_json(g, v))
        .collect();
    HttpResponse::Ok().json(json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}))
}

/// `/apis/<group>`.
pub fn group(group: &str) -> Option<HttpResponse> {
    let (g, v) = registry::groups().into_iter().find(|(g, _)| *g == group)?;
    let mut body = group_json(g, v);
    body["kind"] = json!("APIGroup");
    body["apiVersion"] = json!("v1");
    Some(HttpResponse::Ok().json(body))
}

/// `/api/v1` or `/apis/<group>/<version>`.
pub fn resources(group: &str, version: &str) -> Option<HttpResponse> {
    let kinds: Vec<_> = KINDS
        .iter()
        .filter(|k| k.group == group && k.versions.contains(&version))
        .collect();
    if kinds.is_empty() {
        return None;
    }
    let mut list = Vec::new();
    for k in kinds {
        list.push(json!({
            "name": k.plural,
            "singularName": k.kind.to_lowercase(),
            "namespaced": k.namespaced,
            "kind": k.kind,
            "verbs": k.verbs,
            "shortNames": k.short,
        }));
        for s in k.subresources {
            let (kind, verbs): (&str, &[&str]) = match *s {
                "scale" => ("Scale", &["get", "patch", "update"]),
                "binding" => ("Binding", &["create"]),
                "eviction" => ("Eviction", &["create"]),
                _ => (k.kind, &["get", "patch", "update"]),
            };
            let kind_json = if *s == "scale" {
                json!({"group": "autoscaling", "version": "v1", "kind": kind})
            } else {
                Value::Null
            };
            let mut r = json!({
                "name": format!("{}/{s}", k.plural),
                "singularName": "",
                "namespaced": k.namespaced,
                "kind": kind,
                "verbs": verbs,
            });
            if let Value::Object(o) = kind_json {
                r["group"] = o["group"].clone();
                r["version"] = o["version"].clone();
            }
            list.push(r);
        }
    }
    let gv = if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    Some(HttpResponse::Ok().json(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": gv,
        "resources": list,
    })))
}
