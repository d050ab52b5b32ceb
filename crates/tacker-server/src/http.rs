//! Request helpers shared by the routes: content negotiation, bodies, ids, links.

use actix_web::HttpRequest;
use actix_web::http::header;
use futures::StreamExt;
use serde::de::DeserializeOwned;
use uuid::Uuid;

use crate::{ApiError, ServerState};

/// Fails with 406 unless the client accepts one of `offered` (or anything).
pub fn negotiate(req: &HttpRequest, offered: &[&str]) -> Result<(), ApiError> {
    let Some(accept) = req.headers().get(header::ACCEPT) else {
        return Ok(());
    };
    let accept = accept.to_str().unwrap_or_default();
    let ok = accept.split(',').any(|item| {
        let mt = item
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        mt.is_empty()
            || mt == "*/*"
            || offered.iter().any(|o| {
                mt == *o
                    || mt
                        .strip_suffix("/*")
                        .is_some_and(|major| o.starts_with(&format!("{major}/")))
            })
    });
    if ok {
        Ok(())
    } else {
        Err(ApiError::NotAcceptable(format!(
            "cannot answer with {accept:?}; this resource offers {}",
            offered.join(", ")
        )))
    }
}

/// Fails with 415 unless the body's Content-Type is one of `expected`.
pub fn require_content_type(req: &HttpRequest, expected: &[&str]) -> Result<(), ApiError> {
    let ct = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        });
    match ct {
        Some(ct) if expected.contains(&ct.as_str()) => Ok(()),
        Some(ct) => Err(ApiError::UnsupportedMediaType(format!(
            "Content-Type {ct:?} is not supported here; use {}",
            expected.join(" or ")
        ))),
        None => Err(ApiError::UnsupportedMediaType(format!(
            "Content-Type is missing; use {}",
            expected.join(" or ")
        ))),
    }
}

/// Reads a JSON body of at most `limit` bytes into `T`, with a precise 400 on errors.
pub async fn json_body<T: DeserializeOwned>(
    mut payload: actix_web::web::Payload,
    limit: usize,
) -> Result<T, ApiError> {
    let mut buf = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| ApiError::BadRequest(format!("reading the body: {e}")))?;
        if buf.len() + chunk.len() > limit {
            return Err(ApiError::PayloadTooLarge(limit));
        }
        buf.extend_from_slice(&chunk);
    }
    if buf.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::BadRequest(
            "the request body is empty; a JSON object is expected".into(),
        ));
    }
    if escaped_nul(&buf) {
        return Err(ApiError::BadRequest(
            "invalid request body: strings must not contain U+0000 (\\u0000)".into(),
        ));
    }
    let mut de = serde_json::Deserializer::from_slice(&buf);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let at = pointer(e.path());
        let inner = e.into_inner();
        ApiError::BadRequest(if at.is_empty() || inner.is_syntax() || inner.is_eof() {
            format!("invalid request body: {inner}")
        } else {
            // Type errors name the field (`/flavourId: invalid type: ...`).
            format!("invalid request body: {at}: {inner}")
        })
    })
}

/// Whether JSON text `buf` escapes U+0000 in a string (`\u0000`, not `\\u0000`): a
/// character PostgreSQL's jsonb, which the JSON-path filters query, cannot hold. (A raw
/// NUL byte is not valid JSON in the first place.)
fn escaped_nul(buf: &[u8]) -> bool {
    const ESCAPE: &[u8] = br"\u0000";
    buf.windows(ESCAPE.len()).enumerate().any(|(i, w)| {
        w == ESCAPE && buf[..i].iter().rev().take_while(|b| **b == b'\\').count() % 2 == 0
    })
}

/// A deserialisation path as a JSON pointer (`/vimConnectionInfo/vim1/vimType`).
fn pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    path.iter()
        .filter_map(|s| match s {
            Segment::Seq { index } => Some(format!("/{index}")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                Some(format!("/{}", key.replace('~', "~0").replace('/', "~1")))
            }
            Segment::Unknown => None,
        })
        .collect()
}

/// Reads resource `raw` (a path id) with `get`; 404 "<what> <id> not found" when the id
/// is not a UUID or nothing has it.
pub async fn load<T: Send + 'static>(
    st: &ServerState,
    raw: &str,
    what: &'static str,
    get: fn(&mut tacker_db::DbConnection, Uuid) -> tacker_db::Result<Option<T>>,
) -> Result<T, ApiError> {
    let id = parse_id(raw, what)?;
    st.db
        .run(move |c| get(c, id))
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("{what} {id} not found")))
}

