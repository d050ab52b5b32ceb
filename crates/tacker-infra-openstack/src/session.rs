//! A Keystone v3 session for one VIM connection: password authentication scoped to the
//! project, the token reused until shortly before it expires and fetched again once on
//! a 401, Heat's endpoint taken from the catalog (public interface, the region when the
//! VIM names one).

use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::Method;
use serde_json::{Value, json};
use tacker_domain::lcm::driver::VimConnection;
use tacker_domain::secret::Secret;
use tokio::sync::Mutex;

use crate::error::{Error, Result};
use tacker_outbound::Guard;

/// A token is fetched again when it expires within this margin.
const REFRESH_MARGIN: Duration = Duration::from_secs(30);

/// What a VIM connection says about reaching Keystone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    /// Keystone v3 (`.../v3`).
    pub auth_url: String,
    /// User name.
    pub user: String,
    /// Password.
    pub password: Secret,
    /// Project name.
    pub project: String,
    /// The user's domain (name).
    pub user_domain: String,
    /// The project's domain (name).
    pub project_domain: String,
    /// Region of the endpoints to use.
    pub region: Option<String>,
    /// CA certificate to trust (PEM).
    pub ca_pem: Option<String>,
}

impl Credentials {
    /// Reads `interfaceInfo.endpoint` and `accessInfo` (username, password, project,
    /// userDomain, projectDomain, region).
    pub fn from_vim(v: &VimConnection) -> Result<Self> {
        let need = |found: Option<&str>, what: &str| {
            found
                .map(str::to_owned)
                .ok_or_else(|| Error::Vim(format!("{what} is required")))
        };
        let endpoint = need(
            v.interface(&["endpoint", "auth_url"]),
            "interfaceInfo.endpoint",
        )?;
        let url = url::Url::parse(&endpoint)
            .map_err(|e| Error::Vim(format!("interfaceInfo.endpoint is not a URL: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Error::Vim(
                "interfaceInfo.endpoint must be http(s)://".into(),
            ));
        }
        let trimmed = endpoint.trim_end_matches('/');
        let auth_url = if trimmed.ends_with("/v3") {
            trimmed.to_owned()
        } else {
            format!("{trimmed}/v3")
        };
        let text = |keys: &[&str]| v.access(keys).map(str::to_owned);
        Ok(Self {
            auth_url,
            user: need(v.access(&["username"]), "accessInfo.username")?,
            password: need(v.access_secret("password"), "accessInfo.password")?.into(),
            project: need(v.access(&["project", "project_name"]), "accessInfo.project")?,
            user_domain: text(&["userDomain", "user_domain_name"])
                .unwrap_or_else(|| "Default".into()),
            project_domain: text(&["projectDomain", "project_domain_name"])
                .unwrap_or_else(|| "Default".into()),
            region: text(&["region"]),
            ca_pem: v.interface(&["ssl_ca_cert", "cacert"]).map(str::to_owned),
        })
    }
}

#[derive(Debug, Clone)]
struct Token {
    value: String,
    expires: DateTime<Utc>,
    heat: String,
    /// Glance's endpoint, when the catalog has one.
    image: Option<String>,
    /// Nova's endpoint, when the catalog has one.
    compute: Option<String>,
}

/// The services a session calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    /// Heat (orchestration), which the catalog must have.
    Heat,
    /// Glance (image).
    Glance,
    /// Nova (compute).
    Nova,
}

impl Service {
    fn name(self) -> &'static str {
        match self {
            Service::Heat => "Heat",
            Service::Glance => "Glance",
            Service::Nova => "Nova",
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Service::Heat => "orchestration",
            Service::Glance => "image",
            Service::Nova => "compute",
        }
    }
}

/// What a request to Heat or Glance carries.
#[derive(Debug, Clone, Copy)]
pub enum Payload<'a> {
    /// Nothing.
    Empty,
    /// A JSON document.
    Json(&'a Value),
    /// A file's bytes, streamed (`application/octet-stream`).
    File(&'a std::path::Path),
}

/// How long a file upload may take (the session's timeout is for API calls).
const UPLOAD_TIMEOUT: Duration = Duration::from_secs(3600);

/// An authenticated session.
#[derive(Debug)]
pub struct Session {
    creds: Credentials,
    http: reqwest::Client,
    guard: Guard,
    token: Mutex<Option<Token>>,
}

/// An answer: status, `Location`, body (`Null` when empty or not JSON).
#[derive(Debug)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// The `Location` header.
    pub location: Option<String>,
    /// The body.
    pub body: Value,
}

