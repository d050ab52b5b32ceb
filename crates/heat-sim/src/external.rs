//! A real Keystone and Glance behind heat-sim, when given: tokens that Keystone issued
//! are accepted (validated with Keystone, then trusted for the token cache time or until
//! they expire, whichever comes first, as keystonemiddleware does), and a server's image
//! must be one Glance holds, by id or by name, as Nova requires.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

/// The real services heat-sim defers to.
#[derive(Debug)]
pub struct External {
    http: reqwest::Client,
    keystone: Option<String>,
    glance: Option<String>,
    /// Keystone's tokens validated so far, with when they are asked about again.
    valid: Mutex<HashMap<String, DateTime<Utc>>>,
    /// How long a validation is trusted.
    cache: Duration,
    /// The last token a request was authorized with: what the engine asks Glance with
    /// (heat-sim serves one project, so the caller's token sees its images).
    last: Mutex<String>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl External {
    /// Keystone at `keystone` (`.../v3`) and Glance at `glance` (its root URL), each
    /// optional; `None` when neither is given.
    pub fn new(keystone: Option<String>, glance: Option<String>, cache: Duration) -> Option<Self> {
        if keystone.is_none() && glance.is_none() {
            return None;
        }
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(20))
            .no_proxy()
            .build()
            .ok()?;
        let trim = |u: String| u.trim_end_matches('/').to_owned();
        Some(Self {
            http,
            keystone: keystone.map(trim),
            glance: glance.map(trim),
            valid: Mutex::default(),
            cache,
            last: Mutex::default(),
        })
    }

    /// Whether Keystone vouches for `token` (a token may validate itself under
    /// Keystone's default policy); `false` without a Keystone.
    pub async fn validate(&self, token: &str) -> bool {
        let now = Utc::now();
        let known = lock(&self.valid).get(token).is_some_and(|e| *e > now);
        if !known {
            let Some(ks) = &self.keystone else {
                return false;
            };
            let answer = self
                .http
                .get(format!("{ks}/auth/tokens"))
                .header("X-Auth-Token", token)
                .header("X-Subject-Token", token)
                .send()
                .await;
            let Ok(r) = answer else { return false };
            if !r.status().is_success() {
                return false;
            }
            let Ok(doc) = r.json::<Value>().await else {
                return false;
            };
            let Some(expires) = doc
                .pointer("/token/expires_at")
                .and_then(Value::as_str)
                .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
            else {
                return false;
            };
            let cached = chrono::Duration::from_std(self.cache)
                .ok()
                .and_then(|c| now.checked_add_signed(c))
                .unwrap_or(now);
            lock(&self.valid).insert(token.to_owned(), cached.min(expires.with_timezone(&Utc)));
        }
        *lock(&self.last) = token.to_owned();
        true
    }

    /// Remembers the token of an authorized request (heat-sim's own tokens too).
    pub fn seen(&self, token: &str) {
        *lock(&self.last) = token.to_owned();
    }

    /// Checks that Glance holds an active image `image` (an id or a name); `Ok` without
    /// a Glance. The error is Heat's.
    pub async fn check_image(&self, image: &str) -> Result<(), String> {
        let Some(glance) = &self.glance else {
            return Ok(());
        };
        let token = lock(&self.last).clone();
        let get = |url: String| self.http.get(url).header("X-Auth-Token", token.clone());
        let by_id = get(format!("{glance}/v2/images/{image}")).send().await;
        let found: Vec<Value> = match by_id {
            Ok(r) if r.status().is_success() => r.json::<Value>().await.into_iter().collect(),
            Ok(_) => {
                let query: String = url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("name", image)
                    .finish();
                let r = get(format!("{glance}/v2/images?{query}"))
                    .send()
                    .await
                    .map_err(|e| format!("Glance: {e}"))?;
                let doc: Value = r.json().await.map_err(|e| format!("Glance: {e}"))?;
                doc.get("images")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
            }
            Err(e) => return Err(format!("Glance: {e}")),
        };
        match found.as_slice() {
            [one] if one.get("status").and_then(Value::as_str) == Some("active") => Ok(()),
            [] => Err(format!(
                "Error validating value '{image}': No images matching {{'name': '{image}'}}."
            )),
            [one] => Err(format!(
                "Error validating value '{image}': image {} is {}, not active",
                one.get("id").and_then(Value::as_str).unwrap_or_default(),
                one.get("status")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown")
            )),
            _ => Err(format!(
                "Error validating value '{image}': Multiple physical resources were found \
                 with name ({image})."
            )),
        }
    }
}
