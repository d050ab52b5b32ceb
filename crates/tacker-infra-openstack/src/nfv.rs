//! The `nfv` parameter of the base HOT, built in Rust from the VNFD, the grant and the
//! request (Tacker runs a Python user-data class from the package for this; we run no
//! package code). Every VDU gets both the v2 keys (`computeFlavourId`, `vcImageId`,
//! `desired_capacity`) and the v1 keys of Tacker's sample HOTs (`flavor`, `image`);
//! every CP of an external virtual link its `network` and `fixed_ips`. Any other
//! `get_param: [nfv, ...]` path the template uses exists, as `null`, so Heat resolves it.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use tacker_domain::package::merge_patch;
use tacker_domain::vnfd::{Flavour, Vdu};

/// What the parameter is built from.
#[derive(Debug)]
pub struct Inputs<'a> {
    /// The deployment flavour.
    pub flavour: &'a Flavour,
    /// The top template (parsed).
    pub template: &'a Value,
    /// Instances per VDU.
    pub counts: &'a BTreeMap<String, u32>,
    /// The grant (its `vimAssets` win over the VNFD).
    pub grant: &'a Value,
    /// The request's (or the instance's) external virtual links.
    pub ext_virtual_links: &'a [Value],
    /// `additionalParams.nfv`, merged over the result.
    pub extra: Option<&'a Value>,
}

fn vim_asset(grant: &Value, list: &str, key: &str, id: &str, value: &str) -> Option<String> {
    grant
        .pointer(&format!("/vimAssets/{list}"))?
        .as_array()?
        .iter()
        .find(|a| a.get(key).and_then(Value::as_str) == Some(id))?
        .get(value)?
        .as_str()
        .map(str::to_owned)
}

/// The flavour a VDU runs on: the grant's, else the VNFD's requested capability name.
pub fn flavour_of(grant: &Value, vdu: &Vdu) -> Option<String> {
    vim_asset(
        grant,
        "computeResourceFlavours",
        "vnfdVirtualComputeDescId",
        &vdu.id,
        "vimFlavourId",
    )
    .or_else(|| vdu.requested_flavour().map(str::to_owned))
}

/// Whether a VDU's flavour is in an `nfv` parameter built earlier (its
/// `computeFlavourId`), for a template built from the VNFD again later.
pub fn flavour_in(nfv: &Value) -> impl Fn(&Vdu) -> bool + '_ {
    |v| {
        nfv.pointer(&format!("/VDU/{}/computeFlavourId", v.id))
            .is_some_and(|f| !f.is_null())
    }
}

/// The image the grant names for a VDU or storage (`vnfdSoftwareImageId`).
pub fn granted_image(grant: &Value, node: &str) -> Option<String> {
    vim_asset(
        grant,
        "softwareImages",
        "vnfdSoftwareImageId",
        node,
        "vimSoftwareImageId",
    )
}

/// The image a VDU boots: the grant's, else the VNFD's software image name.
pub fn image_of(grant: &Value, vdu: &Vdu) -> Option<String> {
    granted_image(grant, &vdu.id).or_else(|| vdu.sw_image.as_ref().map(|i| i.name.clone()))
}

/// Every `get_param: [nfv, ...]` path in `v` (without the leading `nfv`).
fn nfv_paths(v: &Value, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(p)) = m.get("get_param")
                && p.first().and_then(Value::as_str) == Some("nfv")
                && p.len() >= 3
            {
                out.push(p[1..].to_vec());
            }
            for x in m.values() {
                nfv_paths(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| nfv_paths(x, out)),
        _ => {}
    }
}

/// Makes `path` exist under `root`, with `null` where nothing was there.
fn ensure(root: &mut Value, path: &[Value]) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    let index = first
        .as_u64()
        .or_else(|| first.as_str().and_then(|s| s.parse().ok()))
        .and_then(|i| usize::try_from(i).ok());
    let next_is_index = rest
        .first()
        .is_some_and(|n| n.is_u64() || n.as_str().is_some_and(|s| s.parse::<usize>().is_ok()));
    let fresh = || {
        if next_is_index {
            json!([])
        } else if rest.is_empty() {
            Value::Null
        } else {
            json!({})
        }
    };
    match (root, index, first.as_str()) {
        (Value::Array(a), Some(i), _) => {
            while a.len() <= i {
                a.push(fresh());
            }
            ensure(&mut a[i], rest);
        }
        (Value::Object(m), _, Some(k)) => ensure(m.entry(k.to_owned()).or_insert_with(fresh), rest),
        _ => {}
    }
}

/// Makes every `get_param: [nfv, ...]` path of `template` exist in `nfv` (as `null`
/// where nothing was there), so Heat resolves each.
pub fn complete(nfv: &mut Value, template: &Value) {
    let mut paths = Vec::new();
    nfv_paths(template, &mut paths);
    for p in &paths {
        ensure(nfv, p);
    }
}

/// `cpConfig` entries of an external CP: a map (SOL003 v3.3.1) or a list (v2.6.1).
fn cp_configs(ext_cp: &Value) -> Vec<&Value> {
    match ext_cp.get("cpConfig") {
        Some(Value::Object(m)) => m.values().collect(),
        Some(Value::Array(a)) => a.iter().collect(),
        _ => Vec::new(),
    }
}

/// `[{ip_address, subnet}]` from an external CP's fixed addresses.
fn fixed_ips(ext_cp: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for c in cp_configs(ext_cp) {
        for p in c
            .get("cpProtocolData")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for a in p
                .pointer("/ipOverEthernet/ipAddresses")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let mut ip = Map::new();
                if let Some(f) = a
                    .get("fixedAddresses")
                    .and_then(Value::as_array)
                    .and_then(|f| f.first())
                {
                    ip.insert("ip_address".into(), f.clone());
                }
                if let Some(s) = a.get("subnetId") {
                    ip.insert("subnet".into(), s.clone());
                }
                if !ip.is_empty() {
                    out.push(Value::Object(ip));
                }
            }
        }
    }
    out
}

