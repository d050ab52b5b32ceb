#![doc = include_str!("../README.md")]

mod guard;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;
use tacker_domain::lcm::SubscriptionAuth;

pub use guard::{Guard, MAX_REDIRECTS};

/// Outbound HTTP errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The peer could not be reached or did not answer in time.
    #[error("{url}: {reason}")]
    Unreachable {
        /// Where.
        url: String,
        /// Why.
        reason: String,
    },
    /// The peer answered with an unexpected status.
    #[error("{url} answered HTTP {status}")]
    Status {
        /// Where.
        url: String,
        /// What it answered.
        status: u16,
    },
    /// The target is not allowed (`outbound.allowed_networks`): nothing was sent.
    #[error("{url}: refused: {reason}")]
    Refused {
        /// Where.
        url: String,
        /// Why.
        reason: String,
    },
    /// The subscription's stored credentials are not usable (a password that is not
    /// text): nothing was sent.
    #[error("the subscription's credentials: {0}")]
    Credentials(String),
    /// Getting an OAuth 2.0 token failed.
    #[error("OAuth 2.0 token from {endpoint}: {reason}")]
    Token {
        /// The token endpoint.
        endpoint: String,
        /// Why.
        reason: String,
    },
}

/// A password as the text a request sends.
fn text(password: &tacker_domain::secret::Secret) -> Result<&str> {
    password
        .expose_str()
        .ok_or_else(|| Error::Credentials("the password is not text".into()))
}

/// Result with the notify [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A token cache key: endpoint, client id and a digest of the secret (a subscription
/// naming the same client with another password never gets the cached token).
type TokenKey = (String, String, [u8; 32]);

/// Longest a cached token is trusted, whatever `expires_in` says.
const MAX_TOKEN_TTL: u64 = 24 * 3600;
/// Largest token or NFVO answer read.
const MAX_BODY: usize = 1024 * 1024;

/// A shared HTTP client with an OAuth 2.0 token cache.
#[derive(Debug)]
pub struct Client {
    http: reqwest::Client,
    guard: Guard,
    tokens: Mutex<HashMap<TokenKey, (String, Instant)>>,
}

fn digest(secret: &str) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(secret.as_bytes()).into()
}

