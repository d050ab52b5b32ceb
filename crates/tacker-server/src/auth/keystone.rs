//! Keystone tokens (`auth.mode = "keystone"`), checked as keystonemiddleware checks
//! them: `GET /v3/auth/tokens` with the caller's token in `X-Subject-Token` and a service
//! user's token in `X-Auth-Token` (logged in with a password, renewed before it expires
//! or when Keystone refuses it). The caller's project is its tenant; Keystone's roles
//! `reader`, `member` and `admin` (and `VENDOR_`, `AREA_`, `alert`) are its roles.
//! Answers are cached ([`TokenCache`]); Keystone unreachable is [`Refusal::Unavailable`].

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use tokio::sync::Mutex;

use super::token_cache::TokenCache;
use super::verifier::Refusal;
use super::{AuthError, Principal};

/// How long one call to Keystone may take.
/// The service token is renewed this long before it expires.
const RENEW_BEFORE: Duration = Duration::from_secs(60);

/// The service user's settings.
#[derive(Clone)]
pub struct ServiceUser {
    /// Its name.
    pub username: String,
    /// Its password.
    pub password: String,
    /// The project its token is scoped to.
    pub project: String,
    /// Its domain's name.
    pub user_domain: String,
    /// The project's domain's name.
    pub project_domain: String,
}

crate::debug_shows!(ServiceUser, "ServiceUser", username, project);

/// Checks tokens with Keystone.
#[derive(Debug)]
pub struct Keystone {
    /// `.../v3`, without a trailing slash.
    url: String,
    user: ServiceUser,
    http: reqwest::Client,
    /// The service token and when it expires.
    service_token: Mutex<Option<(String, DateTime<Utc>)>>,
    cache: TokenCache,
}

impl Keystone {
    /// A checker asking Keystone at `url` (its `/v3` URL) as `user`, keeping answers
    /// `cache` at most.
    pub fn new(url: &str, user: ServiceUser, cache: Duration) -> Result<Self, AuthError> {
        Ok(Self {
            url: url.trim_end_matches('/').to_owned(),
            user,
            http: super::identity_client()?,
            service_token: Mutex::new(None),
            cache: TokenCache::new(cache),
        })
    }

    /// The caller `token` stands for.
    pub async fn verify(&self, token: &str) -> Result<Principal, Refusal> {
        self.cache
            .answer(token, async {
                Ok(match self.validate(token).await? {
                    Some(body) => match caller(&body) {
                        Ok((p, exp)) => (Ok(p), Some(exp)),
                        Err(why) => (Err(why), None),
                    },
                    None => (
                        Err(
                            "Keystone does not know this token (expired, revoked or never \
                             issued)"
                                .into(),
                        ),
                        None,
                    ),
                })
            })
            .await
    }

    /// Keystone's answer about `token`: its body, or `None` when Keystone says it is not
    /// valid.
    async fn validate(&self, token: &str) -> Result<Option<Value>, Refusal> {
        for renewed in [false, true] {
            let service = self.service_token(renewed).await?;
            let r = self
                .http
                .get(format!("{}/auth/tokens?nocatalog", self.url))
                .header("X-Auth-Token", service)
                .header("X-Subject-Token", token)
                .send()
                .await
                .map_err(|e| unreachable(&e))?;
            match r.status().as_u16() {
                200 => {
                    return r.json().await.map(Some).map_err(|e| {
                        Refusal::Unavailable(format!("Keystone's answer is not JSON: {e}"))
                    });
                }
                // Keystone answers 404 for a token it does not know; 401 for an expired
                // service token (renewed once) or, with a fresh one, for a subject token it
                // cannot read.
                404 => return Ok(None),
                401 if !renewed => continue,
                401 => return Ok(None),
                403 => {
                    tracing::error!(
                        user = %self.user.username,
                        status = r.status().as_u16(),
                        "Keystone refuses the service user's token validation: give it the \
                         `service` (or `admin`) role"
                    );
                    return Err(Refusal::Unavailable(
                        "the service user may not validate tokens".into(),
                    ));
                }
                s => {
                    return Err(Refusal::Unavailable(format!(
                        "Keystone answered {s} validating a token"
                    )));
                }
            }
        }
        Err(Refusal::Unavailable(
            "Keystone refuses the service token".into(),
        ))
    }

