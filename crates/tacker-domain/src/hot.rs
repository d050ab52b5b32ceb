//! A Heat template built from a flavour of the VNFD, for packages that bring no
//! `BaseHOT/<flavour>/` (upstream Tacker translates such VNFDs too). The template is in
//! the layout of a Base HOT the OpenStack driver runs anyway (one `nfv` parameter), so
//! instantiate, scale, heal and terminate work on it unchanged:
//! - a VDU whose `vdu_profile` allows more than one instance becomes an
//!   `OS::Heat::AutoScalingGroup` `<VDU>_scale_group` sized by
//!   `nfv.VDU.<VDU>.desired_capacity`, its server, ports and volumes in a nested
//!   template `<VDU>.yaml`; any other VDU is a server of the top template;
//! - a VDU's flavour is `nfv.VDU.<VDU>.computeFlavourId` (the grant's, else the VNFD's
//!   `requested_additional_capability_name`); a VDU that names none gets an
//!   `OS::Nova::Flavor` `<VDU>_flavor` made from its `virtual_compute`;
//! - its image is `nfv.VDU.<VDU>.vcImageId`; a `VirtualBlockStorage` it requires is an
//!   `OS::Cinder::Volume` (booted from when it carries the image,
//!   `nfv.VDU.<storage>.vcImageId`);
//! - a `VduCp` is an `OS::Neutron::Port` on its internal virtual link (an
//!   `OS::Neutron::Net` with a subnet of the link's `l3_protocol_data.cidr`) or, with no
//!   virtual link, on the external network the request gives it
//!   (`nfv.CP.<CP>.network` and `fixed_ips`).
//!
//! What does not fit is refused naming the node, so a request is refused before any
//! resource is made.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::failure::Failure;
use crate::vnfd::{Cp, Flavour, Storage, Vdu, size_in_bytes};

/// The storage type a template can make.
pub const BLOCK_STORAGE: &str = "tosca.nodes.nfv.Vdu.VirtualBlockStorage";

/// A template and the nested templates it names.
#[derive(Debug, Clone, PartialEq)]
pub struct Hot {
    /// The top template.
    pub top: Value,
    /// Nested templates by file name.
    pub files: BTreeMap<String, Value>,
}

fn refused(f: &Flavour, node: &str, why: impl std::fmt::Display) -> Failure {
    Failure::unprocessable(format!(
        "the VNF package has no BaseHOT/{}/ and its VNFD cannot be built into one: node \
         {node}: {why}; add a Base HOT for the flavour to the package",
        f.id
    ))
}

fn nfv(path: &[&str]) -> Value {
    let mut p = vec![json!("nfv")];
    p.extend(path.iter().map(|s| json!(s)));
    json!({ "get_param": p })
}

fn param(name: &str) -> Value {
    json!({ "get_param": name })
}

fn resource(name: &str) -> Value {
    json!({ "get_resource": name })
}

/// `ram` (MB), `vcpus` and `disk` (GB) from a VDU's `virtual_compute`.
fn flavour_properties(f: &Flavour, v: &Vdu) -> Result<Value, Failure> {
    let c = v
        .capabilities
        .pointer("/virtual_compute/properties")
        .unwrap_or(&Value::Null);
    let text = |p: &str| {
        c.pointer(p).and_then(|x| match x {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
    };
    let ram = text("/virtual_memory/virtual_mem_size")
        .and_then(|m| size_in_bytes(&m))
        .map(|b| b.div_ceil(1 << 20));
    let vcpus = text("/virtual_cpu/num_virtual_cpu").and_then(|n| n.parse::<u64>().ok());
    let (Some(ram), Some(vcpus)) = (ram, vcpus) else {
        return Err(refused(
            f,
            &v.id,
            "it names no flavour (requested_additional_capability_name) and its \
             virtual_compute gives no virtual_memory.virtual_mem_size and \
             virtual_cpu.num_virtual_cpu to make one from",
        ));
    };
    let disk = text("/virtual_local_storage/0/size_of_storage")
        .and_then(|d| size_in_bytes(&d))
        .map_or(0, |b| b.div_ceil(1 << 30));
    Ok(json!({"ram": ram, "vcpus": vcpus, "disk": disk}))
}

/// The storages a VDU requires, each a block storage of a known size.
fn storages_of<'f>(f: &'f Flavour, v: &Vdu) -> Result<Vec<&'f Storage>, Failure> {
    v.storages
        .iter()
        .map(|id| {
            let s = f.storages.iter().find(|s| s.id == *id).ok_or_else(|| {
                refused(
                    f,
                    &v.id,
                    format!("it requires storage {id}, which the flavour does not define"),
                )
            })?;
            if s.type_name != BLOCK_STORAGE {
                return Err(refused(
                    f,
                    &s.id,
                    format!(
                        "{} cannot be made by Heat here; only {BLOCK_STORAGE} can",
                        s.type_name
                    ),
                ));
            }
            if size_in_bytes(&s.size).is_none() {
                return Err(refused(
                    f,
                    &s.id,
                    format!("size_of_storage {:?} is not a size", s.size),
                ));
            }
            Ok(s)
        })
        .collect()
}

