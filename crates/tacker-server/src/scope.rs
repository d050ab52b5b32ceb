//! Vendor and area scoping (Tacker's enhanced policy): what a caller confined by
//! `VENDOR_<provider>` or `AREA_<area>` roles sees. Packages have the vendor of their
//! `vnfProvider`, VIMs the area of their `extra.area`, instances both (their package's
//! provider, the areas of their VIMs); what is out of scope is absent (404, not listed).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};
use tacker_domain::lcm::{InstantiationState, VnfInstance};
use tacker_domain::vim::Vim;

use crate::auth::Principal;
use crate::{ApiError, ServerState};

/// The areas of the registered VIMs, read once per request and only for callers
/// confined to areas (VIMs are few; nobody else needs them).
#[derive(Debug, Default)]
pub struct VimAreas {
    by_id: HashMap<String, String>,
    default: Option<String>,
}

impl VimAreas {
    /// The registered VIMs' areas, when `who` is confined to areas (else none needed).
    pub async fn load(st: &ServerState, who: &Principal) -> Result<Arc<Self>, ApiError> {
        if !who.confined_to_areas() {
            return Ok(Arc::default());
        }
        let keys = st.keys.clone();
        let vims = st.db.run(move |c| tacker_db::vims::list(c, &keys)).await?;
        let mut areas = Self::default();
        for v in &vims {
            if let Some(a) = v.area() {
                areas.by_id.insert(v.id.to_string(), a.to_owned());
                if v.is_default {
                    areas.default = Some(a.to_owned());
                }
            }
        }
        Ok(Arc::new(areas))
    }

    /// The areas of `vci`'s entries: an inline entry's `extra.area`, a registered VIM's
    /// own.
    pub fn of_connections<'a>(&'a self, vci: &'a Map<String, Value>) -> Vec<&'a str> {
        vci.values()
            .filter_map(|e| {
                e.pointer("/extra/area")
                    .and_then(Value::as_str)
                    .or_else(|| {
                        e.get("vimId")
                            .and_then(Value::as_str)
                            .and_then(|id| self.by_id.get(id))
                            .map(String::as_str)
                    })
                    .filter(|a| !a.is_empty())
            })
            .collect()
    }

    /// The areas an instance lives in: its VIMs', or the default VIM's when it was
    /// instantiated without naming one.
    pub fn of<'a>(&'a self, i: &'a VnfInstance) -> Vec<&'a str> {
        if i.vim_connection_info.is_empty() {
            return match (&i.instantiation_state, &self.default) {
                (InstantiationState::Instantiated, Some(a)) => vec![a.as_str()],
                _ => Vec::new(),
            };
        }
        self.of_connections(&i.vim_connection_info)
    }
}

/// Whether `who` sees the instance: its tenant, its provider and its areas.
pub fn sees_instance(who: &Principal, i: &VnfInstance, areas: &VimAreas) -> bool {
    who.sees(i.tenant.as_deref())
        && who.sees_vendor(Some(&i.vnf_provider))
        && who.sees_areas(areas.of(i))
}

/// Whether `who` sees the registered VIM.
pub fn sees_vim(who: &Principal, v: &Vim) -> bool {
    who.sees_areas(v.area())
}
