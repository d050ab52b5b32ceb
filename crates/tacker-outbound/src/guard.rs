//! Where outbound requests may go (`[outbound] allowed_networks`): every name is resolved
//! by [`GuardedResolver`], which refuses it when any of its addresses is internal
//! (`tacker_domain::uri_guard`) and not allowed, so the connection goes to exactly the
//! addresses checked (DNS rebinding gains nothing); IP literals are checked before the
//! request and on each redirect hop. Refused targets get no request at all.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use ipnet::IpNet;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use tacker_domain::uri_guard;

/// Most redirects followed.
pub const MAX_REDIRECTS: usize = 5;

/// The networks outbound requests may reach besides public ones.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    allowed: Arc<Vec<IpNet>>,
    /// VIM endpoints: private networks are reachable too (`uri_guard::refused_vim`).
    vims: bool,
}

impl Guard {
    /// A guard allowing `allowed` besides public addresses.
    pub fn new(allowed: Vec<IpNet>) -> Self {
        Self {
            allowed: Arc::new(allowed),
            vims: false,
        }
    }

    /// A guard for VIM endpoints (where a VIM's credentials go): private networks are
    /// reachable, as VIMs live there; loopback, link-local (cloud metadata), unspecified
    /// and reserved addresses are not, unless `allowed` has them.
    pub fn for_vims(allowed: Vec<IpNet>) -> Self {
        Self {
            allowed: Arc::new(allowed),
            vims: true,
        }
    }

    /// Why `ip` may not be reached, if it may not.
    pub fn refused(&self, ip: IpAddr) -> Option<String> {
        let why = if self.vims {
            uri_guard::refused_vim(ip, &self.allowed)
        } else {
            uri_guard::refused(ip, &self.allowed)
        };
        why.map(|why| uri_guard::refusal(ip, why))
    }

    /// Why `url` may not be reached, as far as can be said without resolving it: its
    /// scheme, its credentials, and its host when that is an IP literal.
    pub fn check_url(&self, url: &url::Url) -> Result<(), String> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("{url}: only http and https are followed"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("URLs carrying credentials are refused".into());
        }
        match url.host() {
            Some(url::Host::Ipv4(ip)) => self.refused(IpAddr::V4(ip)).map_or(Ok(()), Err),
            Some(url::Host::Ipv6(ip)) => self.refused(IpAddr::V6(ip)).map_or(Ok(()), Err),
            Some(url::Host::Domain(_)) => Ok(()),
            None => Err(format!("{url} has no host")),
        }
    }

    /// The resolver enforcing this guard on names.
    pub fn resolver(&self) -> Arc<GuardedResolver> {
        Arc::new(GuardedResolver {
            guard: self.clone(),
        })
    }

    /// The redirect policy: at most [`MAX_REDIRECTS`] hops, each checked like the first
    /// (reqwest drops `Authorization` when a hop leaves the origin).
    pub fn redirects(&self) -> reqwest::redirect::Policy {
        let guard = self.clone();
        reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= MAX_REDIRECTS {
                return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
            }
            match url::Url::parse(attempt.url().as_str())
                .map_err(|e| e.to_string())
                .and_then(|u| guard.check_url(&u))
            {
                Ok(()) => attempt.follow(),
                Err(why) => attempt.error(format!("redirect refused: {why}")),
            }
        })
    }
}

/// Resolves names, refusing those with an internal address that is not allowed.
#[derive(Debug)]
pub struct GuardedResolver {
    guard: Guard,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.guard.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if let Some(why) = addrs.iter().find_map(|a| guard.refused(a.ip())) {
                let e: Box<dyn std::error::Error + Send + Sync> =
                    format!("{host} resolves to {why}").into();
                return Err(e);
            }
            let out: Addrs = Box::new(addrs.into_iter());
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Guard;

    #[test]
    fn literal_hosts_schemes_and_credentials_are_checked() {
        let g = Guard::new(vec!["127.0.0.1/32".parse().unwrap()]);
        let ok = |u: &str| g.check_url(&url::Url::parse(u).unwrap());
        assert!(ok("http://127.0.0.1:8080/x").is_ok());
        assert!(ok("http://127.0.0.2:8080/x").is_err());
        assert!(ok("http://169.254.169.254/latest").is_err());
        assert!(ok("http://[::1]/").is_err());
        assert!(ok("file:///etc/passwd").is_err());
        assert!(ok("http://u:p@example.com/").is_err());
        assert!(ok("https://example.com/").is_ok());
        let v = Guard::for_vims(vec![]);
        let vim = |u: &str| v.check_url(&url::Url::parse(u).unwrap());
        assert!(
            vim("https://10.0.0.5:5000/v3").is_ok(),
            "VIMs live on private networks"
        );
        assert!(vim("https://127.0.0.1:5000/v3").is_err());
        assert!(vim("http://169.254.169.254/latest").is_err());
    }
}