/// The connection points bound to a VDU, in their `order`.
fn cps_of<'f>(f: &'f Flavour, v: &Vdu) -> Result<Vec<&'f Cp>, Failure> {
    let mut cps: Vec<&Cp> = f
        .cps
        .iter()
        .filter(|c| c.vdu.as_deref() == Some(v.id.as_str()))
        .collect();
    cps.sort_by_key(|c| (c.order.unwrap_or(u32::MAX), c.id.clone()));
    if cps.is_empty() {
        return Err(refused(
            f,
            &v.id,
            "no VduCp binds to it, and a server needs a network",
        ));
    }
    for c in &cps {
        if let Some(vl) = &c.virtual_link
            && !f.virtual_links.iter().any(|l| l.id == *vl)
        {
            return Err(refused(
                f,
                &c.id,
                format!("its virtual link {vl} is not a VnfVirtualLink of the flavour"),
            ));
        }
    }
    Ok(cps)
}

/// One VDU's server, ports and volumes; `input` gives a value its template reads (a
/// parameter of the nested template, or the value itself in the top template).
struct Vm<'a> {
    vdu: &'a Vdu,
    cps: Vec<&'a Cp>,
    storages: Vec<&'a Storage>,
}

impl Vm<'_> {
    /// The resources, reading `flavor`, `image`, `net-<CP>`, `fixed-<CP>` and
    /// `image-<storage>` through `input`.
    fn resources(&self, input: &dyn Fn(&str) -> Option<Value>) -> Map<String, Value> {
        let mut out = Map::new();
        let mut server = json!({
            "flavor": input("flavor"),
            "name": self.vdu.id,
            "networks": self.cps.iter().map(|c| json!({"port": resource(&c.id)})).collect::<Vec<_>>(),
        });
        if self.vdu.sw_image.is_some() {
            server["image"] = input("image").unwrap_or(Value::Null);
        }
        // The first storage with an image is the boot disk of a VDU that has none.
        let boot = if self.vdu.sw_image.is_none() {
            self.storages.iter().position(|s| s.sw_image.is_some())
        } else {
            None
        };
        let mut next = u8::from(boot.is_some() || self.vdu.sw_image.is_some());
        let mut mappings = Vec::new();
        for (i, s) in self.storages.iter().enumerate() {
            let mut volume = json!({"size": size_in_bytes(&s.size).unwrap_or(0).div_ceil(1 << 30)});
            if s.sw_image.is_some() {
                volume["image"] = input(&format!("image-{}", s.id)).unwrap_or(Value::Null);
            }
            let (device, index) = if boot == Some(i) {
                ('a', 0)
            } else {
                next = next.saturating_add(1);
                (char::from(b'a' + (next - 1).min(25)), -1)
            };
            mappings.push(json!({
                "device_name": format!("vd{device}"),
                "volume_id": resource(&s.id),
                "boot_index": index,
            }));
            out.insert(
                s.id.clone(),
                json!({"type": "OS::Cinder::Volume", "properties": volume}),
            );
        }
        if !mappings.is_empty() {
            server["block_device_mapping_v2"] = Value::Array(mappings);
        }
        out.insert(
            self.vdu.id.clone(),
            json!({"type": "OS::Nova::Server", "properties": server}),
        );
        for c in &self.cps {
            let mut port = json!({"network": input(&format!("net-{}", c.id))});
            if let Some(fixed) = input(&format!("fixed-{}", c.id)) {
                port["fixed_ips"] = fixed;
            }
            out.insert(
                c.id.clone(),
                json!({"type": "OS::Neutron::Port", "properties": port}),
            );
        }
        out
    }
}

