//! RFC 7662 token introspection (`auth.introspection_url`): an external OAuth 2.0
//! server's opaque tokens, checked by asking it (`POST` with `token`, HTTP Basic client
//! authentication). An active token's roles and tenant are read from the answer as from
//! a JWT's claims; `exp`, `nbf`, `iss` and `aud` are checked when the answer has them.
//! Answers are cached ([`TokenCache`]); the server unreachable is
//! [`Refusal::Unavailable`].

use std::time::Duration;

use serde_json::Value;

use super::token_cache::TokenCache;
use super::verifier::{Claims, Refusal, principal};
use super::{AuthError, Principal};

/// How long one introspection may take.
/// The largest answer read.
const MAX_BYTES: usize = 64 << 10;

/// Checks opaque tokens with an introspection endpoint.
pub struct Introspection {
    url: String,
    client_id: String,
    client_secret: String,
    claims: Claims,
    http: reqwest::Client,
    cache: TokenCache,
}

crate::debug_shows!(Introspection, "Introspection", url, client_id);

impl Introspection {
    /// Asks `url` as `client_id`; `claims` say what answers must carry and where roles
    /// and tenant are; answers are kept `cache` at most.
    pub fn new(
        url: &str,
        client_id: &str,
        client_secret: &str,
        claims: Claims,
        cache: Duration,
    ) -> Result<Self, AuthError> {
        Ok(Self {
            url: url.to_owned(),
            client_id: client_id.to_owned(),
            client_secret: client_secret.to_owned(),
            claims,
            http: super::identity_client()?,
            cache: TokenCache::new(cache),
        })
    }

    /// The caller `token` stands for.
    pub async fn verify(&self, token: &str) -> Result<Principal, Refusal> {
        self.cache
            .answer(token, async {
                let body = self.ask(token).await?;
                let now = chrono::Utc::now().timestamp();
                Ok(match caller(&body, &self.claims, now) {
                    Ok((p, left)) => (Ok(p), left),
                    Err(why) => (Err(why), None),
                })
            })
            .await
    }

    async fn ask(&self, token: &str) -> Result<Value, Refusal> {
        let unavailable = |what: String| {
            tracing::warn!(url = %self.url, "token introspection failed: {what}");
            Refusal::Unavailable("the token introspection endpoint is unavailable".into())
        };
        let mut r = self
            .http
            .post(&self.url)
            .basic_auth(&self.client_id, Some(&self.client_secret))
            .form(&[("token", token), ("token_type_hint", "access_token")])
            .send()
            .await
            .map_err(|e| unavailable(super::http_error(&e)))?;
        if !r.status().is_success() {
            if matches!(r.status().as_u16(), 401 | 403) {
                tracing::error!(
                    client_id = %self.client_id,
                    "the introspection endpoint refuses Tacker's client \
                     (auth.introspection_client_id, introspection_client_secret)"
                );
            }
            return Err(unavailable(format!("HTTP {}", r.status())));
        }
        let mut body = Vec::new();
        while let Some(chunk) = r
            .chunk()
            .await
            .map_err(|e| unavailable(super::http_error(&e)))?
        {
            if body.len() + chunk.len() > MAX_BYTES {
                return Err(unavailable("an answer larger than 64 KiB".into()));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|e| unavailable(e.to_string()))
    }
}

/// The caller an introspection answer names, and how long the token stays valid.
fn caller(
    body: &Value,
    claims: &Claims,
    now: i64,
) -> Result<(Principal, Option<Duration>), String> {
    if body.get("active").and_then(Value::as_bool) != Some(true) {
        return Err("the token is not active (introspection)".into());
    }
    let exp = body.get("exp").and_then(Value::as_i64);
    if exp.is_some_and(|e| e <= now) {
        return Err("the token has expired".into());
    }
    if body
        .get("nbf")
        .and_then(Value::as_i64)
        .is_some_and(|n| n > now + 30)
    {
        return Err("the token is not valid yet".into());
    }
    if let Some(iss) = body.get("iss").and_then(Value::as_str)
        && iss != claims.issuer
    {
        return Err(format!("the token's issuer {iss:?} is not auth.issuer"));
    }
    let aud_ok = match body.get("aud") {
        None | Some(Value::Null) => true,
        Some(Value::String(a)) => *a == claims.audience,
        Some(Value::Array(a)) => a.iter().any(|a| a.as_str() == Some(&claims.audience)),
        Some(_) => false,
    };
    if !aud_ok {
        return Err("the token is not for this audience (auth.audience)".into());
    }
    let mut p = principal(body, &claims.roles, &claims.tenant)?;
    if p.subject.is_empty() {
        // Client credentials tokens have no `sub`: the client is the caller.
        p.subject = body
            .get("client_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
    }
    let left = exp.map(|e| Duration::from_secs(u64::try_from(e - now).unwrap_or_default()));
    Ok((p, left))
}

#[cfg(test)]
mod tests {
    use super::caller;
    use crate::auth::{Claims, Role};
    use serde_json::json;

    fn claims() -> Claims {
        Claims {
            issuer: "https://idp".into(),
            audience: "tacker".into(),
            roles: "roles".into(),
            tenant: "tenant".into(),
        }
    }

    #[test]
    fn only_an_active_token_for_us_names_a_caller() {
        let now = 1_000_000;
        let good = json!({"active": true, "client_id": "c1", "exp": now + 60,
            "iss": "https://idp", "aud": ["x", "tacker"], "roles": ["member"], "tenant": "t1"});
        let (p, left) = caller(&good, &claims(), now).unwrap();
        assert_eq!(
            (p.role, p.tenant.as_deref()),
            (Some(Role::Member), Some("t1"))
        );
        assert_eq!(p.subject, "c1");
        assert_eq!(left.unwrap().as_secs(), 60);
        for (key, bad) in [
            ("active", json!(false)),
            ("exp", json!(now - 1)),
            ("iss", json!("https://other")),
            ("aud", json!("someone-else")),
            ("tenant", json!(["t1", "t2"])),
        ] {
            let mut b = good.clone();
            b[key] = bad;
            assert!(caller(&b, &claims(), now).is_err(), "{key}");
        }
        assert!(caller(&json!({"roles": ["admin"]}), &claims(), now).is_err());
    }
}
