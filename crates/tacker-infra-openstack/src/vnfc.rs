//! VNFCs from a stack's resources: each `OS::Nova::Server` named after a VDU is a
//! `vnfcResourceInfo` (its id the server's id), with a `vnfcCpInfo` per CP of the VDU
//! carrying the port's addresses (a floating address first). The metadata says where
//! the server is in the stack tree, for marking it (or its autoscaling group member)
//! unhealthy later.

use std::collections::HashMap;

use serde_json::{Map, Value, json};
use tacker_domain::lcm::{
    CpProtocolInfo, IpAddresses, IpOverEthernet, ResourceHandle, VnfcCpInfo, VnfcInfo,
    VnfcResourceInfo,
};
use tacker_domain::vnfd::Flavour;

use crate::heat::StackRef;

/// `OS::Nova::Server`.
pub const SERVER: &str = "OS::Nova::Server";
const PORT: &str = "OS::Neutron::Port";
const FLOATING_IP: &str = "OS::Neutron::FloatingIP";
const GROUP: &str = "OS::Heat::AutoScalingGroup";

/// Metadata keys.
pub const STACK: &str = "stack";
/// The stack holding the autoscaling group member that holds the server.
pub const PARENT_STACK: &str = "parent_stack";
/// That member's name.
pub const PARENT_RESOURCE: &str = "parent_resource_name";

fn s<'v>(v: &'v Value, k: &str) -> &'v str {
    v.get(k).and_then(Value::as_str).unwrap_or_default()
}

fn link(v: &Value, rel: &str) -> Option<StackRef> {
    let href = v
        .get("links")?
        .as_array()?
        .iter()
        .find(|l| s(l, "rel") == rel)
        .map(|l| s(l, "href"))?;
    StackRef::parse(href.split("/stacks/").nth(1)?.split('?').next()?)
}

/// A stack's resources, indexed.
#[derive(Debug)]
pub struct Tree<'r> {
    all: &'r [Value],
    /// nested stack id -> (the stack holding the resource, the resource).
    owners: HashMap<String, (StackRef, &'r Value)>,
}

impl<'r> Tree<'r> {
    /// Indexes `resources` (a `nested_depth` listing).
    pub fn new(all: &'r [Value]) -> Self {
        let mut owners = HashMap::new();
        for r in all {
            if let (Some(nested), Some(home)) = (link(r, "nested"), link(r, "stack")) {
                owners.insert(nested.id, (home, r));
            }
        }
        Self { all, owners }
    }