/// Builds the template of flavour `f`. `flavour_given` says whether a VDU's flavour
/// comes from the `nfv` parameter (the grant or the VNFD names one) rather than being
/// made from its `virtual_compute`.
pub fn translate(f: &Flavour, flavour_given: &dyn Fn(&Vdu) -> bool) -> Result<Hot, Failure> {
    let mut top = Map::new();
    let mut files = BTreeMap::new();
    let mut names = BTreeSet::new();
    let mut add = |map: &mut Map<String, Value>, name: String, r: Value| -> Result<(), Failure> {
        if !names.insert(name.clone()) {
            return Err(refused(
                f,
                &name,
                "two resources of the template would have this name",
            ));
        }
        map.insert(name, r);
        Ok(())
    };
    for vl in &f.virtual_links {
        let Some(cidr) = &vl.cidr else {
            return Err(refused(
                f,
                &vl.id,
                "its vl_profile gives no virtual_link_protocol_data l3_protocol_data.cidr for the subnet",
            ));
        };
        let version = if cidr.contains(':') { 6 } else { 4 };
        add(&mut top, vl.id.clone(), json!({"type": "OS::Neutron::Net"}))?;
        add(
            &mut top,
            format!("{}_subnet", vl.id),
            json!({"type": "OS::Neutron::Subnet", "properties": {
                "network": resource(&vl.id), "cidr": cidr, "ip_version": version}}),
        )?;
    }
    if f.vdus.is_empty() {
        return Err(refused(f, &f.id, "the flavour has no VDU"));
    }
    for v in &f.vdus {
        let vm = Vm {
            vdu: v,
            cps: cps_of(f, v)?,
            storages: storages_of(f, v)?,
        };
        if v.sw_image.is_none() && !vm.storages.iter().any(|s| s.sw_image.is_some()) {
            return Err(refused(
                f,
                &v.id,
                "it has no sw_image_data and requires no storage with one to boot from",
            ));
        }
        let flavor = if flavour_given(v) {
            nfv(&["VDU", &v.id, "computeFlavourId"])
        } else {
            let name = format!("{}_flavor", v.id);
            add(
                &mut top,
                name.clone(),
                json!({"type": "OS::Nova::Flavor", "properties": flavour_properties(f, v)?}),
            )?;
            resource(&name)
        };
        // The value of each input in the top template.
        let mut inputs: BTreeMap<String, Value> = BTreeMap::new();
        inputs.insert("flavor".into(), flavor);
        inputs.insert("image".into(), nfv(&["VDU", &v.id, "vcImageId"]));
        for s in &vm.storages {
            inputs.insert(format!("image-{}", s.id), nfv(&["VDU", &s.id, "vcImageId"]));
        }
        let scaled = v.max_instances > 1;
        for c in &vm.cps {
            let net = match &c.virtual_link {
                Some(vl) => resource(vl),
                None => nfv(&["CP", &c.id, "network"]),
            };
            inputs.insert(format!("net-{}", c.id), net);
            // Fixed addresses cannot be shared by the members of a group.
            if c.virtual_link.is_none() && !scaled {
                inputs.insert(format!("fixed-{}", c.id), nfv(&["CP", &c.id, "fixed_ips"]));
            }
        }
        if scaled {
            let nested = vm.resources(&|k| inputs.contains_key(k).then(|| param(k)));
            let parameters: Map<String, Value> = inputs
                .keys()
                .filter(|k| k.as_str() != "image" || v.sw_image.is_some())
                .map(|k| (k.clone(), json!({"type": "string"})))
                .collect();
            let file = format!("{}.yaml", v.id);
            files.insert(
                file.clone(),
                json!({
                    "heat_template_version": "2013-05-23",
                    "description": format!("VDU {} of flavour {}, built from the VNFD", v.id, f.id),
                    "parameters": parameters,
                    "resources": nested,
                }),
            );
            let properties: Map<String, Value> = inputs
                .into_iter()
                .filter(|(k, _)| k.as_str() != "image" || v.sw_image.is_some())
                .collect();
            add(
                &mut top,
                format!("{}_scale_group", v.id),
                json!({"type": "OS::Heat::AutoScalingGroup", "properties": {
                    "min_size": v.min_instances,
                    "max_size": v.max_instances,
                    "desired_capacity": nfv(&["VDU", &v.id, "desired_capacity"]),
                    "resource": {"type": file, "properties": properties}}}),
            )?;
        } else {
            for (name, r) in vm.resources(&|k| inputs.get(k).cloned()) {
                add(&mut top, name, r)?;
            }
        }
    }
    Ok(Hot {
        top: json!({
            "heat_template_version": "2013-05-23",
            "description": format!("Flavour {} of the VNFD, built by Tacker (the package has no Base HOT)", f.id),
            "parameters": {"nfv": {"type": "json"}},
            "resources": top,
            "outputs": {},
        }),
        files,
    })
}

