//! Checking bearer tokens: the signature against the built-in key or the keys of a JWKS
//! (cached; fetched again when a token names a key id not seen yet), then `iss`, `aud`,
//! `exp` and `nbf`; roles and tenant read from configured claims. A token of the built-in
//! endpoint is checked against the clients configured now: a removed client's tokens are
//! refused, a downgraded one's hold its current role at most, and tenant, vendors and
//! areas are the client's current ones. Tokens that are not JWTs of a key we hold go to
//! the opaque checker, when there is one: Keystone, or an introspection endpoint.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, JwkSet, KeyAlgorithm};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;
use tokio::sync::{Mutex, RwLock};

use super::introspection::Introspection;
use super::keystone::Keystone;
use super::{AuthError, BuiltinClient, Principal};

/// Why a token is not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// It is not valid (401, with the reason).
    Invalid(String),
    /// What checks it cannot be reached now (503 with Retry-After: never let through).
    Unavailable(String),
}

/// Who checks tokens that are not our JWTs.
#[derive(Debug)]
pub enum Opaque {
    /// Keystone (`auth.mode = "keystone"`).
    Keystone(Keystone),
    /// An RFC 7662 introspection endpoint (`auth.introspection_url`).
    Introspection(Introspection),
}

/// How long a fetched JWKS is trusted before it is fetched again.
const JWKS_TTL: Duration = Duration::from_secs(300);
/// The least time between two fetches prompted by unknown key ids.
const JWKS_MIN_REFETCH: Duration = Duration::from_secs(1);
/// The largest JWKS document read.
const JWKS_MAX_BYTES: usize = 1 << 20;

/// Algorithms accepted: asymmetric only, so a public key can never be used as an HMAC
/// secret (and `none` is never one of them).
const ACCEPTED: &[Algorithm] = &[
    Algorithm::EdDSA,
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
];

#[derive(Clone)]
struct Key {
    alg: Algorithm,
    key: DecodingKey,
    /// The built-in endpoint's key: its tokens carry `roles` and `tenant` as such.
    builtin: bool,
}

/// What tokens must carry, and where roles and tenant are read.
#[derive(Debug, Clone)]
pub struct Claims {
    /// Expected `iss`.
    pub issuer: String,
    /// Expected `aud`.
    pub audience: String,
    /// Dotted path of the roles claim.
    pub roles: String,
    /// Dotted path of the tenant claim.
    pub tenant: String,
}

struct Jwks {
    url: String,
    http: reqwest::Client,
    /// The keys and when they were fetched.
    keys: RwLock<(Option<Instant>, HashMap<String, Key>)>,
    /// Held while fetching, so concurrent requests fetch once.
    fetching: Mutex<()>,
}

/// Checks tokens.
pub struct Verifier {
    claims: Claims,
    fixed: HashMap<String, Key>,
    jwks: Option<Jwks>,
    /// The built-in endpoint's clients, by id.
    clients: Arc<HashMap<String, BuiltinClient>>,
    opaque: Option<Opaque>,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("claims", &self.claims)
            .field("fixed_keys", &self.fixed.keys().collect::<Vec<_>>())
            .field("jwks_url", &self.jwks.as_ref().map(|j| &j.url))
            .field("opaque", &self.opaque)
            .finish()
    }
}

impl Verifier {
    /// A verifier trusting `fixed` keys (`(kid, key)`, EdDSA: the built-in endpoint's,
    /// whose tokens stand for one of `clients`) and the keys at `jwks_url`.
    pub fn new(
        claims: Claims,
        fixed: Vec<(String, DecodingKey)>,
        jwks_url: Option<String>,
        clients: Arc<HashMap<String, BuiltinClient>>,
    ) -> Result<Self, AuthError> {
        let jwks = match jwks_url {
            Some(url) => Some(Jwks {
                url,
                http: reqwest::Client::builder()
                    .timeout(Duration::from_secs(10))
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
                    .map_err(|e| AuthError::Key(format!("HTTP client: {e}")))?,
                keys: RwLock::new((None, HashMap::new())),
                fetching: Mutex::new(()),
            }),
            None => None,
        };
        let fixed = fixed
            .into_iter()
            .map(|(kid, key)| {
                (
                    kid,
                    Key {
                        alg: Algorithm::EdDSA,
                        key,
                        builtin: true,
                    },
                )
            })
            .collect();
        Ok(Self {
            claims,
            fixed,
            jwks,
            clients,
            opaque: None,
        })
    }

    /// The verifier asking `opaque` about tokens that are not JWTs of a key it holds.
    pub fn with_opaque(self, opaque: Opaque) -> Self {
        Self {
            opaque: Some(opaque),
            ..self
        }
    }

