//! The REST client: ProblemDetails turned into errors, SOL013 paging followed, the LCM
//! `Version` header sent.

use reqwest::{Method, RequestBuilder, StatusCode};
use serde_json::Value;

use crate::error::{Error, Result};

/// How to speak TLS to the API: a CA to trust besides the system's, and a client
/// certificate (mutual TLS).
#[derive(Debug, Clone, Default)]
pub struct Tls {
    /// CA certificates (PEM file).
    pub cacert: Option<std::path::PathBuf>,
    /// Client certificate chain (PEM file).
    pub cert: Option<std::path::PathBuf>,
    /// Its private key (PEM file).
    pub key: Option<std::path::PathBuf>,
}

fn read(p: &std::path::Path) -> Result<Vec<u8>> {
    std::fs::read(p).map_err(|e| Error::Local(format!("{}: {e}", p.display())))
}

/// The HTTP client every request goes through.
pub fn http_client(tls: &Tls) -> Result<reqwest::Client> {
    let bad = |what: &str, e: reqwest::Error| Error::Local(format!("{what}: {e}"));
    let mut b = reqwest::Client::builder().connect_timeout(std::time::Duration::from_secs(10));
    if let Some(ca) = &tls.cacert {
        for c in reqwest::Certificate::from_pem_bundle(&read(ca)?)
            .map_err(|e| bad(&ca.display().to_string(), e))?
        {
            b = b.add_root_certificate(c);
        }
    }
    match (&tls.cert, &tls.key) {
        (Some(cert), Some(key)) => {
            let mut pem = read(cert)?;
            pem.push(b'\n');
            pem.extend(read(key)?);
            let id = reqwest::Identity::from_pem(&pem).map_err(|e| bad("client certificate", e))?;
            b = b.identity(id);
        }
        (None, None) => {}
        _ => {
            return Err(Error::Local(
                "--cert and --key go together (the client certificate and its key)".into(),
            ));
        }
    }
    b.build().map_err(|e| bad("HTTP client", e))
}

/// A token from `endpoint` by the client credentials grant (`client_secret_basic`).
pub async fn fetch_token(
    http: &reqwest::Client,
    endpoint: &str,
    id: &str,
    secret: &str,
) -> Result<String> {
    let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let resp = http
        .post(endpoint)
        .basic_auth(enc(id), Some(enc(secret)))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .map_err(|e| Error::Unreachable {
            url: endpoint.to_owned(),
            reason: e.to_string(),
        })?;
    let status = resp.status();
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        let what = body["error_description"]
            .as_str()
            .or(body["error"].as_str())
            .or(body["detail"].as_str())
            .unwrap_or("no reason given");
        return Err(Error::Api {
            status: status.as_u16(),
            title: status.canonical_reason().unwrap_or("Error").to_owned(),
            detail: format!("the token endpoint refused the client credentials: {what}"),
        });
    }
    body["access_token"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| Error::Local(format!("{endpoint} answered no access_token")))
}

/// A connection to one API server.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base: String,
    token: Option<String>,
}

impl Client {
    /// A client for `base` (e.g. `http://127.0.0.1:9890`).
    pub fn new(base: &str, token: Option<String>) -> Result<Self> {
        Self::with(http_client(&Tls::default())?, base, token)
    }

    /// A client for `base` over `http`.
    pub fn with(http: reqwest::Client, base: &str, token: Option<String>) -> Result<Self> {
        Ok(Self {
            http,
            base: base.trim_end_matches('/').to_owned(),
            token,
        })
    }

    /// The base URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// A request to `path` (absolute URLs, e.g. from `Link`, are used as they are).
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let url = if path.starts_with("http://") || path.starts_with("https://") {
            path.to_owned()
        } else {
            format!("{}{path}", self.base)
        };
        let mut r = self.http.request(method, url);
        if path.contains("/vnflcm/") {
            r = r.header("Version", "2.0.0");
        }
        if let Some(t) = &self.token {
            r = r.bearer_auth(t);
        }
        r
    }

    /// Sends; connection failures become [`Error::Unreachable`], error statuses
    /// [`Error::Api`].
    pub async fn send(&self, r: RequestBuilder) -> Result<reqwest::Response> {
        let resp = r.send().await.map_err(|e| Error::Unreachable {
            url: self.base.clone(),
            reason: e.to_string(),
        })?;
        if resp.status().is_client_error() || resp.status().is_server_error() {
            return Err(problem(resp).await);
        }
        Ok(resp)
    }

    /// A JSON request; the JSON answer (`Null` when empty).
    pub async fn json(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Value> {
        let mut r = self.request(method, path);
        if let Some(b) = body {
            r = r.json(b);
        }
        let resp = self.send(r).await?;
        read_json(resp).await
    }

    /// A task POST: the operation occurrence id from `Location`.
    pub async fn task(&self, path: &str, body: &Value) -> Result<String> {
        let resp = self
            .send(self.request(Method::POST, path).json(body))
            .await?;
        location_id(&resp)
    }

    /// Every item of a paged list.
    pub async fn list(&self, path: &str) -> Result<Vec<Value>> {
        let mut out = Vec::new();
        let mut next = Some(path.to_owned());
        while let Some(p) = next.take() {
            let resp = self.send(self.request(Method::GET, &p)).await?;
            next = next_link(resp.headers());
            match read_json(resp).await? {
                Value::Array(items) => out.extend(items),
                other => {
                    return Err(Error::Local(format!("expected a list, got {other}")));
                }
            }
        }
        Ok(out)
    }
}

/// The last path segment of `Location`.
pub fn location_id(resp: &reqwest::Response) -> Result<String> {
    resp.headers()
        .get("location")
        .and_then(|l| l.to_str().ok())
        .and_then(|l| l.rsplit('/').next())
        .map(str::to_owned)
        .ok_or_else(|| Error::Local("the answer has no Location".into()))
}

async fn read_json(resp: reqwest::Response) -> Result<Value> {
    let url = resp.url().to_string();
    let bytes = resp.bytes().await.map_err(|e| Error::Unreachable {
        url: url.clone(),
        reason: e.to_string(),
    })?;
    if bytes.is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_slice(&bytes).map_err(|e| Error::Local(format!("{url}: invalid JSON: {e}")))
}

async fn problem(resp: reqwest::Response) -> Error {
    let status = resp.status();
    let text = resp.text().await.unwrap_or_default();
    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    Error::Api {
        status: status.as_u16(),
        title: s("title").unwrap_or_else(|| {
            status
                .canonical_reason()
                .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR.as_str())
                .to_owned()
        }),
        detail: s("detail").unwrap_or(text),
    }
}

/// The `rel="next"` target of a `Link` header.
pub fn next_link(h: &reqwest::header::HeaderMap) -> Option<String> {
    h.get_all("link").iter().find_map(|v| {
        let v = v.to_str().ok()?;
        v.split(',').find_map(|part| {
            let (url, params) = part.split_once(';')?;
            params.contains("rel=\"next\"").then(|| {
                url.trim()
                    .trim_start_matches('<')
                    .trim_end_matches('>')
                    .to_owned()
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use reqwest::header::{HeaderMap, HeaderValue};

    use super::*;

    #[test]
    fn next_links_are_found() {
        let mut h = HeaderMap::new();
        h.insert(
            "link",
            HeaderValue::from_static("<http://h/x?nextpage_opaque_marker=abc>; rel=\"next\""),
        );
        assert_eq!(
            next_link(&h).as_deref(),
            Some("http://h/x?nextpage_opaque_marker=abc")
        );
        assert_eq!(next_link(&HeaderMap::new()), None);
    }
}
