//! Where the driver may send a VIM's token: the cluster's API server, checked in the
//! conductor against `outbound.allowed_networks` (the API checked it too, but a name may
//! resolve elsewhere by the time an operation runs). An IP literal is checked when the
//! client is built; a name by [`GuardedResolver`] on every connection, which refuses it
//! when any address is loopback, link-local (cloud metadata), unspecified or reserved and
//! not allowed, and hands the connector exactly the addresses it checked.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::Arc;
use std::task::{Context, Poll};

use hyper_util::client::legacy::connect::dns::Name;
use ipnet::IpNet;
use tacker_domain::uri_guard;
use tower::Service;

/// How long [`pinned`] waits for one address to take a connection.
const CONNECT_PROBE: std::time::Duration = std::time::Duration::from_secs(3);

/// Resolves the API server's name, refusing addresses a VIM may not have.
#[derive(Debug, Clone)]
pub struct GuardedResolver {
    allowed: Arc<Vec<IpNet>>,
}

impl GuardedResolver {
    /// A resolver allowing `allowed` besides public and private addresses.
    pub fn new(allowed: Vec<IpNet>) -> Self {
        Self {
            allowed: Arc::new(allowed),
        }
    }
}

type Resolving =
    Pin<Box<dyn Future<Output = std::io::Result<std::vec::IntoIter<SocketAddr>>> + Send>>;

impl tower::Service<Name> for GuardedResolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = std::io::Error;
    type Future = Resolving;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: Name) -> Self::Future {
        let allowed = self.allowed.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            for a in &addrs {
                if let Some(why) = uri_guard::refused_vim(a.ip(), &allowed) {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::PermissionDenied,
                        format!("{host}: {}", uri_guard::refusal(a.ip(), why)),
                    ));
                }
            }
            Ok(addrs.into_iter())
        })
    }
}

/// Where a program of ours (`helm`) is to connect for `endpoint`: the URL with its host
/// name replaced by an address the guard accepted, and the name to verify the server's
/// certificate against (`tls-server-name`), so the program reaches exactly what was
/// checked. An IP literal is checked and kept.
pub async fn pinned(endpoint: &str, allowed: &[IpNet]) -> Result<(String, Option<String>), String> {
    uri_guard::check_vim_url(endpoint, allowed)?;
    let mut u = url::Url::parse(endpoint).map_err(|e| e.to_string())?;
    let Some(url::Host::Domain(name)) = u.host().map(|h| h.to_owned()) else {
        return Ok((endpoint.to_owned(), None));
    };
    let name = name.to_owned();
    let addrs = GuardedResolver::new(allowed.to_vec())
        .call(Name::from_str(&name).map_err(|e| format!("{name}: {e}"))?)
        .await
        .map_err(|e| e.to_string())?;
    // The first address that takes a connection (a name may have several, not all up).
    let port = u.port_or_known_default().unwrap_or(443);
    let mut ip = None;
    for a in addrs {
        let at = SocketAddr::new(a.ip(), port);
        let probe = tokio::time::timeout(CONNECT_PROBE, tokio::net::TcpStream::connect(at));
        if matches!(probe.await, Ok(Ok(_))) {
            ip = Some(a.ip());
            break;
        }
    }
    let ip = ip.ok_or_else(|| format!("no address of {name} takes connections on port {port}"))?;
    u.set_ip_host(ip)
        .map_err(|()| format!("cannot put {ip} into {endpoint}"))?;
    Ok((u.to_string().trim_end_matches('/').to_owned(), Some(name)))
}

#[cfg(test)]
mod tests {
    use tower::ServiceExt;

    use super::*;

    #[tokio::test]
    async fn names_with_a_refused_address_are_refused() {
        let name = Name::from_str("localhost").unwrap();
        let refused = GuardedResolver::new(vec![]).oneshot(name.clone()).await;
        assert!(refused.is_err());
        let loopback = vec![
            IpNet::from_str("127.0.0.0/8").unwrap(),
            IpNet::from_str("::1/128").unwrap(),
        ];
        let fine = GuardedResolver::new(loopback.clone())
            .oneshot(name)
            .await
            .unwrap();
        assert!(fine.into_iter().all(|a| a.ip().is_loopback()));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let endpoint = format!("https://localhost:{port}");
        let (server, tls_name) = pinned(&endpoint, &loopback).await.unwrap();
        assert_eq!(
            server,
            format!("https://127.0.0.1:{port}"),
            "the address listening"
        );
        assert_eq!(tls_name.as_deref(), Some("localhost"));
        let kept = pinned("https://10.1.2.3:6443", &[]).await.unwrap();
        assert_eq!(kept, ("https://10.1.2.3:6443".to_owned(), None));
        assert!(pinned("https://localhost:6443", &[]).await.is_err());
        assert!(pinned("https://169.254.169.254", &[]).await.is_err());
    }
}