/// The `nfv` parameter.
pub fn build(i: &Inputs<'_>) -> Value {
    let mut vdus = Map::new();
    for v in &i.flavour.vdus {
        let mut e = Map::new();
        let flavor = flavour_of(i.grant, v)
            .map(Value::String)
            .unwrap_or(Value::Null);
        let image = image_of(i.grant, v)
            .map(Value::String)
            .unwrap_or(Value::Null);
        e.insert("computeFlavourId".into(), flavor.clone());
        e.insert("flavor".into(), flavor);
        e.insert("vcImageId".into(), image.clone());
        e.insert("image".into(), image);
        if let Some(n) = i.counts.get(&v.id) {
            e.insert("desired_capacity".into(), json!(n));
        }
        vdus.insert(v.id.clone(), Value::Object(e));
    }
    // A storage made from an image (`nfv.VDU.<storage>.vcImageId`, upstream's key too).
    for s in i.flavour.storages.iter().filter(|s| s.sw_image.is_some()) {
        let image =
            granted_image(i.grant, &s.id).or_else(|| s.sw_image.as_ref().map(|m| m.name.clone()));
        vdus.insert(s.id.clone(), json!({"vcImageId": image}));
    }
    let mut cps = Map::new();
    for vl in i.ext_virtual_links {
        let network = vl.get("resourceId").cloned().unwrap_or(Value::Null);
        for cp in vl
            .get("extCps")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(id) = cp.get("cpdId").and_then(Value::as_str) else {
                continue;
            };
            cps.entry(id.to_owned())
                .or_insert_with(|| json!({"network": network, "fixed_ips": fixed_ips(cp)}));
        }
    }
    let mut nfv = json!({"VDU": vdus, "CP": cps});
    complete(&mut nfv, i.template);
    if let (Some(Value::Object(extra)), Value::Object(n)) = (i.extra, &mut nfv) {
        merge_patch(n, extra);
    }
    nfv
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vdu(id: &str) -> Vdu {
        serde_json::from_value(json!({
            "id": id, "name": id, "description": "", "minInstances": 1, "maxInstances": 3,
            "swImage": {"name": format!("{id}-image"), "version": "1", "checksum": null,
                "containerFormat": "bare", "diskFormat": "qcow2", "minDisk": "1 GB",
                "minRam": "1 GB", "size": "1 GB", "artifact": null},
            "capabilities": {"virtual_compute": {"properties": {"requested_additional_capabilities":
                {"properties": {"requested_additional_capability_name": "m1.tiny"}}}}},
            "storages": [], "initialDelta": 1, "scalingDeltas": {}, "instantiationLevels": {}
        }))
        .unwrap()
    }

    #[test]
    fn vdus_and_cps_get_both_key_sets_and_every_referenced_path() {
        let flavour: Flavour = serde_json::from_value(json!({
            "id": "simple", "description": "", "file": "", "vdus": [], "cps": [],
            "virtualLinks": [], "storages": [], "scalingAspects": [],
            "instantiationLevels": [], "defaultInstantiationLevel": null, "hooks": []
        }))
        .unwrap();
        let flavour = Flavour {
            vdus: vec![vdu("VDU1"), vdu("VDU2")],
            ..flavour
        };
        let template = json!({"resources": {"g": {"properties": {
            "desired_capacity": {"get_param": ["nfv", "VDU", "VDU1", "desired_capacity"]},
            "x": {"get_param": ["nfv", "CP", "VDU2_CP1", "fixed_ips", 0, "ip_address"]},
            "z": {"get_param": ["nfv", "VDU", "VDU2", "locationConstraints"]}}}}});
        let grant = json!({"vimAssets": {"computeResourceFlavours": [
            {"vnfdVirtualComputeDescId": "VDU2", "vimFlavourId": "m1.large"}]}});
        let links = vec![json!({"id": "net0", "resourceId": "net-1", "extCps": [
            {"cpdId": "VDU1_CP1", "cpConfig": {"c": {"cpProtocolData": [{"layerProtocol": "IP_OVER_ETHERNET",
                "ipOverEthernet": {"ipAddresses": [{"type": "IPV4", "fixedAddresses": ["10.250.3.20"], "subnetId": "s1"}]}}]}}}]})];
        let counts = BTreeMap::from([("VDU1".to_owned(), 2)]);
        let nfv = build(&Inputs {
            flavour: &flavour,
            template: &template,
            counts: &counts,
            grant: &grant,
            ext_virtual_links: &links,
            extra: Some(&json!({"VDU": {"VDU1": {"flavor": "override"}}})),
        });
        assert_eq!(nfv["VDU"]["VDU1"]["desired_capacity"], 2);
        assert_eq!(nfv["VDU"]["VDU1"]["computeFlavourId"], "m1.tiny");
        assert_eq!(nfv["VDU"]["VDU1"]["flavor"], "override");
        assert_eq!(nfv["VDU"]["VDU2"]["flavor"], "m1.large");
        assert_eq!(nfv["VDU"]["VDU2"]["vcImageId"], "VDU2-image");
        assert!(nfv["VDU"]["VDU2"]["locationConstraints"].is_null());
        assert_eq!(nfv["CP"]["VDU1_CP1"]["network"], "net-1");
        assert_eq!(
            nfv["CP"]["VDU1_CP1"]["fixed_ips"][0]["ip_address"],
            "10.250.3.20"
        );
        assert!(nfv["CP"]["VDU2_CP1"]["fixed_ips"][0]["ip_address"].is_null());
    }
}
