//! Fetching a package from a URI: only to addresses the configuration allows, with
//! timeouts, the size cap, optional basic auth, and redirects checked hop by hop.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use bytes::Bytes;
use futures::Stream;
use tacker_domain::Failure;
use tacker_domain::uri_guard;

use crate::OnboardingSettings;

const MAX_REDIRECTS: usize = 5;

/// Opens `address`, following redirects; returns the response body stream.
pub async fn open(
    settings: &OnboardingSettings,
    address: &str,
    user: &str,
    password: &str,
) -> Result<impl Stream<Item = Result<Bytes, reqwest::Error>> + Unpin + use<>, Failure> {
    let bad = |status: u16, m: String| Failure::new(status, m);
    let mut url =
        url::Url::parse(address).map_err(|e| bad(400, format!("invalid package URI: {e}")))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad(
            400,
            "package URI must not carry credentials; give userName and password".into(),
        ));
    }
    // Credentials go only to the origin (scheme, host, port) they were given for.
    let origin = url.origin();
    for _ in 0..=MAX_REDIRECTS {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad(
                400,
                format!("package URI scheme {:?} is not http or https", url.scheme()),
            ));
        }
        let host = url
            .host_str()
            .ok_or_else(|| bad(400, "package URI has no host".into()))?
            .to_owned();
        let port = url.port_or_known_default().unwrap_or(80);
        let addrs = resolve(&host, port)
            .await
            .map_err(|e| bad(502, format!("cannot resolve {host}: {e}")))?;
        for a in &addrs {
            if let Some(why) = uri_guard::refused(a.ip(), &settings.allowed_uri_networks) {
                return Err(bad(
                    400,
                    format!(
                        "package URI host {host} resolves to {} ({why}); allow it in onboarding.allowed_uri_networks",
                        a.ip()
                    ),
                ));
            }
        }
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            // A proxy would connect elsewhere than the addresses checked and pinned.
            .no_proxy()
            .connect_timeout(settings.uri_connect_timeout)
            .read_timeout(Duration::from_secs(60))
            .resolve_to_addrs(&host, &addrs)
            .build()
            .map_err(|e| bad(500, format!("http client: {e}")))?;
        let mut req = client.get(url.clone());
        // Credentials go only to the host they were given for.
        if !user.is_empty() && url.origin() == origin {
            req = req.basic_auth(user, Some(password));
        }
        let resp = req.send().await.map_err(|e| {
            if e.is_timeout() {
                bad(504, format!("fetching {url} timed out: {e}"))
            } else {
                bad(502, format!("fetching {url} failed: {e}"))
            }
        })?;
        let status = resp.status();
        if status.is_redirection() {
            let loc = resp
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|l| l.to_str().ok())
                .ok_or_else(|| bad(502, format!("{url} redirected without a Location")))?;
            url = url
                .join(loc)
                .map_err(|e| bad(502, format!("{url} redirected to an invalid URL: {e}")))?;
            if !url.username().is_empty() || url.password().is_some() {
                return Err(bad(502, "a redirect carried credentials in its URL".into()));
            }
            continue;
        }
        if !status.is_success() {
            return Err(bad(
                502,
                format!("fetching {url} answered HTTP {}", status.as_u16()),
            ));
        }
        if resp
            .content_length()
            .is_some_and(|n| n > settings.max_package_size)
        {
            return Err(bad(
                413,
                format!(
                    "the package at {url} exceeds the limit of {} bytes",
                    settings.max_package_size
                ),
            ));
        }
        return Ok(resp.bytes_stream());
    }
    Err(bad(502, format!("more than {MAX_REDIRECTS} redirects")))
}

async fn resolve(host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
    if let Ok(ip) = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
    {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port)).await?.collect();
    if addrs.is_empty() {
        return Err(std::io::Error::other("no addresses"));
    }
    Ok(addrs)
}
