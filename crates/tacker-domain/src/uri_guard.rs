//! Which addresses a package URI may lead the VNFM to (server-side request forgery guard).

use std::net::IpAddr;

use ipnet::IpNet;

/// Why an address is refused, or `None` when it may be reached. Internal addresses
/// (loopback, private, link-local incl. cloud metadata, CGNAT, IETF protocol
/// assignments, benchmarking, reserved, unique-local and site-local, unspecified,
/// multicast) are refused unless one of `allowed` contains them; so are IPv6 addresses
/// that carry a refused IPv4 one (mapped, compatible, NAT64, 6to4).
pub fn refused(ip: IpAddr, allowed: &[IpNet]) -> Option<&'static str> {
    if allowed.iter().any(|n| n.contains(&ip)) {
        return None;
    }
    let reason = match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            if v4.is_loopback() {
                "loopback address"
            } else if v4.is_private() {
                "private address"
            } else if v4.is_link_local() {
                "link-local or metadata address"
            } else if o[0] == 100 && (64..128).contains(&o[1]) {
                "shared (CGNAT) address"
            } else if o[0] == 192 && o[1] == 0 && o[2] == 0 {
                "IETF protocol assignment address"
            } else if o[0] == 198 && (o[1] & 0xfe) == 18 {
                "benchmarking address"
            } else if o[0] >= 240 {
                "reserved address"
            } else if v4.is_unspecified() || v4.is_broadcast() || v4.is_multicast() || o[0] == 0 {
                "non-routable address"
            } else {
                return None;
            }
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return refused(IpAddr::V4(v4), allowed);
            }
            let s = v6.segments();
            let o = v6.octets();
            let embedded = |a: u8, b: u8, c: u8, d: u8| {
                refused(IpAddr::V4(std::net::Ipv4Addr::new(a, b, c, d)), allowed)
            };
            // ::a.b.c.d (IPv4-compatible, deprecated), but :: and ::1 themselves.
            if s[..6] == [0; 6] && !v6.is_loopback() && !v6.is_unspecified() {
                return embedded(o[12], o[13], o[14], o[15]).or(Some("IPv4-compatible address"));
            }
            // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) reach the IPv4 address they carry.
            if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                return embedded(o[12], o[13], o[14], o[15]);
            }
            if s[0] == 0x2002 {
                return embedded(o[2], o[3], o[4], o[5]);
            }
            if v6.is_loopback() {
                "loopback address"
            } else if v6.is_unspecified() || v6.is_multicast() {
                "non-routable address"
            } else if s[0] & 0xfe00 == 0xfc00 {
                "unique-local address"
            } else if s[0] & 0xffc0 == 0xfe80 {
                "link-local address"
            } else if s[0] & 0xffc0 == 0xfec0 {
                "site-local address"
            } else {
                return None;
            }
        }
    };
    Some(reason)
}

/// Why a VIM endpoint at `ip` is refused, or `None`: VIMs live on private networks, so
/// those are reachable; loopback, link-local (cloud metadata), unspecified, multicast
/// and reserved addresses (and IPv6 forms of them) are not, unless `allowed` has them.
pub fn refused_vim(ip: IpAddr, allowed: &[IpNet]) -> Option<&'static str> {
    let reason = refused(ip, allowed)?;
    match reason {
        "private address" | "shared (CGNAT) address" | "unique-local address" => None,
        other => Some(other),
    }
}

/// Why a conductor may not send a VIM's credentials to `url`, or `Ok`: a scheme other
/// than http(s), credentials in the URL, no host, or a host that is an IP literal
/// [`refused_vim`] refuses (names are checked when resolved, by the driver's resolver).
pub fn check_vim_url(url: &str, allowed: &[IpNet]) -> Result<(), String> {
    let u = url::Url::parse(url).map_err(|e| format!("not a URL: {e}"))?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err("only http and https are used".into());
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err("it carries credentials".into());
    }
    let ip: IpAddr = match u.host() {
        Some(url::Host::Ipv4(ip)) => ip.into(),
        Some(url::Host::Ipv6(ip)) => ip.into(),
        Some(url::Host::Domain(_)) => return Ok(()),
        None => return Err("it has no host".into()),
    };
    match refused_vim(ip, allowed) {
        Some(why) => Err(refusal(ip, why)),
        None => Ok(()),
    }
}

/// The reason given for a refused address.
pub fn refusal(ip: IpAddr, why: &str) -> String {
    format!("{ip} is a {why}; allow it in outbound.allowed_networks")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(ip: &str, allowed: &[&str]) -> Option<&'static str> {
        let allowed: Vec<IpNet> = allowed
            .iter()
            .map(|s| {
                s.parse()
                    .unwrap_or_else(|_| IpNet::from(s.parse::<IpAddr>().unwrap()))
            })
            .collect();
        refused(ip.parse().unwrap(), &allowed)
    }

    #[test]
    fn vim_endpoints_may_be_private_but_not_loopback_or_metadata() {
        let v = |ip: &str| refused_vim(ip.parse().unwrap(), &[]);
        assert!(v("10.1.2.3").is_none());
        assert!(v("192.168.0.5").is_none());
        assert!(v("fd00::5").is_none());
        assert!(v("127.0.0.1").is_some());
        assert!(v("169.254.169.254").is_some());
        assert!(v("::ffff:127.0.0.1").is_some());
        assert!(v("0.0.0.0").is_some());
        assert!(
            refused_vim(
                "127.0.0.1".parse().unwrap(),
                &["127.0.0.1/32".parse().unwrap()]
            )
            .is_none()
        );
    }

    #[test]
    fn internal_addresses_are_refused_unless_allowed() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "192.0.0.8",
            "198.18.0.1",
            "198.19.255.1",
            "240.0.0.1",
            "255.255.255.255",
            "fec0::1",
            "::127.0.0.1",
            "::10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::127.0.0.1",
            "2002:7f00:1::1",
            "2002:a9fe:a9fe::1",
        ] {
            assert!(r(ip, &[]).is_some(), "{ip}");
        }
        assert_eq!(
            r("169.254.169.254", &[]),
            Some("link-local or metadata address")
        );
        assert!(r("93.184.216.34", &[]).is_none());
        assert!(r("2606:4700::1", &[]).is_none());
        // Public IPv4 behind NAT64/6to4 stays reachable.
        assert!(r("64:ff9b::5db8:d822", &[]).is_none());
        assert!(r("2002:5db8:d822::1", &[]).is_none());
        assert!(r("198.20.0.1", &[]).is_none());
        assert!(r("127.0.0.1", &["127.0.0.1/32"]).is_none());
        assert!(r("127.0.0.2", &["127.0.0.1"]).is_some());
        assert!(r("10.20.3.4", &["10.20.0.0/16"]).is_none());
    }
}