    /// The caller a token stands for, or why it is refused.
    pub async fn verify(&self, token: &str) -> Result<Principal, Refusal> {
        let header = jsonwebtoken::decode_header(token).ok();
        let ours = header.as_ref().is_some_and(|h| {
            self.jwks.is_some() || h.kid.as_ref().is_some_and(|k| self.fixed.contains_key(k))
        });
        match &self.opaque {
            Some(Opaque::Keystone(k)) if !ours => k.verify(token).await,
            Some(Opaque::Introspection(i)) if header.is_none() => i.verify(token).await,
            _ => self.verify_jwt(token).await.map_err(Refusal::Invalid),
        }
    }

    /// A JWT's caller, or why it is refused (said in 401 answers).
    async fn verify_jwt(&self, token: &str) -> Result<Principal, String> {
        let header =
            jsonwebtoken::decode_header(token).map_err(|e| format!("malformed token: {e}"))?;
        if !ACCEPTED.contains(&header.alg) {
            return Err(format!("algorithm {:?} is not accepted", header.alg));
        }
        let key = self.key(header.kid.as_deref()).await?;
        if key.alg != header.alg {
            return Err("the token's algorithm does not match its key".into());
        }
        let mut v = Validation::new(header.alg);
        v.set_issuer(&[&self.claims.issuer]);
        v.set_audience(&[&self.claims.audience]);
        v.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        v.validate_nbf = true;
        v.leeway = 30;
        let data = jsonwebtoken::decode::<Value>(token, &key.key, &v)
            .map_err(|e| format!("invalid token: {e}"))?;
        if !key.builtin {
            return principal(&data.claims, &self.claims.roles, &self.claims.tenant);
        }
        let mut p = principal(&data.claims, "roles", "tenant")?;
        let Some(client) = self.clients.get(&p.subject) else {
            return Err(format!(
                "client {:?} is no longer configured (auth.clients)",
                p.subject
            ));
        };
        // What the client holds now, never more than the token was granted.
        p.role = p
            .role
            .zip(client.role)
            .map(|(granted, now)| granted.min(now));
        let now = principal(&client.claims(), "roles", "tenant")?;
        (p.tenant, p.vendors, p.areas, p.alerter) =
            (now.tenant, now.vendors, now.areas, now.alerter);
        Ok(p)
    }

    async fn key(&self, kid: Option<&str>) -> Result<Key, String> {
        match kid {
            Some(kid) => {
                if let Some(k) = self.fixed.get(kid) {
                    return Ok(k.clone());
                }
            }
            None if self.fixed.len() == 1 && self.jwks.is_none() => {
                if let Some(k) = self.fixed.values().next() {
                    return Ok(k.clone());
                }
            }
            None => return Err("the token names no key (kid)".into()),
        }
        let kid = kid.unwrap_or_default();
        let Some(jwks) = &self.jwks else {
            return Err(format!("unknown key {kid:?}"));
        };
        if let Some(k) = jwks.cached(kid).await {
            return Ok(k);
        }
        jwks.refresh().await?;
        jwks.cached(kid)
            .await
            .ok_or_else(|| format!("unknown key {kid:?}"))
    }
}

impl Jwks {
    async fn cached(&self, kid: &str) -> Option<Key> {
        let keys = self.keys.read().await;
        match keys.0 {
            Some(at) if at.elapsed() < JWKS_TTL => keys.1.get(kid).cloned(),
            _ => None,
        }
    }

    /// Fetches the keys again, unless another request just did.
    async fn refresh(&self) -> Result<(), String> {
        let _one = self.fetching.lock().await;
        if self
            .keys
            .read()
            .await
            .0
            .is_some_and(|at| at.elapsed() < JWKS_MIN_REFETCH)
        {
            return Ok(());
        }
        let keys = self.fetch().await.map_err(|e| {
            tracing::warn!(url = %self.url, error = %e, "fetching the JWKS failed");
            "the key set could not be fetched".to_owned()
        })?;
        tracing::info!(url = %self.url, keys = keys.len(), "fetched the JWKS");
        *self.keys.write().await = (Some(Instant::now()), keys);
        Ok(())
    }

    async fn fetch(&self) -> Result<HashMap<String, Key>, String> {
        let mut resp = self
            .http
            .get(&self.url)
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|e| e.to_string())?;
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| e.to_string())? {
            if body.len() + chunk.len() > JWKS_MAX_BYTES {
                return Err("larger than 1 MiB".into());
            }
            body.extend_from_slice(&chunk);
        }
        let set: JwkSet = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        let mut keys = HashMap::new();
        for jwk in &set.keys {
            let Some(kid) = jwk.common.key_id.clone() else {
                continue;
            };
            if jwk
                .common
                .public_key_use
                .as_ref()
                .is_some_and(|u| *u != jsonwebtoken::jwk::PublicKeyUse::Signature)
            {
                continue;
            }
            let Some(alg) = algorithm(jwk) else { continue };
            if !ACCEPTED.contains(&alg) {
                continue;
            }
            if let Ok(key) = DecodingKey::from_jwk(jwk) {
                keys.insert(
                    kid,
                    Key {
                        alg,
                        key,
                        builtin: false,
                    },
                );
            }
        }
        Ok(keys)
    }
}