impl Answer {
    /// Heat's error message (`error.message`), else the body.
    pub fn message(&self) -> String {
        self.body
            .pointer("/error/message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| self.body.to_string())
    }
}

/// Refuses `url` (Keystone, Heat, a link of Heat's) when the guard would not send a VIM's
/// credentials there: a scheme other than http(s), credentials in it, or a refused IP
/// literal (names are checked by the guard's resolver when connecting, and pinned).
fn checked(guard: &Guard, url: &str) -> Result<()> {
    url::Url::parse(url)
        .map_err(|e| e.to_string())
        .and_then(|u| guard.check_url(&u))
        .map_err(|why| Error::Vim(format!("endpoint {url} refused: {why}")))
}

/// How long an idle connection to Keystone or Heat is kept for reuse.
const POOL_IDLE: Duration = Duration::from_secs(2);

impl Session {
    /// A session (no request made yet).
    pub fn new(creds: Credentials, timeout: Duration, guard: &Guard) -> Result<Self> {
        let mut b = reqwest::Client::builder()
            .dns_resolver(guard.resolver())
            // A proxy would resolve the names itself, past the guard.
            .no_proxy()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            // Keystone's and Heat's servers close idle keep-alive connections (Apache
            // and uWSGI after 5 s, heat-sim's actix too): reusing one they are closing
            // fails the request, so idle connections are dropped well before that.
            .pool_idle_timeout(POOL_IDLE)
            .redirect(reqwest::redirect::Policy::none());
        if let Some(pem) = &creds.ca_pem {
            let cert = reqwest::Certificate::from_pem(pem.as_bytes())
                .map_err(|e| Error::Vim(format!("interfaceInfo.ssl_ca_cert: {e}")))?;
            b = b.add_root_certificate(cert);
        }
        let http = b
            .build()
            .map_err(|e| Error::Vim(format!("HTTP client: {e}")))?;
        Ok(Self {
            creds,
            http,
            guard: guard.clone(),
            token: Mutex::new(None),
        })
    }