    fn in_stack(&self, stack: &StackRef, name: &str, kind: &str) -> Option<&'r Value> {
        self.all.iter().find(|r| {
            s(r, "resource_name") == name
                && s(r, "resource_type") == kind
                && link(r, "stack").is_some_and(|h| h.id == stack.id)
        })
    }

    /// The servers of the flavour's VDUs, with their stacks.
    pub fn servers(&self, flavour: &Flavour) -> Vec<(StackRef, &'r Value)> {
        self.all
            .iter()
            .filter(|r| s(r, "resource_type") == SERVER)
            .filter(|r| flavour.vdu(s(r, "resource_name")).is_some())
            .filter_map(|r| Some((link(r, "stack")?, r)))
            .collect()
    }

    /// The autoscaling group member holding a server in `stack`: (the group's nested
    /// stack, the member's name).
    pub fn member(&self, stack: &StackRef) -> Option<(StackRef, String)> {
        let (home, member) = self.owners.get(&stack.id)?;
        let group_owner = self.owners.get(&home.id)?;
        (s(group_owner.1, "resource_type") == GROUP)
            .then(|| (home.clone(), s(member, "resource_name").to_owned()))
    }

    /// The per-VNFC copy holding a server in `stack` (upstream's `StandardUserData`
    /// layout): (the stack holding the copy, its name `<VDU>-<index>`, the index).
    pub fn copy(&self, stack: &StackRef, vdu: &str) -> Option<(StackRef, String, u32)> {
        let (home, copy) = self.owners.get(&stack.id)?;
        let name = s(copy, "resource_name");
        let index = name.strip_prefix(vdu)?.strip_prefix('-')?.parse().ok()?;
        let in_group = self
            .owners
            .get(&home.id)
            .is_some_and(|(_, g)| s(g, "resource_type") == GROUP);
        (!in_group).then(|| (home.clone(), name.to_owned(), index))
    }

    fn cp_info(&self, stack: &StackRef, cp: &str, server_id: &str) -> Option<VnfcCpInfo> {
        let port = self.in_stack(stack, cp, PORT)?;
        let port_id = s(port, "physical_resource_id").to_owned();
        let attrs = port.get("attributes").cloned().unwrap_or(Value::Null);
        let mut addresses: Vec<String> = self
            .all
            .iter()
            .filter(|r| s(r, "resource_type") == FLOATING_IP)
            .filter(|r| r.pointer("/attributes/port_id").and_then(Value::as_str) == Some(&port_id))
            .filter_map(|r| {
                r.pointer("/attributes/floating_ip_address")
                    .and_then(Value::as_str)
            })
            .map(str::to_owned)
            .collect();
        let fixed = attrs
            .get("fixed_ips")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        addresses.extend(fixed.iter().map(|f| s(f, "ip_address").to_owned()));
        let subnet = fixed
            .first()
            .and_then(|f| f.get("subnet_id"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        Some(VnfcCpInfo {
            id: format!("{cp}-{server_id}"),
            cpd_id: cp.to_owned(),
            vnf_ext_cp_id: None,
            vnf_link_port_id: Some(port_id),
            cp_protocol_info: vec![CpProtocolInfo {
                layer_protocol: "IP_OVER_ETHERNET".into(),
                ip_over_ethernet: Some(IpOverEthernet {
                    mac_address: attrs
                        .get("mac_address")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    ip_addresses: vec![IpAddresses {
                        kind: "IPV4".into(),
                        addresses,
                        is_dynamic: false,
                        subnet_id: subnet,
                    }],
                }),
            }],
        })
    }
}

/// The VNFCs the stack runs: known ones first in their stored order, then new ones
/// oldest first.
pub fn read(
    tree: &Tree<'_>,
    flavour: &Flavour,
    vim_id: Option<&str>,
    before: &[VnfcResourceInfo],
) -> (Vec<VnfcResourceInfo>, Vec<VnfcInfo>) {
    let mut found: Vec<VnfcResourceInfo> = tree
        .servers(flavour)
        .into_iter()
        .map(|(stack, r)| {
            let id = s(r, "physical_resource_id").to_owned();
            let vdu = s(r, "resource_name").to_owned();
            let cps = flavour
                .cps
                .iter()
                .filter(|c| c.vdu.as_deref() == Some(vdu.as_str()))
                .filter_map(|c| tree.cp_info(&stack, &c.id, &id))
                .collect();
            let mut metadata = Map::from_iter([
                ("creation_time".to_owned(), json!(s(r, "creation_time"))),
                (STACK.to_owned(), json!(stack.text())),
            ]);
            if let Some((parent, member)) = tree.member(&stack) {
                metadata.insert(PARENT_STACK.into(), json!(parent.text()));
                metadata.insert(PARENT_RESOURCE.into(), json!(member));
            } else if let Some((home, copy, index)) = tree.copy(&stack, &vdu) {
                metadata.insert(PARENT_STACK.into(), json!(home.text()));
                metadata.insert(PARENT_RESOURCE.into(), json!(copy));
                metadata.insert(crate::per_vnfc::INDEX.into(), json!(index));
            }
            VnfcResourceInfo {
                id: id.clone(),
                vdu_id: vdu,
                compute_resource: ResourceHandle {
                    vim_connection_id: vim_id.map(str::to_owned),
                    resource_id: id,
                    vim_level_resource_type: Some(SERVER.into()),
                },
                vnfc_cp_info: cps,
                metadata,
            }
        })
        .collect();
    let rank = |r: &VnfcResourceInfo| {
        before
            .iter()
            .position(|b| b.id == r.id)
            .unwrap_or(usize::MAX)
    };
    found.sort_by(|a, b| {
        rank(a).cmp(&rank(b)).then_with(|| {
            let t = |x: &VnfcResourceInfo| {
                x.metadata
                    .get("creation_time")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            t(a).cmp(&t(b)).then_with(|| a.id.cmp(&b.id))
        })
    });
    let infos = found.iter().map(info).collect();
    (found, infos)
}

/// The VNFC of a resource: id `<vduId>-<server id>` (what SOL002 heal names).
pub fn info(r: &VnfcResourceInfo) -> VnfcInfo {
    VnfcInfo {
        id: format!("{}-{}", r.vdu_id, r.id),
        vdu_id: r.vdu_id.clone(),
        vnfc_resource_info_id: r.id.clone(),
        vnfc_state: "STARTED".into(),
        vnfc_configurable_properties: Default::default(),
    }
}

/// `affectedVnfcs` entries.
pub fn affected(r: &VnfcResourceInfo, change: &str) -> Value {
    json!({
        "id": r.id,
        "vduId": r.vdu_id,
        "changeType": change,
        "computeResource": r.compute_resource,
    })
}
