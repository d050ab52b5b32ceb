//! Who is calling, and what they may do.

use actix_web::{FromRequest, HttpMessage, HttpRequest};

use crate::ApiError;

/// What a route needs. Roles nest: `admin` may do what `member` may, `member` what
/// `reader` may.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// Reads (GET).
    Reader,
    /// SOL003/SOL005 writes.
    Member,
    /// `/admin/v1/*`, `/metrics`, sync; every tenant.
    Admin,
}

impl Role {
    /// The role named `name` (`reader`, `member`, `admin`; Keystone's `_member_` too).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "reader" => Some(Role::Reader),
            "member" | "_member_" => Some(Role::Member),
            "admin" => Some(Role::Admin),
            _ => None,
        }
    }

    /// The role's name.
    pub fn name(self) -> &'static str {
        match self {
            Role::Reader => "reader",
            Role::Member => "member",
            Role::Admin => "admin",
        }
    }
}

/// The role of monitoring systems posting alerts (Alertmanager): it may post to the
/// alert webhooks and nothing else (outside the nesting of the other roles).
pub const ALERT_ROLE: &str = "alert";

/// The tenant name standing for every tenant (`TENANT_all`, as Tacker's enhanced
/// policy).
pub const ALL: &str = "all";

/// An authenticated caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The token's `sub` (a client id for the built-in endpoint); `local` under mode
    /// `none`.
    pub subject: String,
    /// The highest role granted, if any.
    pub role: Option<Role>,
    /// The caller's tenant, when the token names one.
    pub tenant: Option<String>,
    /// `VENDOR_<name>` roles: the package providers (`vnfProvider`) whose packages and
    /// instances the caller sees; none: every provider.
    pub vendors: Vec<String>,
    /// `AREA_<name>` roles: the VIM areas (`extra.area`) whose VIMs and instances the
    /// caller sees; none: every area.
    pub areas: Vec<String>,
    /// The client certificate (`x5t#S256`) the token is bound to (RFC 8705 `cnf`).
    pub bound_to: Option<String>,
    /// Holds the `alert` role: may post monitoring alerts (Alertmanager's webhooks),
    /// whatever its other roles.
    pub alerter: bool,
}

impl Principal {
    /// The caller under `auth.mode = none`: an administrator on loopback.
    pub fn local() -> Self {
        Self {
            subject: "local".into(),
            role: Some(Role::Admin),
            tenant: None,
            vendors: Vec::new(),
            areas: Vec::new(),
            bound_to: None,
            alerter: true,
        }
    }

    /// The names the `<prefix><name>` roles among `roles` give (`VENDOR_`, `AREA_`).
    pub fn attribute_names<'a>(
        roles: impl IntoIterator<Item = &'a str>,
        prefix: &str,
    ) -> Vec<String> {
        roles
            .into_iter()
            .filter_map(|r| r.strip_prefix(prefix))
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// The highest of the roles named (unknown names are ignored).
    pub fn highest<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<Role> {
        names.into_iter().filter_map(Role::parse).max()
    }

    /// Whether the caller may post monitoring alerts: the `alert` role, or `admin`.
    pub fn may_alert(&self) -> bool {
        self.alerter || self.may(Role::Admin)
    }

    /// Whether the caller holds `need` (or a role above it).
    pub fn may(&self, need: Role) -> bool {
        self.role.is_some_and(|r| r >= need)
    }

    /// The tenant what the caller creates belongs to (`all` is none).
    pub fn owner(&self) -> Option<String> {
        self.tenant.clone().filter(|t| t != ALL)
    }

    /// The tenant the caller is confined to: `None` for administrators, for callers of
    /// no tenant (single-tenant deployments) and for `all`.
    pub fn scope(&self) -> Option<&str> {
        if self.may(Role::Admin) {
            return None;
        }
        self.tenant.as_deref().filter(|t| *t != ALL)
    }

    /// Whether the caller sees a resource of `tenant`.
    pub fn sees(&self, tenant: Option<&str>) -> bool {
        self.scope().is_none_or(|mine| tenant == Some(mine))
    }

    /// The names of `attribute` roles the caller is confined to: `None` for
    /// administrators, callers without such roles and `<ATTRIBUTE>_all`.
    fn confined<'a>(&self, names: &'a [String]) -> Option<&'a [String]> {
        if self.may(Role::Admin) || names.is_empty() || names.iter().any(|n| n == ALL) {
            None
        } else {
            Some(names)
        }
    }

    /// Whether the caller sees a package or instance of provider `vendor` (a package
    /// not yet onboarded has none and is seen by all; providers compare without case).
    pub fn sees_vendor(&self, vendor: Option<&str>) -> bool {
        tacker_domain::scope::sees_vendor(self.confined(&self.vendors).unwrap_or_default(), vendor)
    }

    /// The vendors and areas the caller is confined to, as a subscription it makes
    /// keeps them (its notifications tell of nothing the caller could not read).
    pub fn confinement(&self) -> tacker_domain::scope::Confinement {
        tacker_domain::scope::Confinement {
            vendors: self.confined(&self.vendors).unwrap_or_default().to_vec(),
            areas: self.confined(&self.areas).unwrap_or_default().to_vec(),
        }
    }

    /// Whether the caller is confined to some vendors or areas (what it sees then depends
    /// on packages and VIMs, not only on tenants).
    pub fn confined_beyond_tenant(&self) -> bool {
        self.confined(&self.vendors).is_some() || self.confined_to_areas()
    }

    /// Whether the caller is confined to some VIM areas.
    pub fn confined_to_areas(&self) -> bool {
        self.confined(&self.areas).is_some()
    }

    /// Whether the caller sees what lives in every one of `areas` (nothing placed yet,
    /// or VIMs without an area, are seen by all).
    pub fn sees_areas<'a>(&self, areas: impl IntoIterator<Item = &'a str>) -> bool {
        tacker_domain::scope::sees_areas(self.confined(&self.areas).unwrap_or_default(), areas)
    }
}

