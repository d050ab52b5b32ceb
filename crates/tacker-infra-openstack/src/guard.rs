//! Where the driver may send a VIM's credentials and tokens: Keystone's `auth_url`, the
//! Heat endpoint of Keystone's catalog, and every URL Heat links to. Names are resolved by
//! [`VimResolver`], which refuses them when any address is loopback, link-local (cloud
//! metadata), unspecified or reserved outside `outbound.allowed_networks` (private
//! networks are fine: VIMs live there), and the connection goes to exactly the addresses
//! checked; IP literals are checked before each request. The API checks the endpoints a
//! client gives; this holds for what the conductor meets later (a catalog, a link, a
//! name that resolves elsewhere by then).

use std::net::SocketAddr;
use std::sync::Arc;

use ipnet::IpNet;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use tacker_domain::uri_guard;

use crate::error::{Error, Result};

/// The networks besides public and private ones the driver may reach.
#[derive(Debug, Clone, Default)]
pub struct EndpointGuard {
    allowed: Arc<Vec<IpNet>>,
}

impl EndpointGuard {
    /// A guard allowing `allowed` besides public and private addresses.
    pub fn new(allowed: Vec<IpNet>) -> Self {
        Self {
            allowed: Arc::new(allowed),
        }
    }

    /// Refuses `url` when its scheme is not http(s), it carries credentials, or its host
    /// is a refused IP literal (names are checked when resolved).
    pub fn check(&self, url: &str) -> Result<()> {
        uri_guard::check_vim_url(url, &self.allowed)
            .map_err(|why| Error::Vim(format!("endpoint {url} refused: {why}")))
    }

    /// The resolver enforcing this guard on names.
    pub fn resolver(&self) -> Arc<VimResolver> {
        Arc::new(VimResolver {
            guard: self.clone(),
        })
    }
}

/// Resolves names, refusing those with an address the guard refuses.
#[derive(Debug)]
pub struct VimResolver {
    guard: EndpointGuard,
}

impl Resolve for VimResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.guard.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let refused = addrs.iter().find_map(|a| {
                uri_guard::refused_vim(a.ip(), &guard.allowed)
                    .map(|why| uri_guard::vim_refusal(a.ip(), why))
            });
            if let Some(why) = refused {
                return Err(format!("{host}: {why}").into());
            }
            let addrs: Addrs = Box::new(addrs.into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_schemes_and_credentials_are_checked() {
        let g = EndpointGuard::new(vec![]);
        assert!(
            g.check("https://10.0.0.5:5000/v3").is_ok(),
            "private is fine"
        );
        assert!(g.check("https://keystone.example:5000/v3").is_ok());
        for bad in [
            "http://169.254.169.254/latest/meta-data",
            "https://127.0.0.1:8004/v1",
            "https://[::1]/v1",
            "https://u:p@10.0.0.5/v3",
            "file:///etc/passwd",
        ] {
            assert!(g.check(bad).is_err(), "{bad}");
        }
        let lo = EndpointGuard::new(vec!["127.0.0.0/8".parse().unwrap()]);
        assert!(lo.check("https://127.0.0.1:8004/v1").is_ok());
    }

    #[tokio::test]
    async fn names_resolving_to_refused_addresses_are_refused() {
        let g = EndpointGuard::new(vec![]);
        let r = g.resolver().resolve("localhost".parse().unwrap()).await;
        assert!(r.is_err());
        let lo = EndpointGuard::new(vec![
            "127.0.0.0/8".parse().unwrap(),
            "::1/128".parse().unwrap(),
        ]);
        let r = lo.resolver().resolve("localhost".parse().unwrap()).await;
        assert!(r.is_ok());
    }
}