/// Reads at most `MAX_BODY` bytes of `resp` (an answer beyond that is an error).
async fn limited(mut resp: reqwest::Response, url: &str) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| unreachable(url, e))? {
        if out.len() + chunk.len() > MAX_BODY {
            return Err(Error::Unreachable {
                url: url.to_owned(),
                reason: format!("the answer is larger than {MAX_BODY} bytes"),
            });
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

fn unreachable(url: &str, e: reqwest::Error) -> Error {
    // The guard's refusals surface as connect or redirect errors: keep the reason.
    let mut reason = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        let text = s.to_string();
        if text.contains("allowed_networks") || text.contains("redirect refused") {
            return Error::Refused {
                url: url.to_owned(),
                reason: text,
            };
        }
        reason = format!("{reason}: {text}");
        source = s.source();
    }
    Error::Unreachable {
        url: url.to_owned(),
        reason,
    }
}

impl Client {
    /// A client with these timeouts, reaching only what `guard` allows (no proxy: a
    /// proxy would connect elsewhere than the addresses checked).
    pub fn new(timeout: Duration, guard: Guard) -> Result<Self> {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .dns_resolver(guard.resolver())
            .redirect(guard.redirects())
            .no_proxy()
            // Subscribers' and NFVOs' servers close idle keep-alive connections (often
            // after 5 s): a request on one being closed would fail, so idle connections
            // are dropped well before.
            .pool_idle_timeout(Duration::from_secs(2))
            .build()
            .map_err(|e| Error::Unreachable {
                url: String::new(),
                reason: e.to_string(),
            })?;
        Ok(Self {
            http,
            guard,
            tokens: Mutex::default(),
        })
    }

    /// Refuses `url` before anything is sent when the guard can tell already.
    fn check(&self, url: &str) -> Result<()> {
        let refused = |reason: String| Error::Refused {
            url: url.to_owned(),
            reason,
        };
        let parsed = url::Url::parse(url).map_err(|e| refused(e.to_string()))?;
        self.guard.check_url(&parsed).map_err(refused)
    }

    async fn token(&self, client_id: &str, secret: &str, endpoint: &str) -> Result<String> {
        let key = (endpoint.to_owned(), client_id.to_owned(), digest(secret));
        if let Some((t, until)) = self
            .tokens
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
            && *until > Instant::now()
        {
            return Ok(t.clone());
        }
        let err = |reason: String| Error::Token {
            endpoint: endpoint.to_owned(),
            reason,
        };
        self.check(endpoint).map_err(|e| err(e.to_string()))?;
        let resp = self
            .http
            .post(endpoint)
            .basic_auth(client_id, Some(secret))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .map_err(|e| err(e.to_string()))?;
        if !resp.status().is_success() {
            return Err(err(format!("HTTP {}", resp.status().as_u16())));
        }
        let bytes = limited(resp, endpoint)
            .await
            .map_err(|e| err(e.to_string()))?;
        let body: Value = serde_json::from_slice(&bytes).map_err(|e| err(e.to_string()))?;
        let token = body
            .get("access_token")
            .and_then(Value::as_str)
            .ok_or_else(|| err("no access_token".into()))?;
        let ttl = body
            .get("expires_in")
            .and_then(Value::as_u64)
            .unwrap_or(300)
            .min(MAX_TOKEN_TTL)
            .saturating_sub(10);
        self.tokens
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(
                key,
                (token.to_owned(), Instant::now() + Duration::from_secs(ttl)),
            );
        Ok(token.to_owned())
    }

    async fn authed(
        &self,
        req: reqwest::RequestBuilder,
        auth: Option<&SubscriptionAuth>,
    ) -> Result<reqwest::RequestBuilder> {
        Ok(match auth {
            None => req,
            Some(SubscriptionAuth::Basic {
                user_name,
                password,
            }) => req.basic_auth(user_name, Some(text(password)?)),
            Some(SubscriptionAuth::OAuth2 {
                client_id,
                client_password,
                token_endpoint,
            }) => req.bearer_auth(
                self.token(client_id, text(client_password)?, token_endpoint)
                    .await?,
            ),
        })
    }

    /// `GET callbackUri` expecting 204, as a new subscription requires.
    pub async fn test_callback(&self, url: &str, auth: Option<&SubscriptionAuth>) -> Result<()> {
        self.check(url)?;
        let req = self.authed(self.http.get(url), auth).await?;
        let resp = req.send().await.map_err(|e| unreachable(url, e))?;
        match resp.status().as_u16() {
            204 => Ok(()),
            status => Err(Error::Status {
                url: url.to_owned(),
                status,
            }),
        }
    }

    /// `POST` one notification; any 2xx is delivered.
    pub async fn deliver(
        &self,
        url: &str,
        auth: Option<&SubscriptionAuth>,
        body: &Value,
    ) -> Result<()> {
        self.check(url)?;
        let req = self.authed(self.http.post(url).json(body), auth).await?;
        let resp = req.send().await.map_err(|e| unreachable(url, e))?;
        if resp.status().is_success() {
            Ok(())
        } else {
            Err(Error::Status {
                url: url.to_owned(),
                status: resp.status().as_u16(),
            })
        }
    }

    /// `POST` JSON with optional basic credentials; returns status, `Location` and body.
    pub async fn post_json(
        &self,
        url: &str,
        basic: Option<(&str, &str)>,
        body: &Value,
    ) -> Result<(u16, Option<String>, Value)> {
        self.check(url)?;
        let mut req = self.http.post(url).header("Version", "1.4.0").json(body);
        if let Some((u, p)) = basic {
            req = req.basic_auth(u, Some(p));
        }
        let resp = req.send().await.map_err(|e| unreachable(url, e))?;
        Self::answer(resp).await
    }

    /// `GET` JSON with optional basic credentials; returns status, `Location` and body.
    pub async fn get_json(
        &self,
        url: &str,
        basic: Option<(&str, &str)>,
    ) -> Result<(u16, Option<String>, Value)> {
        self.check(url)?;
        let mut req = self.http.get(url).header("Version", "1.4.0");
        if let Some((u, p)) = basic {
            req = req.basic_auth(u, Some(p));
        }
        let resp = req.send().await.map_err(|e| unreachable(url, e))?;
        Self::answer(resp).await
    }

    async fn answer(resp: reqwest::Response) -> Result<(u16, Option<String>, Value)> {
        let status = resp.status().as_u16();
        let location = resp
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|l| l.to_str().ok())
            .map(str::to_owned);
        let url = resp.url().to_string();
        let bytes = limited(resp, &url).await?;
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Ok((status, location, body))
    }
}
