//! `POST /oauth2/token`: the client credentials grant (RFC 6749 §4.4) for deployments
//! without Keystone or Keycloak, with `client_secret_basic` and `client_secret_post`,
//! `scope` narrowing the roles, errors as §5.2 says; `GET /oauth2/jwks` publishes the
//! key its tokens are signed with.
//!
//! Anyone may call it, and each call checks a secret with Argon2id (19 MiB of memory and
//! tens of milliseconds, unknown clients included, so they take as long): requests are
//! limited per address and per client id before any check (429 with `Retry-After`), and
//! at most `auth.token_concurrency` checks run at once, a few more requests waiting
//! briefly for a place, the rest answered 503 with `Retry-After` at once. Memory stays
//! bounded whatever arrives.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::json;

use super::{Role, SigningKey, client_secret};
use crate::{ApiError, ServerState};

/// A client of the built-in endpoint.
#[derive(Debug, Clone)]
pub struct BuiltinClient {
    /// Argon2id PHC string of its secret.
    pub secret_hash: String,
    /// The highest role it may be granted.
    pub role: Option<Role>,
    /// Its tenant.
    pub tenant: Option<String>,
    /// Its attribute roles (`VENDOR_<provider>`, `AREA_<area>`, `TENANT_<name>`), put into
    /// every token it gets whatever the scope.
    pub attributes: Vec<String>,
}

impl BuiltinClient {
    /// The tenant and attribute claims a token of this client carries.
    pub(crate) fn claims(&self) -> serde_json::Value {
        let mut c = json!({ "roles": self.attributes });
        if let Some(t) = &self.tenant {
            c["tenant"] = json!(t);
        }
        c
    }
}

/// How long a token request waits for a place among the secret checks in flight.
const CHECK_WAIT: Duration = Duration::from_secs(2);
/// Requests that may wait for a place, per place: beyond them a request is answered 503
/// at once (a waiting request holds its connection's buffers).
const WAITING_PER_CHECK: usize = 8;

/// The bounds of the token endpoint: requests per address and per client id, secret
/// checks at once.
#[derive(Debug)]
pub struct TokenLimits {
    checks: Arc<tokio::sync::Semaphore>,
    waiting: Arc<tokio::sync::Semaphore>,
    pool: client_secret::CheckPool,
    by_address: crate::limits::Buckets,
    by_client: crate::limits::Buckets,
}

impl TokenLimits {
    /// `concurrency` checks at once; `rate` requests per second (with `burst` at once)
    /// per address and per client id.
    pub fn new(concurrency: usize, rate: u32, burst: u32) -> Self {
        Self {
            checks: Arc::new(tokio::sync::Semaphore::new(concurrency.max(1))),
            waiting: Arc::new(tokio::sync::Semaphore::new(
                concurrency.max(1) * WAITING_PER_CHECK,
            )),
            pool: client_secret::CheckPool::new(concurrency),
            by_address: crate::limits::Buckets::new(rate, burst),
            by_client: crate::limits::Buckets::new(rate, burst),
        }
    }
}

/// A §5.2-shaped refusal that asks the client to come back later.
fn later(status: u16, error: &str, description: &str, after: u64) -> HttpResponse {
    let mut r = refuse(status, error, description, false);
    if let Ok(v) = header::HeaderValue::from_str(&after.to_string()) {
        r.headers_mut().insert(header::RETRY_AFTER, v);
    }
    r
}

/// The built-in authorization server.
#[derive(Debug)]
pub struct Issuer {
    /// The signing key.
    pub key: SigningKey,
    /// Clients by id (the verifier checks tokens against the same map).
    pub clients: Arc<HashMap<String, BuiltinClient>>,
    /// Token lifetime.
    pub lifetime: Duration,
    /// `iss` written into tokens.
    pub issuer: String,
    /// `aud` written into tokens.
    pub audience: String,
    /// Checked for unknown client ids, so they take as long as known ones.
    pub decoy_hash: String,
    /// Requests per address and client id, checks at once.
    pub limits: TokenLimits,
}

