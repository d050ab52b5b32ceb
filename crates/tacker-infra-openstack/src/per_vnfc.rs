//! Upstream's `StandardUserData` layout: the base HOT names each VDU once, as a resource
//! of a nested template (`VDU1: {type: VDU1.yaml, properties: {flavor: {get_param:
//! [nfv, VDU, VDU1, computeFlavourId]}, ...}}`), and the stack holds one copy of it per
//! VNFC, `VDU1-0`, `VDU1-1`, ..., each reading its own `nfv` entries (`VDU1-0`,
//! `VDU1_CP1-0`). A VNFC is then one nested stack: scaling adds or removes copies, a
//! heal replaces only that VNFC's nested stack, and `additionalParams.nfv` can give one
//! VNFC its own image or flavour (`nfv.VDU.VDU1-1.vcImageId`). Each VNFC records its
//! index (`vdu_idx`, upstream's name) so the copies are known again later.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};
use tacker_domain::lcm::VnfcResourceInfo;
use tacker_domain::vnfd::Flavour;

use crate::error::{Error, Result};
use crate::template::BaseHot;

/// The user-data class that asks for this layout.
pub const CLASS: &str = "StandardUserData";
/// `lcm-operation-user-data-class`.
pub const CLASS_PARAM: &str = "lcm-operation-user-data-class";
/// The VNFC metadata key holding its index.
pub const INDEX: &str = "vdu_idx";

/// How the stack holds the VNFCs of a VDU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// As the base HOT says (autoscaling groups, fixed servers).
    #[default]
    Template,
    /// One copy of the VDU's nested template per VNFC.
    PerVnfc,
}

impl Layout {
    /// The layout an instantiation's `additionalParams` ask for.
    pub fn of(additional_params: &Map<String, Value>) -> Self {
        match additional_params.get(CLASS_PARAM).and_then(Value::as_str) {
            Some(CLASS) => Self::PerVnfc,
            _ => Self::Template,
        }
    }

    /// The layout recorded in the instance's driver metadata.
    pub fn recorded(meta: &Value) -> Self {
        match meta.get("userDataClass").and_then(Value::as_str) {
            Some(CLASS) => Self::PerVnfc,
            _ => Self::Template,
        }
    }

    /// What the driver metadata records (nothing for the template layout, so what
    /// instances stored before stays as it was).
    pub fn record(self, meta: &mut Map<String, Value>) {
        if self == Self::PerVnfc {
            meta.insert("userDataClass".into(), Value::String(CLASS.into()));
        }
    }
}

/// The VNFC indexes of each VDU.
pub type Indexes = BTreeMap<String, BTreeSet<u32>>;

/// `name-index`.
pub fn indexed(name: &str, index: u32) -> String {
    format!("{name}-{index}")
}

/// `name-index` split into the name and the index; `None` for a name of no copy.
pub fn split(key: &str) -> Option<(&str, u32)> {
    let (name, index) = key.rsplit_once('-')?;
    Some((name, index.parse().ok()?))
}

/// The indexes the stored VNFCs hold.
pub fn indexes_of(list: &[VnfcResourceInfo]) -> Indexes {
    let mut out = Indexes::new();
    for r in list {
        if let Some(i) = r
            .metadata
            .get(INDEX)
            .and_then(Value::as_u64)
            .and_then(|i| u32::try_from(i).ok())
        {
            out.entry(r.vdu_id.clone()).or_default().insert(i);
        }
    }
    out
}

/// Indexes for `counts` VNFCs per VDU: those of `now` kept while the count allows (the
/// lowest first), the lowest free ones added.
pub fn sized(now: &Indexes, counts: &BTreeMap<String, u32>) -> Indexes {
    counts
        .iter()
        .map(|(vdu, n)| {
            let have = now.get(vdu).cloned().unwrap_or_default();
            let mut set: BTreeSet<u32> = have.iter().copied().take(*n as usize).collect();
            let mut next = 0;
            while set.len() < *n as usize {
                if !have.contains(&next) && !set.contains(&next) {
                    set.insert(next);
                }
                next += 1;
            }
            (vdu.clone(), set)
        })
        .collect()
}

/// Renames the third element of every `get_param: [nfv, VDU|CP, name, ...]` in `v`.
fn index_params(v: &mut Value, index: u32) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(p)) = m.get_mut("get_param")
                && p.len() >= 4
                && p[0] == "nfv"
                && let Some(name) = p[2].as_str()
            {
                p[2] = Value::String(indexed(name, index));
            }
            m.values_mut().for_each(|x| index_params(x, index));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| index_params(x, index)),
        _ => {}
    }
}