    /// The service user's token, logging in when there is none, it expires soon, or
    /// `renew` (Keystone refused it).
    async fn service_token(&self, renew: bool) -> Result<String, Refusal> {
        let mut held = self.service_token.lock().await;
        if !renew
            && let Some((token, expires)) = held.as_ref()
            && (*expires - Utc::now()).to_std().unwrap_or_default() > RENEW_BEFORE
        {
            return Ok(token.clone());
        }
        let u = &self.user;
        let r = self
            .http
            .post(format!("{}/auth/tokens?nocatalog", self.url))
            .json(&json!({"auth": {
                "identity": {"methods": ["password"], "password": {"user": {
                    "name": u.username, "domain": {"name": u.user_domain}, "password": u.password}}},
                "scope": {"project": {"name": u.project, "domain": {"name": u.project_domain}}}}}))
            .send()
            .await
            .map_err(|e| unreachable(&e))?;
        if r.status().as_u16() != 201 {
            tracing::error!(
                user = %u.username,
                project = %u.project,
                status = r.status().as_u16(),
                "the Keystone service user cannot log in (auth.keystone_username, \
                 keystone_password, keystone_project)"
            );
            *held = None;
            return Err(Refusal::Unavailable(
                "the service user cannot log in to Keystone".into(),
            ));
        }
        let token = r
            .headers()
            .get("x-subject-token")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
            .ok_or_else(|| Refusal::Unavailable("Keystone issued no service token".into()))?;
        let body: Value = r
            .json()
            .await
            .map_err(|e| Refusal::Unavailable(format!("Keystone's answer is not JSON: {e}")))?;
        let expires = expiry(&body).unwrap_or_else(Utc::now);
        *held = Some((token.clone(), expires));
        Ok(token)
    }
}

fn unreachable(e: &reqwest::Error) -> Refusal {
    tracing::warn!(error = %super::http_error(e), "Keystone is unreachable");
    Refusal::Unavailable("Keystone is unreachable".into())
}

fn expiry(body: &Value) -> Option<DateTime<Utc>> {
    body.pointer("/token/expires_at")
        .and_then(Value::as_str)
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc))
}

/// The caller a validated token stands for, and how long it stays valid. A token of no
/// project stands for no tenant, which only an administrator may be (anyone else would be
/// confined to nothing).
fn caller(body: &Value) -> Result<(Principal, Duration), String> {
    let t = &body["token"];
    let left = expiry(body)
        .map(|e| (e - Utc::now()).to_std().unwrap_or_default())
        .ok_or("Keystone's answer has no expires_at")?;
    if left.is_zero() {
        return Err("the Keystone token has expired".into());
    }
    let roles: Vec<&str> = t["roles"]
        .as_array()
        .map(|r| r.iter().filter_map(|r| r["name"].as_str()).collect())
        .unwrap_or_default();
    let p = Principal {
        subject: t["user"]["id"].as_str().unwrap_or_default().to_owned(),
        role: Principal::highest(roles.iter().copied()),
        tenant: t["project"]["id"].as_str().map(str::to_owned),
        vendors: Principal::attribute_names(roles.iter().copied(), "VENDOR_"),
        areas: Principal::attribute_names(roles.iter().copied(), "AREA_"),
        bound_to: None,
        alerter: roles.contains(&super::ALERT_ROLE),
    };
    if p.tenant.is_none() && p.role.is_some() && !p.may(super::Role::Admin) {
        return Err(
            "the Keystone token is not scoped to a project: ask for a project-scoped token \
             (--os-project-name)"
                .into(),
        );
    }
    Ok((p, left))
}

#[cfg(test)]
mod tests {
    use super::caller;
    use crate::auth::Role;
    use serde_json::json;

    fn token(project: Option<&str>, roles: &[&str], expires: &str) -> serde_json::Value {
        let mut t = json!({"token": {"user": {"id": "u1", "name": "alice"},
            "expires_at": expires,
            "roles": roles.iter().map(|r| json!({"id": "x", "name": r})).collect::<Vec<_>>()}});
        if let Some(p) = project {
            t["token"]["project"] = json!({"id": p, "name": "ignored"});
        }
        t
    }

    #[test]
    fn a_project_token_maps_onto_a_tenant_and_roles() {
        let later = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
        let (p, left) = caller(&token(
            Some("p1"),
            &["reader", "member", "VENDOR_Acme", "AREA_tokyo"],
            &later,
        ))
        .unwrap();
        assert_eq!(p.role, Some(Role::Member));
        assert_eq!(p.tenant.as_deref(), Some("p1"));
        assert_eq!(p.subject, "u1");
        assert_eq!(
            (p.vendors, p.areas),
            (vec!["Acme".into()], vec!["tokyo".into()])
        );
        assert!(left.as_secs() > 3500 && left.as_secs() <= 3600);
        // No project: only an administrator (of the whole system).
        assert!(caller(&token(None, &["member"], &later)).is_err());
        let (admin, _) = caller(&token(None, &["admin"], &later)).unwrap();
        assert_eq!((admin.role, admin.tenant), (Some(Role::Admin), None));
        // Expired, or no expiry said.
        assert!(caller(&token(Some("p1"), &["member"], "2001-01-01T00:00:00Z")).is_err());
        assert!(caller(&json!({"token": {"project": {"id": "p1"}}})).is_err());
    }
}