/// The caller named by a token's claims; a tenant claim that is not a string is refused
/// (a list or an object names no one tenant: taking none would leave the caller
/// unconfined).
pub(super) fn principal(
    claims: &Value,
    roles_claim: &str,
    tenant_claim: &str,
) -> Result<Principal, String> {
    let roles: Vec<String> = match claim(claims, roles_claim) {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        Some(Value::String(s)) => s.split_whitespace().map(str::to_owned).collect(),
        _ => Vec::new(),
    };
    // The tenant claim, else a `TENANT_<name>` role (Tacker's enhanced policy).
    let tenant = match claim(claims, tenant_claim) {
        None | Some(Value::Null) => None,
        Some(Value::String(t)) => Some(t.as_str()),
        Some(_) => {
            return Err(format!(
                "the tenant claim {tenant_claim:?} is not a string: a token must name one tenant"
            ));
        }
    };
    let tenant = tenant
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .or_else(|| {
            roles
                .iter()
                .find_map(|r| r.strip_prefix("TENANT_"))
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
        });
    // `VENDOR_<name>` and `AREA_<name>` roles (Tacker's enhanced policy).
    let named = |prefix: &str| Principal::attribute_names(roles.iter().map(String::as_str), prefix);
    Ok(Principal {
        alerter: roles.iter().any(|r| r == super::principal::ALERT_ROLE),
        vendors: named("VENDOR_"),
        areas: named("AREA_"),
        subject: claims
            .get("sub")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        role: Principal::highest(roles.iter().map(String::as_str)),
        tenant,
        bound_to: claims
            .pointer("/cnf/x5t#S256")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// A JWK's algorithm: its `alg`, else the usual one of its key type.
fn algorithm(jwk: &jsonwebtoken::jwk::Jwk) -> Option<Algorithm> {
    if let Some(a) = jwk.common.key_algorithm {
        return match a {
            KeyAlgorithm::EdDSA => Some(Algorithm::EdDSA),
            KeyAlgorithm::RS256 => Some(Algorithm::RS256),
            KeyAlgorithm::RS384 => Some(Algorithm::RS384),
            KeyAlgorithm::RS512 => Some(Algorithm::RS512),
            KeyAlgorithm::PS256 => Some(Algorithm::PS256),
            KeyAlgorithm::PS384 => Some(Algorithm::PS384),
            KeyAlgorithm::PS512 => Some(Algorithm::PS512),
            KeyAlgorithm::ES256 => Some(Algorithm::ES256),
            KeyAlgorithm::ES384 => Some(Algorithm::ES384),
            _ => None,
        };
    }
    match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => Some(Algorithm::RS256),
        AlgorithmParameters::EllipticCurve(p) => match p.curve {
            EllipticCurve::P256 => Some(Algorithm::ES256),
            EllipticCurve::P384 => Some(Algorithm::ES384),
            _ => None,
        },
        AlgorithmParameters::OctetKeyPair(_) => Some(Algorithm::EdDSA),
        _ => None,
    }
}

/// The value at a dotted path (`realm_access.roles`); a key holding the dots itself
/// (`https://example.com/roles`) is tried first.
fn claim<'a>(claims: &'a Value, path: &str) -> Option<&'a Value> {
    if let Some(v) = claims.get(path) {
        return Some(v);
    }
    path.split('.').try_fold(claims, |v, part| v.get(part))
}

#[cfg(test)]
mod tests {
    use super::{claim, principal};
    use serde_json::json;

    #[test]
    fn a_tenant_claim_that_is_not_one_string_is_refused() {
        for bad in [json!(["t1", "t2"]), json!({"id": "t1"}), json!(7)] {
            let c = json!({"sub": "x", "roles": ["member"], "tenant": bad});
            assert!(principal(&c, "roles", "tenant").is_err(), "{c}");
        }
        let c = json!({"sub": "x", "roles": ["member"], "tenant": "t1"});
        assert_eq!(
            principal(&c, "roles", "tenant").unwrap().tenant.as_deref(),
            Some("t1")
        );
        let none = json!({"sub": "x", "roles": ["member", "TENANT_t9"]});
        assert_eq!(
            principal(&none, "roles", "tenant")
                .unwrap()
                .tenant
                .as_deref(),
            Some("t9")
        );
    }

    #[test]
    fn claims_are_found_by_dotted_path_or_whole_name() {
        let c = json!({"realm_access": {"roles": ["admin"]}, "https://x.io/t": "t1"});
        assert_eq!(claim(&c, "realm_access.roles"), Some(&json!(["admin"])));
        assert_eq!(claim(&c, "https://x.io/t"), Some(&json!("t1")));
        assert_eq!(claim(&c, "nope.roles"), None);
    }
}