/// A §5.2 error answer.
fn refuse(status: u16, error: &str, description: &str, basic: bool) -> HttpResponse {
    let code = actix_web::http::StatusCode::from_u16(status)
        .unwrap_or(actix_web::http::StatusCode::BAD_REQUEST);
    let mut r = HttpResponse::build(code);
    r.insert_header((header::CACHE_CONTROL, "no-store"));
    if basic {
        r.insert_header((header::WWW_AUTHENTICATE, "Basic realm=\"tacker\""));
    }
    r.json(json!({"error": error, "error_description": description}))
}

/// The credentials in `Authorization: Basic` (each part form-urlencoded, §2.3.1).
fn basic_credentials(req: &HttpRequest) -> Option<Option<(String, String)>> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, rest) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = STANDARD
        .decode(rest.trim())
        .ok()
        .and_then(|b| String::from_utf8(b).ok());
    Some(decoded.and_then(|d| {
        let (id, secret) = d.split_once(':')?;
        let dec = |s: &str| {
            url::form_urlencoded::parse(format!("x={s}").as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
        };
        Some((dec(id)?, dec(secret)?))
    }))
}

/// `POST /oauth2/token`
pub async fn issue(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<ServerState>,
) -> Result<HttpResponse, ApiError> {
    let Some(issuer) = state.auth.issuer.as_ref() else {
        return Err(ApiError::NotFound(
            "no built-in token endpoint: auth.signing_key_file is not set".into(),
        ));
    };
    let address = req
        .peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_default();
    if let Err(after) = issuer.limits.by_address.take(&address) {
        tracing::warn!(target: "tacker::audit", %address, "token request refused: too many from this address");
        return Ok(later(
            429,
            "invalid_request",
            &format!("too many token requests from this address; retry after {after} s"),
            after,
        ));
    }
    let form_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if !form_type {
        return Ok(refuse(
            400,
            "invalid_request",
            "the body must be application/x-www-form-urlencoded",
            false,
        ));
    }
    let mut params: HashMap<String, String> = HashMap::new();
    for (k, v) in url::form_urlencoded::parse(&body) {
        if params.insert(k.into_owned(), v.into_owned()).is_some() {
            return Ok(refuse(
                400,
                "invalid_request",
                "a parameter is repeated",
                false,
            ));
        }
    }
    let basic = basic_credentials(&req);
    let (id, secret) = match (basic.clone(), params.get("client_id")) {
        (Some(_), Some(_)) if params.contains_key("client_secret") => {
            return Ok(refuse(
                400,
                "invalid_request",
                "more than one client authentication method",
                false,
            ));
        }
        (Some(Some(pair)), _) => pair,
        (Some(None), _) => {
            return Ok(refuse(
                401,
                "invalid_client",
                "malformed Basic credentials",
                true,
            ));
        }
        (None, Some(id)) => (
            id.clone(),
            params.get("client_secret").cloned().unwrap_or_default(),
        ),
        (None, None) => {
            return Ok(refuse(
                401,
                "invalid_client",
                "no client authentication",
                true,
            ));
        }
    };
    if let Err(after) = issuer.limits.by_client.take(&id) {
        tracing::warn!(target: "tacker::audit", client_id = %id, "token request refused: too many for this client");
        return Ok(later(
            429,
            "invalid_request",
            &format!("too many token requests for this client; retry after {after} s"),
            after,
        ));
    }
    let client = issuer.clients.get(&id).cloned();
    let hash = client
        .as_ref()
        .map_or(issuer.decoy_hash.clone(), |c| c.secret_hash.clone());
    // One place among the checks in flight, or 503: at once when too many wait already,
    // else after a brief wait.
    let busy = || {
        later(
            503,
            "temporarily_unavailable",
            "as many client secrets as auth.token_concurrency are being checked; retry later",
            1,
        )
    };
    let place = match issuer.limits.checks.clone().try_acquire_owned() {
        Ok(p) => p,
        Err(_) => {
            let Ok(_waiting) = issuer.limits.waiting.clone().try_acquire_owned() else {
                return Ok(busy());
            };
            match tokio::time::timeout(CHECK_WAIT, issuer.limits.checks.clone().acquire_owned())
                .await
            {
                Ok(Ok(p)) => p,
                _ => return Ok(busy()),
            }
        }
    };
    let ok = issuer
        .limits
        .pool
        .matches(secret, hash, place)
        .await
        .ok_or_else(|| ApiError::Internal("no thread checks client secrets".into()))?;
    let Some(client) = client.filter(|_| ok) else {
        tracing::warn!(target: "tacker::audit", client_id = %id, "token refused: wrong client credentials");
        return Ok(refuse(
            401,
            "invalid_client",
            "unknown client or wrong secret",
            basic.is_some(),
        ));
    };
    match params.get("grant_type").map(String::as_str) {
        Some("client_credentials") => {}
        Some(_) => {
            return Ok(refuse(
                400,
                "unsupported_grant_type",
                "only client_credentials is supported",
                false,
            ));
        }
        None => {
            return Ok(refuse(
                400,
                "invalid_request",
                "grant_type is missing",
                false,
            ));
        }
    }
    let allowed: Vec<Role> = [Role::Reader, Role::Member, Role::Admin]
        .into_iter()
        .filter(|r| client.role.is_some_and(|top| *r <= top))
        .collect();
    let granted: Vec<Role> = match params.get("scope").filter(|s| !s.trim().is_empty()) {
        None => client.role.into_iter().collect(),
        Some(scope) => {
            let mut g = Vec::new();
            for name in scope.split_whitespace() {
                // The alert role comes with every token of a client that holds it.
                if name == super::ALERT_ROLE && client.attributes.iter().any(|a| a == name) {
                    continue;
                }
                match Role::parse(name).filter(|r| allowed.contains(r)) {
                    Some(r) => g.push(r),
                    None => {
                        return Ok(refuse(
                            400,
                            "invalid_scope",
                            &format!("scope {name:?} is not granted to this client"),
                            false,
                        ));
                    }
                }
            }
            g
        }
    };
    let names: Vec<&str> = granted.iter().map(|r| r.name()).collect();
    let now = chrono::Utc::now().timestamp();
    let lifetime = i64::try_from(issuer.lifetime.as_secs()).unwrap_or(3600);
    let mut claims = json!({
        "iss": issuer.issuer,
        "sub": id,
        "aud": issuer.audience,
        "iat": now,
        "nbf": now,
        "exp": now + lifetime,
        "jti": uuid::Uuid::new_v4().to_string(),
        "scope": names.join(" "),
        "client_id": id,
    });
    let roles: Vec<&str> = names
        .iter()
        .copied()
        .chain(client.attributes.iter().map(String::as_str))
        .collect();
    claims["roles"] = json!(roles);
    if let Some(t) = &client.tenant {
        claims["tenant"] = json!(t);
    }
    // Over mutual TLS the token is bound to the client's certificate (RFC 8705 §3).
    if let Some(cert) = req.conn_data::<crate::tls::ClientCert>() {
        claims["cnf"] = json!({"x5t#S256": cert.0});
    }
    let mut head = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::EdDSA);
    head.kid = Some(issuer.key.kid().to_owned());
    let token = jsonwebtoken::encode(&head, &claims, issuer.key.encoding())
        .map_err(|e| ApiError::Internal(format!("signing a token: {e}")))?;
    tracing::info!(target: "tacker::audit", client_id = %id, scope = %names.join(" "), "token issued");
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::PRAGMA, "no-cache"))
        .json(json!({
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": lifetime,
            "scope": names.join(" "),
        })))
}

/// `GET /oauth2/jwks`
pub async fn jwks(state: web::Data<ServerState>) -> Result<HttpResponse, ApiError> {
    let keys: Vec<serde_json::Value> = state.auth.issuer.iter().map(|i| i.key.jwk()).collect();
    Ok(HttpResponse::Ok().json(json!({ "keys": keys })))
}
