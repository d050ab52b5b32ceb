//! Authentication and roles (`[auth]`).
//!
//! [`authenticate`] wraps the whole app: under mode `none` every request is the local
//! administrator (after a `Host` check against DNS rebinding); under `oauth2` and
//! `keystone` a bearer token (`Authorization: Bearer` or `X-Auth-Token`) is verified (a
//! JWT by its signature, an opaque token by Keystone or an introspection endpoint) and
//! the caller put into the request. Each route then names what it needs ([`Access`], in the `api!` table),
//! checked by [`reader`], [`member`], [`admin`] or [`metrics`]: 401 without a valid
//! token, 403 without the role. State-changing requests leave one `tacker::audit` line.

mod client_secret;
mod introspection;
mod keystone;
mod principal;
mod signing_key;
mod token_cache;
mod token_endpoint;
mod verifier;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, web};

pub use client_secret::hash as hash_secret;
pub use introspection::Introspection;
pub use keystone::{Keystone, ServiceUser};
pub use principal::{ALERT_ROLE, Principal, Role};
pub use signing_key::SigningKey;
pub use token_endpoint::{BuiltinClient, Issuer, TokenLimits, issue, jwks};
pub use verifier::{Claims, Opaque, Refusal, Verifier};

use crate::{ApiError, ServerState};

/// The client that asks an identity service (Keystone, an introspection endpoint):
/// 5 s per request, no redirects (a token is never sent elsewhere).
fn identity_client() -> Result<reqwest::Client, AuthError> {
    reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(5))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| AuthError::Key(format!("HTTP client: {e}")))
}

/// Errors setting authentication up.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// A key could not be read or made.
    #[error("{0}")]
    Key(String),
}

/// What a route needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone (health, api_versions, the token endpoint).
    Public,
    /// `reader` and above.
    Reader,
    /// `member` and above.
    Member,
    /// `admin`.
    Admin,
    /// `admin`, or anyone when `auth.public_metrics`.
    Metrics,
    /// The `alert` role (a monitoring system's client), or `admin`.
    Alert,
}

impl Access {
    /// The role it needs (`None`: public).
    pub fn role(self) -> Option<Role> {
        match self {
            Access::Public => None,
            Access::Reader => Some(Role::Reader),
            Access::Member => Some(Role::Member),
            Access::Admin | Access::Metrics | Access::Alert => Some(Role::Admin),
        }
    }
}

/// How callers are authenticated.
#[derive(Debug)]
pub enum Mode {
    /// Everyone is the local administrator; `hosts` (when given) are the `Host` names
    /// answered besides loopback ones.
    None {
        /// Check `Host` (off when `auth.allow_insecure_none`).
        check_host: bool,
        /// Further accepted host names (from `server.public_url`).
        hosts: Vec<String>,
    },
    /// Bearer tokens (JWTs; opaque ones through Keystone or introspection).
    OAuth2(Box<Verifier>),
}

/// The authentication settings of a server.
#[derive(Debug)]
pub struct Auth {
    /// The mode.
    pub mode: Mode,
    /// The built-in token endpoint, when it has a key.
    pub issuer: Option<Issuer>,
    /// `/metrics` without a token.
    pub public_metrics: bool,
}

impl Auth {
    /// Mode `none` checking `Host` against loopback names and `public_host`.
    pub fn none(public_host: Option<String>) -> Self {
        Self {
            mode: Mode::None {
                check_host: true,
                hosts: public_host.into_iter().collect(),
            },
            issuer: None,
            public_metrics: true,
        }
    }
}

/// Why a presented token was refused (kept for the route's check: public routes
/// ignore it).
#[derive(Debug, Clone)]
struct Refused(Refusal);

/// An HTTP client error with its causes ("error sending request: ... Connection refused").
fn http_error(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// The name in a `Host` value (no port, no brackets).
fn host_name(host: &str) -> &str {
    match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    }
}

