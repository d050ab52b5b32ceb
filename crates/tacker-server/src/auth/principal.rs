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
    /// The client certificate (`x5t#S256`) the token is bound to (RFC 8705 `cnf`).
    pub bound_to: Option<String>,
}

impl Principal {
    /// The caller under `auth.mode = none`: an administrator on loopback.
    pub fn local() -> Self {
        Self {
            subject: "local".into(),
            role: Some(Role::Admin),
            tenant: None,
            bound_to: None,
        }
    }

    /// The highest of the roles named (unknown names are ignored).
    pub fn highest<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<Role> {
        names.into_iter().filter_map(Role::parse).max()
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
            bound_to: None,
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
            bound_to: None,
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
}