/// The connection points with no internal virtual link: each needs a network from
/// `ext_virtual_links` (an `extCps` entry with its `cpdId`).
pub fn check_external_cps(f: &Flavour, ext_virtual_links: &[Value]) -> Result<(), Failure> {
    let given: BTreeSet<&str> = ext_virtual_links
        .iter()
        .filter_map(|l| l.get("extCps")?.as_array())
        .flatten()
        .filter_map(|c| c.get("cpdId")?.as_str())
        .collect();
    for c in &f.cps {
        if c.virtual_link.is_none() && !given.contains(c.id.as_str()) {
            return Err(Failure::unprocessable(format!(
                "connection point {} of flavour {} connects to no internal virtual link, so \
                 it needs an external one: extVirtualLinks must have an extCps entry with \
                 cpdId {} (the VNF package has no Base HOT to say otherwise)",
                c.id, f.id, c.id
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vdu(id: &str, max: u32, flavour_name: bool, storages: &[&str]) -> Value {
        let mut compute = json!({"virtual_memory": {"virtual_mem_size": "512 MB"},
            "virtual_cpu": {"num_virtual_cpu": 1},
            "virtual_local_storage": [{"size_of_storage": "3 GB"}]});
        if flavour_name {
            compute["requested_additional_capabilities"] = json!({"p": {"properties":
                {"requested_additional_capability_name": "m1.tiny"}}});
        }
        json!({"id": id, "name": id, "description": "", "minInstances": 1, "maxInstances": max,
            "swImage": if storages.is_empty() { json!({"name": "img", "version": "1",
                "checksum": null, "containerFormat": "bare", "diskFormat": "qcow2",
                "minDisk": "0 GB", "minRam": "0 MB", "size": "1 GB", "artifact": null}) } else { Value::Null },
            "capabilities": {"virtual_compute": {"properties": compute}},
            "storages": storages, "initialDelta": 1, "scalingDeltas": {}, "instantiationLevels": {}})
    }

    fn flavour(vdus: Vec<Value>, cps: Value, vls: Value, storages: Value) -> Flavour {
        serde_json::from_value(json!({
            "id": "simple", "description": "", "file": "", "vdus": vdus, "cps": cps,
            "virtualLinks": vls, "storages": storages, "scalingAspects": [],
            "instantiationLevels": [], "defaultInstantiationLevel": null, "hooks": []
        }))
        .unwrap()
    }

    fn cp(id: &str, vdu: &str, vl: Option<&str>) -> Value {
        json!({"id": id, "vdu": vdu, "virtualLink": vl, "layerProtocols": ["ipv4"], "order": 0})
    }

    fn named(v: &Vdu) -> bool {
        v.requested_flavour().is_some()
    }

    #[test]
    fn a_scalable_vdu_is_a_group_of_a_nested_template_and_a_single_one_a_server() {
        let f = flavour(
            vec![vdu("VDU1", 3, true, &[]), vdu("VDU2", 1, false, &[])],
            json!([
                cp("VDU1_CP1", "VDU1", Some("vl")),
                cp("VDU2_CP1", "VDU2", None)
            ]),
            json!([{"id": "vl", "description": "", "layerProtocols": [], "cidr": "192.0.2.0/24"}]),
            json!([]),
        );
        let hot = translate(&f, &named).unwrap();
        let r = &hot.top["resources"];
        assert_eq!(r["vl_subnet"]["properties"]["cidr"], "192.0.2.0/24");
        let g = &r["VDU1_scale_group"]["properties"];
        assert_eq!(
            (g["min_size"].clone(), g["max_size"].clone()),
            (json!(1), json!(3))
        );
        assert_eq!(
            g["desired_capacity"],
            json!({"get_param": ["nfv", "VDU", "VDU1", "desired_capacity"]})
        );
        assert_eq!(
            g["resource"]["properties"]["net-VDU1_CP1"],
            json!({"get_resource": "vl"})
        );
        assert_eq!(
            g["resource"]["properties"]["flavor"],
            json!({"get_param": ["nfv", "VDU", "VDU1", "computeFlavourId"]})
        );
        let nested = &hot.files["VDU1.yaml"]["resources"];
        assert_eq!(
            nested["VDU1"]["properties"]["flavor"],
            json!({"get_param": "flavor"})
        );
        assert_eq!(
            nested["VDU1_CP1"]["properties"]["network"],
            json!({"get_param": "net-VDU1_CP1"})
        );
        // VDU2 names no flavour: one is made from its virtual_compute.
        assert_eq!(
            r["VDU2_flavor"]["properties"],
            json!({"ram": 512, "vcpus": 1, "disk": 3})
        );
        assert_eq!(
            r["VDU2"]["properties"]["flavor"],
            json!({"get_resource": "VDU2_flavor"})
        );
        assert_eq!(
            r["VDU2_CP1"]["properties"],
            json!({"network": {"get_param": ["nfv", "CP", "VDU2_CP1", "network"]},
                "fixed_ips": {"get_param": ["nfv", "CP", "VDU2_CP1", "fixed_ips"]}})
        );
        // The grant's flavour wins over making one.
        let all = translate(&f, &|_| true).unwrap();
        assert!(all.top["resources"].get("VDU2_flavor").is_none());
    }

    #[test]
    fn a_vdu_boots_from_its_block_storage_when_it_carries_the_image() {
        let f = flavour(
            vec![vdu("VDU1", 1, true, &["disk", "data"])],
            json!([cp("CP1", "VDU1", None)]),
            json!([]),
            json!([{"id": "data", "typeName": BLOCK_STORAGE, "size": "2 GB", "swImage": null},
                {"id": "disk", "typeName": BLOCK_STORAGE, "size": "1 GB", "swImage": {"name": "img",
                "version": "1", "checksum": null, "containerFormat": "bare", "diskFormat": "qcow2",
                "minDisk": "0 GB", "minRam": "0 MB", "size": "1 GB", "artifact": null}}]),
        );
        let hot = translate(&f, &named).unwrap();
        let r = &hot.top["resources"];
        assert!(r["VDU1"]["properties"].get("image").is_none());
        assert_eq!(
            r["VDU1"]["properties"]["block_device_mapping_v2"],
            json!([{"device_name": "vda", "volume_id": {"get_resource": "disk"}, "boot_index": 0},
                {"device_name": "vdb", "volume_id": {"get_resource": "data"}, "boot_index": -1}])
        );
        assert_eq!(
            r["disk"]["properties"],
            json!({"size": 1, "image": {"get_param": ["nfv", "VDU", "disk", "vcImageId"]}})
        );
        assert_eq!(r["data"]["properties"], json!({"size": 2}));
    }

    #[test]
    fn what_cannot_be_built_is_refused_naming_the_node() {
        let one = |vdus, cps, vls, storages| {
            translate(&flavour(vdus, cps, vls, storages), &named)
                .unwrap_err()
                .detail
        };
        let e = one(
            vec![vdu("VDU1", 1, true, &["obj"])],
            json!([cp("CP1", "VDU1", None)]),
            json!([]),
            json!([{"id": "obj", "typeName": "tosca.nodes.nfv.Vdu.VirtualObjectStorage",
                "size": "1 GB", "swImage": null}]),
        );
        assert!(
            e.contains("node obj") && e.contains("VirtualObjectStorage"),
            "{e}"
        );
        let e = one(
            vec![vdu("VDU1", 1, true, &[])],
            json!([cp("CP1", "VDU1", Some("vl"))]),
            json!([{"id": "vl", "description": "", "layerProtocols": []}]),
            json!([]),
        );
        assert!(e.contains("node vl") && e.contains("cidr"), "{e}");
        let e = one(
            vec![vdu("VDU1", 1, true, &[])],
            json!([]),
            json!([]),
            json!([]),
        );
        assert!(
            e.contains("node VDU1") && e.contains("needs a network"),
            "{e}"
        );
        let mut bare = vdu("VDU1", 1, false, &[]);
        bare["capabilities"] = json!({});
        let e = one(
            vec![bare],
            json!([cp("CP1", "VDU1", None)]),
            json!([]),
            json!([]),
        );
        assert!(
            e.contains("node VDU1") && e.contains("virtual_compute"),
            "{e}"
        );
        assert!(
            e.starts_with("the VNF package has no BaseHOT/simple/"),
            "{e}"
        );
    }

    #[test]
    fn an_external_cp_needs_a_network_from_the_request() {
        let f = flavour(
            vec![vdu("VDU1", 1, true, &[])],
            json!([cp("CP1", "VDU1", None)]),
            json!([]),
            json!([]),
        );
        let e = check_external_cps(&f, &[]).unwrap_err().detail;
        assert!(e.contains("cpdId CP1"), "{e}");
        let given = [json!({"id": "n", "resourceId": "net", "extCps": [{"cpdId": "CP1"}]})];
        check_external_cps(&f, &given).unwrap();
    }
}