/// The base HOT with each VDU's resource replaced by its copies at `indexes`.
pub fn expand(hot: &BaseHot, flavour: &Flavour, indexes: &Indexes) -> Result<BaseHot> {
    let mut top = hot.parsed.clone();
    let resources = top
        .get_mut("resources")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| Error::Package("the base HOT has no resources".into()))?;
    for v in &flavour.vdus {
        let Some(base) = resources.remove(&v.id) else {
            return Err(Error::Package(format!(
                "{CLASS}: the base HOT has no resource {} (the VDU as a nested template, \
                 copied once per VNFC)",
                v.id
            )));
        };
        let kind = base.get("type").and_then(Value::as_str).unwrap_or_default();
        if !hot.files.contains_key(kind) {
            return Err(Error::Package(format!(
                "{CLASS}: resource {} of the base HOT is a {kind}, not a nested template of \
                 the package (one copy of it per VNFC)",
                v.id
            )));
        }
        for i in indexes.get(&v.id).into_iter().flatten() {
            let mut copy = base.clone();
            index_params(&mut copy, *i);
            resources.insert(indexed(&v.id, *i), copy);
        }
    }
    let top_text = serde_json::to_string_pretty(&top)
        .map_err(|e| Error::Package(format!("the expanded base HOT: {e}")))?;
    Ok(BaseHot {
        top: top_text,
        parsed: top,
        files: hot.files.clone(),
    })
}

/// Gives each `name-index` entry of `nfv.VDU` and `nfv.CP` what the `name` entry holds,
/// where it holds nothing of its own (`additionalParams.nfv` may set one VNFC's).
pub fn index_nfv(nfv: &mut Value) {
    for section in ["VDU", "CP"] {
        let Some(entries) = nfv.get_mut(section).and_then(Value::as_object_mut) else {
            continue;
        };
        let names: Vec<String> = entries.keys().cloned().collect();
        for name in names {
            let Some((base, _)) = split(&name) else {
                continue;
            };
            let Some(Value::Object(from)) = entries.get(base).cloned() else {
                continue;
            };
            if let Some(Value::Object(to)) = entries.get_mut(&name) {
                for (k, v) in from {
                    if to.get(&k).is_none_or(Value::is_null) {
                        to.insert(k, v);
                    }
                }
            }
        }
    }
}

/// Sets each `name-index` entry of `nfv.<section>` for the `names` given to what the
/// `name` entry holds now (new networks of external CPs reach every copy).
pub fn refresh(nfv: &mut Value, section: &str, names: &[String]) {
    let Some(entries) = nfv.get_mut(section).and_then(Value::as_object_mut) else {
        return;
    };
    let copies: Vec<(String, Value)> = entries
        .keys()
        .filter_map(|k| {
            let (base, _) = split(k)?;
            names
                .iter()
                .any(|n| n == base)
                .then(|| (k.clone(), entries.get(base).cloned()))
        })
        .filter_map(|(k, v)| Some((k, v?)))
        .collect();
    for (k, v) in copies {
        entries.insert(k, v);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn copies_read_their_own_entries_and_fall_back_to_the_vdus() {
        let mut r = json!({"type": "VDU1.yaml", "properties": {
            "flavor": {"get_param": ["nfv", "VDU", "VDU1", "computeFlavourId"]},
            "net": {"get_param": ["nfv", "CP", "VDU1_CP1", "network"]},
            "zone": {"get_param": ["other"]}}});
        index_params(&mut r, 2);
        assert_eq!(
            r["properties"]["flavor"],
            json!({"get_param": ["nfv", "VDU", "VDU1-2", "computeFlavourId"]})
        );
        assert_eq!(
            r["properties"]["net"],
            json!({"get_param": ["nfv", "CP", "VDU1_CP1-2", "network"]})
        );
        assert_eq!(r["properties"]["zone"], json!({"get_param": ["other"]}));
        let mut nfv = json!({"VDU": {"VDU1": {"computeFlavourId": "m1.tiny", "vcImageId": "a"},
            "VDU1-0": {"computeFlavourId": null, "vcImageId": null},
            "VDU1-1": {"computeFlavourId": null, "vcImageId": "b"}},
            "CP": {"VDU1_CP1": {"network": "n"}, "VDU1_CP1-1": {"network": null}}});
        index_nfv(&mut nfv);
        assert_eq!(
            nfv["VDU"]["VDU1-0"],
            json!({"computeFlavourId": "m1.tiny", "vcImageId": "a"})
        );
        assert_eq!(
            nfv["VDU"]["VDU1-1"],
            json!({"computeFlavourId": "m1.tiny", "vcImageId": "b"})
        );
        assert_eq!(nfv["CP"]["VDU1_CP1-1"]["network"], "n");
    }

    #[test]
    fn sizes_keep_the_lowest_indexes_and_fill_the_free_ones() {
        let now = Indexes::from([("VDU1".to_owned(), BTreeSet::from([0, 2, 3]))]);
        let grow = sized(&now, &BTreeMap::from([("VDU1".to_owned(), 5)]));
        assert_eq!(grow["VDU1"], BTreeSet::from([0, 1, 2, 3, 4]));
        let shrink = sized(&now, &BTreeMap::from([("VDU1".to_owned(), 2)]));
        assert_eq!(shrink["VDU1"], BTreeSet::from([0, 2]));
        let fresh = sized(&Indexes::new(), &BTreeMap::from([("VDU2".to_owned(), 2)]));
        assert_eq!(fresh["VDU2"], BTreeSet::from([0, 1]));
    }
}
