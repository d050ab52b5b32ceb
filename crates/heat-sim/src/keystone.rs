//! Keystone v3: version discovery and password authentication for one user in one
//! project; tokens with a configurable lifetime and a catalog naming this Heat.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::Sim;
use crate::error::SimError;

/// The identity this Keystone knows.
#[derive(Debug, Clone)]
pub struct Identity {
    /// User name.
    pub user: String,
    /// Password.
    pub password: String,
    /// Project name.
    pub project: String,
    /// Project id (the tenant in Heat URLs).
    pub project_id: String,
    /// Token lifetime.
    pub token_lifetime: Duration,
    /// Region of the catalog endpoints.
    pub region: String,
}

/// Issued tokens and when they expire.
#[derive(Debug, Default)]
pub struct Tokens {
    issued: Mutex<HashMap<String, DateTime<Utc>>>,
    /// Requests refused for their token (expired, revoked, unknown).
    refused: std::sync::atomic::AtomicUsize,
}

impl Tokens {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, DateTime<Utc>>> {
        self.issued
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Issues a token valid for `lifetime`.
    pub fn issue(&self, lifetime: Duration) -> (String, DateTime<Utc>) {
        let token = format!("gAAAAA{}", Uuid::new_v4().simple());
        let expires = Utc::now() + chrono::Duration::from_std(lifetime).unwrap_or_default();
        self.lock().insert(token.clone(), expires);
        (token, expires)
    }

    /// Whether `token` is valid now.
    pub fn valid(&self, token: &str) -> bool {
        self.lock().get(token).is_some_and(|e| *e > Utc::now())
    }

    /// How many tokens were issued.
    pub fn issued(&self) -> usize {
        self.lock().len()
    }

    /// How many requests were refused for their token.
    pub fn refused(&self) -> usize {
        self.refused.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Expires every token at once (as if their lifetime ran out).
    pub fn expire_all(&self) {
        let past = Utc::now() - chrono::Duration::seconds(1);
        for e in self.lock().values_mut() {
            *e = past;
        }
    }
}

/// Checks the request's `X-Auth-Token`: one of ours, or one the real Keystone behind
/// heat-sim (if any) vouches for.
pub async fn authorize(req: &HttpRequest, sim: &Sim) -> Result<(), SimError> {
    let token = req
        .headers()
        .get("x-auth-token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let external = sim.engine.external.as_ref();
    if sim.tokens.valid(token) {
        if let Some(x) = external {
            x.seen(token);
        }
        return Ok(());
    }
    if !token.is_empty()
        && let Some(x) = external
        && x.validate(token).await
    {
        return Ok(());
    }
    sim.tokens
        .refused
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Err(SimError::unauthorized(
        "The request you have made requires authentication.",
    ))
}

fn version(base: &str) -> Value {
    json!({
        "id": "v3.14",
        "status": "stable",
        "updated": "2020-04-07T00:00:00Z",
        "links": [{"rel": "self", "href": format!("{base}/v3/")}],
        "media-types": [{"base": "application/json", "type": "application/vnd.openstack.identity-v3+json"}],
    })
}

/// `GET /`: the versions of the identity API.
pub async fn versions(sim: web::Data<Sim>) -> HttpResponse {
    HttpResponse::MultipleChoices().json(json!({"versions": {"values": [version(&sim.url)]}}))
}

/// `GET /v3`: this version.
pub async fn v3(sim: web::Data<Sim>) -> HttpResponse {
    HttpResponse::Ok().json(json!({"version": version(&sim.url)}))
}

fn named(v: &Value, what: &str) -> Option<String> {
    v.pointer(what).and_then(Value::as_str).map(str::to_owned)
}

fn in_default_domain(v: &Value, path: &str) -> bool {
    match v.pointer(path) {
        None | Some(Value::Null) => true,
        Some(d) => {
            named(d, "/name").is_some_and(|n| n.eq_ignore_ascii_case("default"))
                || named(d, "/id").is_some_and(|i| i == "default")
        }
    }
}

/// `POST /v3/auth/tokens`: password authentication scoped to the project.
pub async fn issue(sim: web::Data<Sim>, body: web::Json<Value>) -> Result<HttpResponse, SimError> {
    let id = &sim.identity;
    let auth = &body.0;
    let user = named(auth, "/auth/identity/password/user/name").unwrap_or_default();
    let password = named(auth, "/auth/identity/password/user/password").unwrap_or_default();
    let ok_user = user == id.user
        && password == id.password
        && in_default_domain(auth, "/auth/identity/password/user/domain");
    if !ok_user {
        return Err(SimError::unauthorized(
            "The request you have made requires authentication.",
        ));
    }
    let project = named(auth, "/auth/scope/project/name");
    let project_id = named(auth, "/auth/scope/project/id");
    let ok_scope = match (project, project_id) {
        (Some(p), _) => p == id.project && in_default_domain(auth, "/auth/scope/project/domain"),
        (None, Some(pid)) => pid == id.project_id,
        (None, None) => true,
    };
    if !ok_scope {
        return Err(SimError::unauthorized(format!(
            "User {user} has no access to the project."
        )));
    }
    let (token, expires) = sim.tokens.issue(id.token_lifetime);
    let domain = json!({"id": "default", "name": "Default"});
    let endpoint = |url: String| {
        ["public", "internal", "admin"]
            .iter()
            .map(|i| {
                json!({"id": Uuid::new_v4().simple().to_string(), "interface": i,
                       "region": id.region, "region_id": id.region, "url": url})
            })
            .collect::<Vec<_>>()
    };
    let body = json!({"token": {
        "methods": ["password"],
        "user": {"domain": domain, "id": "sim-user", "name": id.user, "password_expires_at": null},
        "audit_ids": [Uuid::new_v4().simple().to_string()],
        "expires_at": expires.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string(),
        "issued_at": Utc::now().format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string(),
        "project": {"domain": domain, "id": id.project_id, "name": id.project},
        "is_domain": false,
        "roles": [{"id": "sim-admin", "name": "admin"}, {"id": "sim-member", "name": "member"}],
        "catalog": [
            {"id": "sim-heat", "type": "orchestration", "name": "heat",
             "endpoints": endpoint(format!("{}/heat-api/v1/{}", sim.url, id.project_id))},
            {"id": "sim-nova", "type": "compute", "name": "nova",
             "endpoints": endpoint(format!("{}/compute/v2.1", sim.url))},
            {"id": "sim-keystone", "type": "identity", "name": "keystone",
             "endpoints": endpoint(format!("{}/v3", sim.url))},
        ],
    }});
    Ok(HttpResponse::Created()
        .insert_header(("X-Subject-Token", token))
        .json(body))
}

/// `GET /v3/auth/tokens`: validates `X-Subject-Token` (200 or 404).
pub async fn validate(req: HttpRequest, sim: web::Data<Sim>) -> Result<HttpResponse, SimError> {
    authorize(&req, &sim).await?;
    let subject = req
        .headers()
        .get("x-subject-token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if sim.tokens.valid(subject) {
        Ok(HttpResponse::Ok().json(json!({"token": {"methods": ["password"]}})))
    } else {
        Err(SimError::not_found("Could not find token"))
    }
}