fn loopback_host(host: &str) -> bool {
    let name = host_name(host);
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn bearer(req: &ServiceRequest) -> Option<String> {
    let h = req.headers();
    if let Some(v) = h
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        && let Some((scheme, token)) = v.split_once(' ')
        && scheme.eq_ignore_ascii_case("bearer")
    {
        return Some(token.trim().to_owned());
    }
    h.get("x-auth-token")
        .and_then(|v| v.to_str().ok())
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
}

/// The app-wide middleware: who is calling; the audit line after the answer.
pub async fn authenticate<B: MessageBody>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<ServerState>>().cloned() else {
        let e = ApiError::Internal("no server state".into());
        return Ok(req.error_response(e).map_into_right_body());
    };
    match &state.auth.mode {
        Mode::None { check_host, hosts } => {
            // The Host header itself (not X-Forwarded-Host): what a browser sends.
            let host = req
                .headers()
                .get(actix_web::http::header::HOST)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
                .or_else(|| req.uri().authority().map(|a| a.to_string()))
                .unwrap_or_default();
            if *check_host
                && !host.is_empty()
                && !loopback_host(&host)
                && !hosts
                    .iter()
                    .any(|h| h.eq_ignore_ascii_case(host_name(&host)))
            {
                let e = ApiError::Forbidden(format!(
                    "host {host:?} is not served: with auth.mode = \"none\" only loopback names \
                     and server.public_url are answered"
                ));
                return Ok(req.error_response(e).map_into_right_body());
            }
            req.extensions_mut().insert(Principal::local());
        }
        Mode::OAuth2(verifier) => {
            if let Some(token) = bearer(&req) {
                let cert = req.conn_data::<crate::tls::ClientCert>().cloned();
                match verifier.verify(&token).await {
                    Ok(p)
                        if p.bound_to
                            .as_ref()
                            .is_some_and(|b| cert.as_ref().is_none_or(|c| c.0 != *b)) =>
                    {
                        req.extensions_mut().insert(Refused(Refusal::Invalid(
                            "the token is bound to a client certificate this connection did not present"
                                .into(),
                        )));
                    }
                    Ok(p) => {
                        req.extensions_mut().insert(p);
                    }
                    Err(why) => {
                        req.extensions_mut().insert(Refused(why));
                    }
                }
            }
        }
    }
    // The token endpoint writes its own lines (which client, which scope).
    let writes = !matches!(req.method().as_str(), "GET" | "HEAD" | "OPTIONS")
        && !req.path().starts_with("/oauth2/");
    let res = next.call(req).await?;
    if writes {
        audit(&res);
    }
    Ok(res.map_into_left_body())
}

/// One line per state-changing request: who, what, on which resource, with what outcome
/// (never bodies). The request id is on the enclosing `request` span.
fn audit<B>(res: &ServiceResponse<B>) {
    let req = res.request();
    let ext = req.extensions();
    let who = ext.get::<Principal>();
    // A creation names its resource in Location.
    let created = res
        .headers()
        .get(actix_web::http::header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|l| l.rsplit('/').next());
    tracing::info!(
        target: "tacker::audit",
        principal = who.map_or("-", |p| p.subject.as_str()),
        tenant = who.and_then(|p| p.tenant.as_deref()).unwrap_or("-"),
        method = %req.method(),
        route = req.match_pattern().as_deref().unwrap_or("-"),
        resource_id = req.match_info().get("id").or(created).unwrap_or("-"),
        status = res.status().as_u16(),
        "audit"
    );
}

/// What a gate lets through.
#[derive(Debug, Clone, Copy)]
enum Need {
    /// A role (or one above it).
    Role(Role),
    /// The `alert` role, or `admin`.
    Alert,
}

fn check(req: &ServiceRequest, need: Need) -> Result<(), ApiError> {
    let ext = req.extensions();
    if let Some(p) = ext.get::<Principal>() {
        let (may, name) = match need {
            Need::Role(r) => (p.may(r), r.name()),
            Need::Alert => (p.may_alert(), "alert (or admin)"),
        };
        return if may {
            Ok(())
        } else {
            Err(ApiError::Forbidden(format!("this needs the {name} role")))
        };
    }
    match ext.get::<Refused>() {
        Some(Refused(Refusal::Invalid(why))) => Err(ApiError::Unauthorized(why.clone())),
        Some(Refused(Refusal::Unavailable(why))) => Err(ApiError::Unavailable(format!(
            "the token cannot be checked now ({why}); try again"
        ))),
        None => Err(ApiError::Unauthorized(
            "a bearer token is required (Authorization: Bearer or X-Auth-Token)".into(),
        )),
    }
}

/// Answers the check's refusal, or goes on.
async fn gate<B: MessageBody>(
    req: ServiceRequest,
    next: Next<B>,
    need: Option<Need>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    if let Some(need) = need
        && let Err(e) = check(&req, need)
    {
        return Ok(req.error_response(e).map_into_right_body());
    }
    next.call(req)
        .await
        .map(ServiceResponse::map_into_left_body)
}

macro_rules! role_gates {
    ($($name:ident => $role:ident),+) => {$(
        #[doc = concat!("Needs `", stringify!($name), "`.")]
        pub async fn $name<B: MessageBody + 'static>(
            req: ServiceRequest,
            next: Next<B>,
        ) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
            gate(req, next, Some(Need::Role(Role::$role))).await
        }
    )+};
}

role_gates!(reader => Reader, member => Member, admin => Admin);

/// Needs `admin` unless `auth.public_metrics`.
pub async fn metrics<B: MessageBody + 'static>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    let public = req
        .app_data::<web::Data<ServerState>>()
        .is_some_and(|s| s.auth.public_metrics);
    gate(req, next, (!public).then_some(Need::Role(Role::Admin))).await
}

/// Needs `alert` or `admin`.
pub async fn alert<B: MessageBody + 'static>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    gate(req, next, Some(Need::Alert)).await
}

#[cfg(test)]
mod tests {
    use super::loopback_host;

    #[test]
    fn loopback_hosts_are_recognised_with_or_without_port() {
        for h in [
            "localhost",
            "127.0.0.1:9890",
            "[::1]:9890",
            "LOCALHOST:80",
            "127.3.4.5",
        ] {
            assert!(loopback_host(h), "{h}");
        }
        for h in ["evil.example", "10.0.0.1:9890", "localhost.evil.example"] {
            assert!(!loopback_host(h), "{h}");
        }
    }
}
