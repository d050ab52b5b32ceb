//! `/openapi.json`, generated from the route table ([`super::ROUTES`]) the server is
//! configured from, so it lists exactly what is routed.

use actix_web::HttpResponse;
use serde_json::{Map, Value, json};

/// One path of the API.
#[derive(Debug)]
pub struct Route {
    /// The path (actix pattern).
    pub path: &'static str,
    /// The ETSI definition it implements (`None`: our extension).
    pub standard: Option<&'static str>,
    /// The `Version` header its API requires (`/vnflcm/v2`, `/vnffm/v1`).
    pub version: Option<&'static str>,
    /// `(method, what it needs, summary)`.
    pub ops: &'static [(&'static str, crate::auth::Access, &'static str)],
}

/// The OpenAPI path of an actix pattern (`{path:.+}` -> `{path}`).
pub fn openapi_path(p: &str) -> String {
    p.split('/')
        .map(
            |seg| match seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(inner) => format!("{{{}}}", inner.split(':').next().unwrap_or(inner)),
                None => seg.to_owned(),
            },
        )
        .collect::<Vec<_>>()
        .join("/")
}

fn operation(r: &Route, method: &str, access: crate::auth::Access, summary: &str) -> Value {
    let mut params: Vec<Value> = openapi_path(r.path)
        .split('/')
        .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    if let Some(v) = r.version
        && !r.path.ends_with("/api_versions")
    {
        params.push(json!({"name": "Version", "in": "header", "required": true, "schema": {"type": "string", "example": v}}));
    }
    let tag = r
        .path
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or_default();
    let mut op = json!({
        "summary": summary,
        "operationId": format!("{method}{}", openapi_path(r.path).replace(['/', '{', '}', '.', '_'], "-")),
        "tags": [tag],
        "parameters": params,
        "responses": {
            "default": {
                "description": "An error",
                "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/ProblemDetails"}}},
            },
            "2XX": {"description": "Success"},
        },
    });
    if let Some(s) = r.standard {
        op["description"] = json!(format!("As defined by ETSI GS NFV-{s}."));
    } else {
        op["description"] = json!("Tacker extension.");
    }
    op["security"] = match access.role() {
        None => json!([]),
        Some(role) => json!([{"oauth2": [role.name()]}, {"bearer": []}]),
    };
    if let Some(role) = access.role() {
        op["x-required-role"] = json!(role.name());
        op["responses"]["401"] = json!({"description": "No valid token"});
        op["responses"]["403"] =
            json!({"description": format!("The caller lacks the {} role", role.name())});
    }
    op
}

/// The document.
pub fn spec() -> Value {
    let mut paths = Map::new();
    for r in super::ROUTES {
        let mut item = Map::new();
        for (method, access, summary) in r.ops {
            item.insert((*method).to_owned(), operation(r, method, *access, summary));
        }
        paths.insert(openapi_path(r.path), Value::Object(item));
    }
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "Tacker (Rust) VNF manager",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "ETSI NFV-SOL005 VNF package management (/vnfpkgm/v1), SOL003/SOL002 VNF lifecycle management (/vnflcm/v2), and administration.",
        },
        "paths": paths,
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
                "oauth2": {"type": "oauth2", "flows": {"clientCredentials": {
                    "tokenUrl": "/oauth2/token",
                    "scopes": {
                        "reader": "read",
                        "member": "read and write (SOL003/SOL005)",
                        "admin": "administration, every tenant",
                    },
                }}},
            },
            "schemas": {"ProblemDetails": {
            "type": "object",
            "required": ["status", "detail"],
            "properties": {
                "type": {"type": "string"},
                "title": {"type": "string"},
                "status": {"type": "integer"},
                "detail": {"type": "string"},
                "instance": {"type": "string"},
            },
        }}},
    })
}

/// `GET /openapi.json`.
pub async fn document() -> HttpResponse {
    HttpResponse::Ok().json(spec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actix_patterns_become_openapi_paths() {
        assert_eq!(
            openapi_path("/a/{id}/artifacts/{path:.+}"),
            "/a/{id}/artifacts/{path}"
        );
    }

    #[test]
    fn every_route_is_documented_once() {
        let doc = spec();
        let n: usize = super::super::ROUTES.iter().map(|r| r.ops.len()).sum();
        let documented: usize = doc["paths"]
            .as_object()
            .unwrap()
            .values()
            .map(|p| p.as_object().unwrap().len())
            .sum();
        assert_eq!(n, documented);
    }
}