impl FromRequest for Principal {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(
            req.extensions()
                .get::<Principal>()
                .cloned()
                .ok_or_else(|| ApiError::Unauthorized("no valid token".into())),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_nest_and_the_highest_counts() {
        let p = Principal {
            subject: "x".into(),
            role: Principal::highest(["reader", "member", "nonsense"]),
            tenant: None,
            vendors: Vec::new(),
            areas: Vec::new(),
            bound_to: None,
            alerter: false,
        };
        assert!(p.may(Role::Reader));
        assert!(p.may(Role::Member));
        assert!(!p.may(Role::Admin));
        let nobody = Principal {
            role: Principal::highest(["nonsense"]),
            ..p
        };
        assert!(!nobody.may(Role::Reader));
    }

    #[test]
    fn tenants_confine_all_but_administrators() {
        let member = |t: Option<&str>| Principal {
            subject: "m".into(),
            role: Some(Role::Member),
            tenant: t.map(str::to_owned),
            vendors: Vec::new(),
            areas: Vec::new(),
            bound_to: None,
            alerter: false,
        };
        assert!(member(Some("t1")).sees(Some("t1")));
        assert!(!member(Some("t1")).sees(Some("t2")));
        assert!(!member(Some("t1")).sees(None));
        assert!(member(None).sees(Some("t2")));
        assert!(member(Some("all")).sees(Some("t2")));
        assert_eq!(member(Some("all")).owner(), None);
        let admin = Principal {
            role: Some(Role::Admin),
            ..member(Some("t1"))
        };
        assert!(admin.sees(Some("t2")));
        assert_eq!(admin.owner().as_deref(), Some("t1"));
    }

    #[test]
    fn vendor_and_area_roles_confine_all_but_administrators() {
        let member = |vendors: &[&str], areas: &[&str]| Principal {
            subject: "m".into(),
            role: Some(Role::Member),
            tenant: None,
            vendors: vendors.iter().map(|v| (*v).to_owned()).collect(),
            areas: areas.iter().map(|v| (*v).to_owned()).collect(),
            bound_to: None,
            alerter: false,
        };
        let acme = member(&["Acme"], &["tokyo"]);
        assert!(acme.sees_vendor(Some("acme")));
        assert!(!acme.sees_vendor(Some("Other")));
        assert!(acme.sees_vendor(None), "a package not onboarded yet");
        assert!(acme.sees_areas(["tokyo"]));
        assert!(!acme.sees_areas(["tokyo", "osaka"]));
        assert!(acme.sees_areas([]));
        assert!(acme.confined_to_areas());
        let all = member(&["all"], &["all"]);
        assert!(all.sees_vendor(Some("Other")) && all.sees_areas(["osaka"]));
        assert!(!all.confined_to_areas());
        let free = member(&[], &[]);
        assert!(free.sees_vendor(Some("Other")) && free.sees_areas(["osaka"]));
        let admin = Principal {
            role: Some(Role::Admin),
            ..acme
        };
        assert!(admin.sees_vendor(Some("Other")) && admin.sees_areas(["osaka"]));
    }
}
