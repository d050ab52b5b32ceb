//! The Kubernetes REST API: URL parsing and one handler per verb.

pub mod admin;
pub mod discovery;
pub mod openapi;
mod resources;
mod scale;
mod table;
mod watch;

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, web};

use crate::Sim;
use crate::error::ApiErr;
use crate::registry::{self, Kind};

/// What a resource URL addresses.
#[derive(Debug, Clone)]
pub struct Target {
    /// The type.
    pub kind: &'static Kind,
    /// The version in the URL.
    pub version: String,
    /// The namespace in the URL.
    pub namespace: Option<String>,
    /// The object name.
    pub name: Option<String>,
    /// The subresource.
    pub sub: Option<String>,
}

impl Target {
    /// `apiVersion` as requested.
    pub fn api_version(&self) -> String {
        if self.kind.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.kind.group, self.version)
        }
    }
}

enum Route {
    Discovery(HttpResponse),
    Resource(Target),
}

fn route(path: &str) -> Result<Route, ApiErr> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let not_found = || {
        ApiErr::other(
            404,
            format!("the server could not find the requested resource ({path})"),
        )
    };
    let (group, version, rest) = match segs.as_slice() {
        ["api"] => return Ok(Route::Discovery(discovery::core_versions())),
        ["apis"] => return Ok(Route::Discovery(discovery::groups())),
        ["apis", g] => {
            return discovery::group(g)
                .map(Route::Discovery)
                .ok_or_else(not_found);
        }
        ["api", v, rest @ ..] => ("", *v, rest),
        ["apis", g, v, rest @ ..] => (*g, *v, rest),
        _ => return Err(not_found()),
    };
    if rest.is_empty() {
        return discovery::resources(group, version)
            .map(Route::Discovery)
            .ok_or_else(not_found);
    }
    let namespaced_kind =
        |plural: &str| registry::by_plural(group, version, plural).filter(|k| k.namespaced);
    let (namespace, rest) = match rest {
        ["namespaces", ns, plural, tail @ ..] if namespaced_kind(plural).is_some() => {
            (Some((*ns).to_owned()), {
                let mut v = vec![*plural];
                v.extend_from_slice(tail);
                v
            })
        }
        other => (None, other.to_vec()),
    };
    let kind = registry::by_plural(group, version, rest[0]).ok_or_else(not_found)?;
    if rest.len() > 3 {
        return Err(not_found());
    }
    let sub = rest.get(2).map(|s| (*s).to_owned());
    if let Some(s) = &sub
        && !kind.subresources.contains(&s.as_str())
    {
        return Err(not_found());
    }
    Ok(Route::Resource(Target {
        kind,
        version: version.to_owned(),
        namespace,
        name: rest.get(1).map(|s| (*s).to_owned()),
        sub,
    }))
}

fn verb(method: &str, t: &Target, watch: bool) -> &'static str {
    match (method, t.name.is_some()) {
        ("GET", false) if watch => "watch",
        ("GET", false) => "list",
        ("GET", true) => "get",
        ("POST", _) => "create",
        ("PUT", _) => "update",
        ("PATCH", _) => "patch",
        ("DELETE", false) => "deletecollection",
        ("DELETE", true) => "delete",
        _ => "unknown",
    }
}

/// Every `/api/...` and `/apis/...` request.
pub async fn dispatch(
    req: HttpRequest,
    body: web::Bytes,
    sim: web::Data<Arc<Sim>>,
) -> HttpResponse {
    let t = match route(req.path()) {
        Ok(Route::Discovery(r)) => return r,
        Ok(Route::Resource(t)) => t,
        Err(e) => return e.response(),
    };
    let query: Vec<(String, String)> =
        web::Query::<Vec<(String, String)>>::from_query(req.query_string())
            .map(|q| q.into_inner())
            .unwrap_or_default();
    let watch = query
        .iter()
        .any(|(k, v)| k == "watch" && (v == "true" || v == "1"));
    let method = req.method().as_str().to_owned();
    let v = verb(&method, &t, watch);
    let allowed = match &t.sub {
        None => t.kind.allows(v),
        Some(_) => matches!(v, "get" | "update" | "patch" | "create"),
    };
    if !allowed {
        return ApiErr::not_allowed(format!(
            "the server does not allow this method on the requested resource ({})",
            t.kind.plural
        ))
        .response();
    }
    if let Some((code, message)) =
        sim.lock()
            .faults
            .api_error(v, t.kind.plural, t.name.as_deref().unwrap_or_default())
    {
        return ApiErr::other(code, message).response();
    }
    let content_type = req
        .headers()
        .get("content-type")
        .and_then(|h| h.to_str().ok())
        .unwrap_or("application/json")
        .to_owned();
    // Typed clients send protobuf: the rest works on its JSON.
    let (body, content_type) = if content_type.starts_with(crate::protobuf::CONTENT_TYPE) {
        match crate::protobuf::to_json(&body) {
            Ok(v) => (
                web::Bytes::from(v.to_string()),
                "application/json".to_owned(),
            ),
            Err(e) => return e.response(),
        }
    } else {
        (body, content_type)
    };
    let accept = req
        .headers()
        .get("accept")
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let result = match v {
        "watch" => return watch::watch(&sim, &t, &query),
        "list" => resources::list(&sim, &t, &query, table::wanted(&accept)),
        "get" if t.sub.as_deref() == Some("scale") => scale::get(&sim, &t),
        "get" => resources::get(&sim, &t, table::wanted(&accept)),
        "create" => resources::create(&sim, &t, &body),
        "update" if t.sub.as_deref() == Some("scale") => scale::update(&sim, &t, &body, None),
        "update" => resources::update(&sim, &t, &body),
        "patch" if t.sub.as_deref() == Some("scale") => {
            scale::update(&sim, &t, &body, Some(&content_type))
        }
        "patch" => resources::patch(&sim, &t, &body, &content_type),
        "delete" => resources::delete(&sim, &t, &body, &query),
        "deletecollection" => resources::delete_collection(&sim, &t, &body, &query),
        _ => Err(ApiErr::not_allowed(format!(
            "method {method} is not supported"
        ))),
    };
    if matches!(
        v,
        "create" | "update" | "patch" | "delete" | "deletecollection"
    ) {
        sim.kick();
    }
    match result {
        Ok(r) => r,
        Err(e) => e.response(),
    }
}
