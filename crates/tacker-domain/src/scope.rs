//! Vendor and area confinement (Tacker's enhanced policy): a caller with `VENDOR_<name>`
//! roles sees the packages and instances of those providers, one with `AREA_<name>`
//! roles the VIMs and instances of those areas. A subscription keeps the confinement of
//! its creator, so its notifications tell of nothing its creator could not read.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::lcm::{InstantiationState, VnfInstance};
use crate::vim::connection::VimConnections;

/// Whether a caller confined to `mine` providers (empty: not confined) sees one of
/// `vendor` (none yet, as a package not onboarded: seen by all; compared without case).
pub fn sees_vendor(mine: &[String], vendor: Option<&str>) -> bool {
    match vendor.filter(|v| !v.is_empty()) {
        Some(v) if !mine.is_empty() => mine.iter().any(|m| m.eq_ignore_ascii_case(v)),
        _ => true,
    }
}

/// Whether a caller confined to `mine` areas (empty: not confined) sees what lives in
/// every one of `areas` (nothing placed yet, or VIMs without an area: seen by all).
pub fn sees_areas<'a>(mine: &[String], areas: impl IntoIterator<Item = &'a str>) -> bool {
    mine.is_empty() || areas.into_iter().all(|a| mine.iter().any(|m| m == a))
}

/// The providers and areas a subscription's creator was confined to (empty: none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confinement {
    /// `VENDOR_<name>` roles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vendors: Vec<String>,
    /// `AREA_<name>` roles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub areas: Vec<String>,
}

impl Confinement {
    /// Whether nothing is confined.
    pub fn is_none(&self) -> bool {
        self.vendors.is_empty() && self.areas.is_empty()
    }

    /// Whether it sees a package or instance of provider `vendor`.
    pub fn sees_vendor(&self, vendor: Option<&str>) -> bool {
        sees_vendor(&self.vendors, vendor)
    }

    /// Whether it sees an instance: its provider and the areas it lives in.
    pub fn sees_instance(&self, i: &VnfInstance, areas: &VimAreas) -> bool {
        self.sees_vendor(Some(&i.vnf_provider)) && sees_areas(&self.areas, areas.of(i))
    }

    /// Whether `other` hears of nothing this one does not (a caller confined to this
    /// sees a subscription made under `other`): each of its lists is set and within ours.
    pub fn covers(&self, other: &Confinement) -> bool {
        let within = |mine: &[String], theirs: &[String], eq: fn(&str, &str) -> bool| {
            mine.is_empty()
                || (!theirs.is_empty() && theirs.iter().all(|t| mine.iter().any(|m| eq(m, t))))
        };
        within(&self.vendors, &other.vendors, |a, b| {
            a.eq_ignore_ascii_case(b)
        }) && within(&self.areas, &other.areas, |a, b| a == b)
    }
}

/// The areas (`extra.area`) of the registered VIMs, by id, and of each tenant's default
/// VIM, by tenant ('': none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VimAreas {
    by_id: HashMap<String, String>,
    defaults: HashMap<String, String>,
}

impl VimAreas {
    /// The areas of `vims`: (id, area, the tenant it is the default VIM of).
    pub fn new(vims: impl IntoIterator<Item = (String, Option<String>, Option<String>)>) -> Self {
        let mut areas = Self::default();
        for (id, area, default_of) in vims {
            if let Some(a) = area.filter(|a| !a.is_empty()) {
                if let Some(t) = default_of {
                    areas.defaults.insert(t, a.clone());
                }
                areas.by_id.insert(id, a);
            }
        }
        areas
    }

    /// The areas of `vci`'s entries: an inline entry's `extra.area`, a registered VIM's
    /// own.
    pub fn of_connections<'a>(&'a self, vci: &'a VimConnections) -> Vec<&'a str> {
        vci.values()
            .filter_map(|e| {
                e.area().or_else(|| {
                    e.vim_id
                        .as_deref()
                        .and_then(|id| self.by_id.get(id))
                        .map(String::as_str)
                })
            })
            .filter(|a| !a.is_empty())
            .collect()
    }

    /// The areas an instance lives in: its VIMs', or its tenant's default VIM's when it
    /// was instantiated without naming one.
    pub fn of<'a>(&'a self, i: &'a VnfInstance) -> Vec<&'a str> {
        if i.vim_connection_info.is_empty() {
            let default = self.defaults.get(i.tenant.as_deref().unwrap_or_default());
            return match (&i.instantiation_state, default) {
                (InstantiationState::Instantiated, Some(a)) => vec![a.as_str()],
                _ => Vec::new(),
            };
        }
        self.of_connections(&i.vim_connection_info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(vendors: &[&str], areas: &[&str]) -> Confinement {
        Confinement {
            vendors: vendors.iter().map(|s| (*s).to_owned()).collect(),
            areas: areas.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    #[test]
    fn vendors_compare_without_case_and_areas_must_all_be_seen() {
        let mine = c(&["Acme"], &["tokyo"]);
        assert!(mine.sees_vendor(Some("ACME")));
        assert!(!mine.sees_vendor(Some("Other")));
        assert!(mine.sees_vendor(None), "not onboarded yet");
        assert!(sees_areas(&mine.areas, ["tokyo"]));
        assert!(!sees_areas(&mine.areas, ["tokyo", "osaka"]));
        assert!(sees_areas(&mine.areas, []));
        assert!(Confinement::default().sees_vendor(Some("Other")));
    }

    #[test]
    fn a_confined_caller_sees_only_subscriptions_as_narrow_as_itself() {
        let acme = c(&["acme"], &[]);
        assert!(Confinement::default().covers(&acme));
        assert!(acme.covers(&c(&["ACME"], &["tokyo"])));
        assert!(!acme.covers(&Confinement::default()));
        assert!(!acme.covers(&c(&["acme", "other"], &[])));
        assert!(!c(&[], &["tokyo"]).covers(&c(&["acme"], &[])));
    }
}