/// `found` when the caller sees it (`seen`); else 404 "<what> <id> not found", as if it
/// did not exist (another tenant's resource is absent to the caller).
pub fn if_seen<T>(
    found: T,
    seen: bool,
    what: &str,
    id: impl std::fmt::Display,
) -> Result<T, ApiError> {
    if seen {
        Ok(found)
    } else {
        Err(ApiError::NotFound(format!("{what} {id} not found")))
    }
}

/// 201 Created with `body`, its `_links.self.href` as the `Location`.
pub fn created(body: serde_json::Value) -> actix_web::HttpResponse {
    let location = body["_links"]["self"]["href"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    actix_web::HttpResponse::Created()
        .insert_header((header::LOCATION, location))
        .json(body)
}

/// Parses an id from the path; anything that is not a UUID is simply not found.
pub fn parse_id(raw: &str, what: &str) -> Result<Uuid, ApiError> {
    raw.parse()
        .map_err(|_| ApiError::NotFound(format!("{what} {raw} not found")))
}

/// The base URL links are built on (`server.public_url`, or the request's own).
pub fn base_url(req: &HttpRequest, st: &ServerState) -> String {
    match &st.settings.public_url {
        Some(u) => u.trim_end_matches('/').to_owned(),
        None => {
            let ci = req.connection_info();
            format!("{}://{}", ci.scheme(), ci.host())
        }
    }
}

/// `<base><api>` and `<base>/vnflcm/v2`, where FM and PM resources link to their
/// instances.
pub fn with_lcm_base(req: &HttpRequest, st: &ServerState, api: &str) -> (String, String) {
    let root = base_url(req, st);
    (
        format!("{root}{api}"),
        tacker_domain::lcm::ApiVersion::V2.base(&root),
    )
}

/// Seals a secret with the server's keyring (a value sealed already stays as it is).
pub fn seal(st: &crate::ServerState, plain: &str) -> Result<String, crate::ApiError> {
    if plain.starts_with(tacker_domain::lcm::secrets::SEALED_PREFIX) {
        return Ok(plain.to_owned());
    }
    Ok(st.keys.seal(plain)?)
}

/// Refuses a VIM endpoint (`what` names it) that is, or resolves to, a loopback,
/// link-local (cloud metadata), unspecified or reserved address outside
/// `outbound.allowed_networks` (422): the conductors would send the VIM's credentials
/// there. Private networks are fine (VIMs live there); a name that does not resolve here
/// is left to the conductors.
pub async fn check_vim_endpoint(
    st: &ServerState,
    endpoint: &str,
    what: &str,
) -> Result<(), ApiError> {
    let Ok(u) = url::Url::parse(endpoint) else {
        return Ok(());
    };
    let port = u.port_or_known_default().unwrap_or(443);
    let addrs: Vec<std::net::IpAddr> = match u.host() {
        Some(url::Host::Ipv4(ip)) => vec![ip.into()],
        Some(url::Host::Ipv6(ip)) => vec![ip.into()],
        Some(url::Host::Domain(name)) => match tokio::net::lookup_host((name, port)).await {
            Ok(a) => a.map(|a| a.ip()).collect(),
            Err(_) => Vec::new(),
        },
        None => Vec::new(),
    };
    for ip in addrs {
        if let Some(why) = tacker_domain::uri_guard::refused_vim(ip, &st.settings.outbound) {
            return Err(ApiError::Unprocessable(format!(
                "{what} {endpoint} is a {why} ({ip}); allow it in outbound.allowed_networks"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::escaped_nul;

    #[test]
    fn an_escaped_nul_is_found_and_an_escaped_backslash_is_not_one() {
        assert!(escaped_nul(br#"{"a":"x\u0000"}"#));
        assert!(escaped_nul(br#"{"a\u0000":1}"#));
        assert!(escaped_nul(br#"{"a":"\\\u0000"}"#));
        assert!(!escaped_nul(br#"{"a":"\\u0000"}"#));
        assert!(!escaped_nul(br#"{"a":"\u0001 u0000"}"#));
    }
}