    async fn authenticate(&self) -> Result<Token> {
        let c = &self.creds;
        checked(&self.guard, &c.auth_url)?;
        let body = json!({"auth": {
            "identity": {"methods": ["password"], "password": {"user": {
                "name": c.user, "password": c.password.expose_text(), "domain": {"name": c.user_domain}}}},
            "scope": {"project": {"name": c.project, "domain": {"name": c.project_domain}}},
        }});
        let resp = self
            .http
            .post(format!("{}/auth/tokens", c.auth_url))
            .json(&body)
            .send()
            .await
            .map_err(|e| Error::Unreachable(format!("Keystone at {}: {e}", c.auth_url)))?;
        let status = resp.status().as_u16();
        if status == 401 || status == 403 {
            return Err(Error::Auth {
                user: c.user.clone(),
                status,
            });
        }
        if status != 201 && status != 200 {
            return Err(Error::Vim(format!(
                "Keystone at {} answered HTTP {status}",
                c.auth_url
            )));
        }
        let value = resp
            .headers()
            .get("x-subject-token")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
            .ok_or_else(|| Error::Vim("Keystone answered without X-Subject-Token".into()))?;
        let doc: Value = resp
            .json()
            .await
            .map_err(|e| Error::Vim(format!("Keystone's token is not JSON: {e}")))?;
        let expires = doc
            .pointer("/token/expires_at")
            .and_then(Value::as_str)
            .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&Utc))
            .ok_or_else(|| Error::Vim("Keystone's token has no expires_at".into()))?;
        let heat = self.heat_endpoint(&doc)?;
        let image = self.endpoint(&doc, "image").ok();
        let compute = self.endpoint(&doc, "compute").ok();
        Ok(Token {
            value,
            expires,
            heat,
            image,
            compute,
        })
    }

    fn heat_endpoint(&self, doc: &Value) -> Result<String> {
        self.endpoint(doc, "orchestration")
    }

    /// The public endpoint of service `kind` in the catalog (in the VIM's region).
    fn endpoint(&self, doc: &Value, kind: &str) -> Result<String> {
        let catalog = doc
            .pointer("/token/catalog")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let name = match kind {
            "image" => "Glance",
            "compute" => "Nova",
            _ => "Heat",
        };
        let service = catalog
            .iter()
            .find(|s| s.get("type").and_then(Value::as_str) == Some(kind))
            .ok_or_else(|| Error::Vim(format!("the catalog has no {kind} ({name}) service")))?;
        let region = self.creds.region.as_deref();
        service
            .get("endpoints")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|e| e.get("interface").and_then(Value::as_str) == Some("public"))
            .find(|e| {
                region.is_none_or(|r| {
                    e.get("region_id").and_then(Value::as_str) == Some(r)
                        || e.get("region").and_then(Value::as_str) == Some(r)
                })
            })
            .and_then(|e| e.get("url").and_then(Value::as_str))
            .map(|u| u.trim_end_matches('/').to_owned())
            .ok_or_else(|| {
                Error::Vim(format!(
                    "the catalog has no public {name} endpoint{}",
                    region
                        .map(|r| format!(" in region {r}"))
                        .unwrap_or_default()
                ))
            })
    }

    async fn token(&self, fresh: bool) -> Result<Token> {
        let mut t = self.token.lock().await;
        let margin = chrono::Duration::from_std(REFRESH_MARGIN).unwrap_or_default();
        match &*t {
            Some(tok) if !fresh && tok.expires - margin > Utc::now() => Ok(tok.clone()),
            _ => {
                let tok = self.authenticate().await?;
                *t = Some(tok.clone());
                Ok(tok)
            }
        }
    }

    /// Authenticates now (a fresh token) and finds Heat in the catalog.
    pub async fn verify(&self) -> Result<()> {
        self.token(true).await.map(|_| ())
    }

    /// `method` on `path` (relative to Heat's endpoint, e.g. `stacks/x`) with a JSON
    /// body; a 401 fetches a new token and tries once more.
    pub async fn heat(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Answer> {
        let body = body.map_or(Payload::Empty, Payload::Json);
        self.send(Service::Heat, method, path, body).await
    }

    /// Whether the catalog names Glance (in the VIM's region).
    pub async fn has_glance(&self) -> Result<bool> {
        Ok(self.token(false).await?.image.is_some())
    }

    /// `method` on `path` relative to Glance's endpoint (e.g. `v2/images`), as
    /// [`Session::heat`]; an error when the catalog has no Glance.
    pub async fn glance(&self, method: Method, path: &str, body: Payload<'_>) -> Result<Answer> {
        self.send(Service::Glance, method, path, body).await
    }

    /// `method` on `path` relative to Nova's endpoint (e.g. `servers/<id>`), as
    /// [`Session::heat`]; an error when the catalog has no Nova.
    pub async fn nova(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Answer> {
        let body = body.map_or(Payload::Empty, Payload::Json);
        self.send(Service::Nova, method, path, body).await
    }

    async fn send(
        &self,
        svc: Service,
        method: Method,
        path: &str,
        body: Payload<'_>,
    ) -> Result<Answer> {
        let service = svc.name();
        let mut fresh = false;
        loop {
            let tok = self.token(fresh).await?;
            let found = match svc {
                Service::Heat => Some(tok.heat.clone()),
                Service::Glance => tok.image.clone(),
                Service::Nova => tok.compute.clone(),
            };
            let base = found.ok_or_else(|| {
                Error::Vim(format!(
                    "the catalog has no {} ({service}) service{}",
                    svc.kind(),
                    self.creds
                        .region
                        .as_deref()
                        .map(|r| format!(" in region {r}"))
                        .unwrap_or_default()
                ))
            })?;
            let url = if path.starts_with("http://") || path.starts_with("https://") {
                path.to_owned()
            } else {
                format!("{}/{}", base, path.trim_start_matches('/'))
            };
            checked(&self.guard, &url)?;
            let mut req = self
                .http
                .request(method.clone(), &url)
                .header("X-Auth-Token", &tok.value)
                .header("Accept", "application/json");
            req = match body {
                Payload::Empty => req,
                Payload::Json(b) => req.json(b),
                Payload::File(p) => {
                    let f = tokio::fs::File::open(p)
                        .await
                        .map_err(|e| Error::Vim(format!("{}: {e}", p.display())))?;
                    let len = f.metadata().await.map(|m| m.len()).ok();
                    let stream = tokio_util::io::ReaderStream::new(f);
                    let mut r = req
                        .header("Content-Type", "application/octet-stream")
                        .timeout(UPLOAD_TIMEOUT);
                    if let Some(n) = len {
                        r = r.header("Content-Length", n);
                    }
                    r.body(reqwest::Body::wrap_stream(stream))
                }
            };
            let resp = req
                .send()
                .await
                .map_err(|e| Error::Unreachable(format!("{service} at {url}: {e}")))?;
            let status = resp.status().as_u16();
            if status == 401 && !fresh {
                tracing::info!("{service} refused the token; authenticating again");
                fresh = true;
                continue;
            }
            let location = resp
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let bytes = resp
                .bytes()
                .await
                .map_err(|e| Error::Unreachable(format!("{service} at {url}: {e}")))?;
            let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            return Ok(Answer {
                status,
                location,
                body,
            });
        }
    }
}
