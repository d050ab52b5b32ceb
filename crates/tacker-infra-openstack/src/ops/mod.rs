//! One file per operation; what they share: the stack of an instance, the state it
//! recorded, reading the VNFCs back, the `nfv` parameter.

pub mod change_ext_conn;
pub mod change_flavour;
pub mod change_vnfpkg;
pub mod heal;
pub mod instantiate;
pub mod operate;
pub mod recorded;
pub mod rollback;
pub mod scale;
pub mod sync;
pub mod terminate;

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use tacker_domain::lcm::driver::{OpContext, Outcome};
use tacker_domain::lcm::{InstantiatedVnfInfo, VnfcResourceInfo};
use tacker_domain::vnfd::Flavour;

use crate::error::{Error, Result};
use crate::heat::{Heat, StackRef};
use crate::per_vnfc::Layout;
use crate::vnfc;

/// What an operation works with.
#[derive(Debug)]
pub struct Work<'a> {
    /// The operation.
    pub octx: &'a OpContext,
    /// Heat, authenticated for the VIM.
    pub heat: Heat<'a>,
    /// The VIM's session (Glance).
    pub session: &'a crate::session::Session,
}

/// The stack name of an instance (found again on retry, never created twice).
pub fn stack_name(octx: &OpContext) -> String {
    format!("vnf-{}", octx.instance.id)
}

impl Work<'_> {
    /// The flavour in use.
    pub fn flavour(&self) -> Result<&Flavour> {
        self.octx
            .vnfd
            .flavour(&self.octx.flavour_id)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "flavour {} is not in the VNFD",
                    self.octx.flavour_id
                ))
            })
    }

    /// The VIM connection's id (recorded in `computeResource.vimConnectionId`).
    pub fn vim_id(&self) -> Option<&str> {
        self.octx.vim.as_ref().map(|v| v.id.as_str())
    }

    /// The VNFCs the stack runs now, ordered after `before`.
    pub async fn read(&self, stack: &StackRef, before: &[VnfcResourceInfo]) -> Result<Read> {
        self.read_as(stack, before, self.flavour()?).await
    }

    /// The same, the VDUs those of `flavour` (a flavour change reads the new one's).
    pub async fn read_as(
        &self,
        stack: &StackRef,
        before: &[VnfcResourceInfo],
        flavour: &Flavour,
    ) -> Result<Read> {
        let resources = self.heat.resources(stack).await?;
        let tree = vnfc::Tree::new(&resources);
        let (resources, infos) = vnfc::read(&tree, flavour, self.vim_id(), before);
        Ok(Read { resources, infos })
    }
}

/// VNFCs read back from the stack.
#[derive(Debug)]
pub struct Read {
    /// `vnfcResourceInfo`.
    pub resources: Vec<VnfcResourceInfo>,
    /// `vnfcInfo`.
    pub infos: Vec<tacker_domain::lcm::VnfcInfo>,
}

/// What an instance recorded at instantiation.
#[derive(Debug, Clone)]
pub struct Stored {
    /// Its resources.
    pub info: InstantiatedVnfInfo,
    /// Its stack.
    pub stack: StackRef,
    /// The `nfv` parameter it runs with.
    pub nfv: Value,
    /// How the stack holds the VNFCs.
    pub layout: Layout,
    /// Who made the VNF when not we (`tacker`: imported from OpenStack Tacker).
    pub made_by: Option<Value>,
}

impl Stored {
    /// Fails unless the VNF runs (a STOPPED one is operated to STARTED first).
    pub fn started(&self) -> Result<()> {
        if self.info.vnf_state == "STOPPED" {
            return Err(Error::Invalid(
                "the VNF is STOPPED: operate it to STARTED first".into(),
            ));
        }
        Ok(())
    }
}

/// Reads what the instance recorded.
pub fn stored(octx: &OpContext) -> Result<Stored> {
    let info = octx
        .instance
        .instantiated_vnf_info
        .clone()
        .ok_or_else(|| Error::Invalid("the VNF instance is not instantiated".into()))?;
    let meta = info
        .driver_metadata()
        .cloned()
        .map_or(Value::Null, Value::Object);
    let stack = meta
        .get("stack_id")
        .and_then(Value::as_str)
        .and_then(StackRef::parse)
        .ok_or_else(|| Error::Invalid("the instance has no Heat stack recorded".into()))?;
    let nfv = meta.get("nfv").cloned().unwrap_or_else(|| json!({}));
    let layout = Layout::recorded(&meta);
    let made_by = meta.get(MADE_BY).cloned();
    Ok(Stored {
        info,
        stack,
        nfv,
        layout,
        made_by,
    })
}

/// The instance's resources on `flavour` at `level` (its scale status, started) with the
/// VNFCs `read` and the stack and `nfv` recorded: after an instantiation or a flavour
/// change.
pub fn started_info(
    w: &Work<'_>,
    flavour: &Flavour,
    level: Option<&str>,
    read: Read,
    stack: &StackRef,
    nfv: &Value,
    layout: Layout,
) -> InstantiatedVnfInfo {
    let (scale_status, max_scale_levels) =
        tacker_domain::lcm::plan::initial_scale(&w.octx.vnfd.vnfd_id, flavour, level);
    InstantiatedVnfInfo {
        flavour_id: flavour.id.clone(),
        vnf_state: "STARTED".into(),
        scale_status,
        max_scale_levels,
        vnfc_resource_info: read.resources,
        vnfc_info: read.infos,
        other: metadata(stack, nfv, layout, None),
    }
}

/// The outcome of an operation that left the instance recorded in `s` on `stack` with
/// `nfv`: the VNFCs `read` back (the states of those kept stay), the changes from the
/// recorded ones.
pub fn outcome(s: Stored, read: Read, stack: &StackRef, nfv: &Value) -> Outcome {
    let resource_changes = changes(&s.info.vnfc_resource_info, &read.resources);
    let mut info = s.info;
    info.vnfc_resource_info = read.resources;
    info.vnfc_info = operate::kept(&info.vnfc_info, read.infos);
    info.other
        .extend(metadata(stack, nfv, s.layout, s.made_by.as_ref()));
    Outcome {
        instantiated_vnf_info: Some(info),
        resource_changes,
    }
}

/// The metadata key saying who made the VNF when not we (kept through every operation).
pub const MADE_BY: &str = "made_by";

/// `instantiatedVnfInfo.metadata` recording the stack, its `nfv`, its layout and who made
/// it.
pub fn metadata(
    stack: &StackRef,
    nfv: &Value,
    layout: Layout,
    made_by: Option<&Value>,
) -> Map<String, Value> {
    let mut meta = Map::from_iter([
        ("stack_id".to_owned(), json!(stack.text())),
        ("nfv".to_owned(), nfv.clone()),
    ]);
    if let Some(m) = made_by {
        meta.insert(MADE_BY.into(), m.clone());
    }
    layout.record(&mut meta);
    Map::from_iter([("metadata".to_owned(), Value::Object(meta))])
}

/// The internal virtual links on existing networks (`vnfVirtualLinkDescId`, network id)
/// of `extManagedVirtualLinks` entries (a request's, or the instance's
/// `extManagedVirtualLinkInfo`).
pub fn managed_links(list: &[Value]) -> Result<Vec<(String, String)>> {
    list.iter()
        .map(|l| {
            let vl = l.get("vnfVirtualLinkDescId").and_then(Value::as_str);
            let net = l
                .get("resourceId")
                .or_else(|| l.pointer("/networkResource/resourceId"))
                .and_then(Value::as_str);
            match (vl, net) {
                (Some(vl), Some(net)) => Ok((vl.to_owned(), net.to_owned())),
                _ => Err(Error::Invalid(
                    "an extManagedVirtualLinks entry needs vnfVirtualLinkDescId and resourceId"
                        .into(),
                )),
            }
        })
        .collect()
}

/// The instance's `extManagedVirtualLinkInfo` (what instantiation was given).
pub fn recorded_links(info: &InstantiatedVnfInfo) -> Result<Vec<(String, String)>> {
    match info.other.get(MANAGED) {
        Some(Value::Array(list)) => managed_links(list),
        _ => Ok(Vec::new()),
    }
}

/// `instantiatedVnfInfo.extManagedVirtualLinkInfo`.
pub const MANAGED: &str = "extManagedVirtualLinkInfo";

/// `extManagedVirtualLinkInfo` entries of a request's `extManagedVirtualLinks`.
pub fn managed_info(list: &[Value]) -> Value {
    Value::Array(
        list.iter()
            .map(|l| {
                json!({"id": l.get("id"), "vnfVirtualLinkDescId": l.get("vnfVirtualLinkDescId"),
                    "vimConnectionId": l.get("vimConnectionId"),
                    "networkResource": {"resourceId": l.get("resourceId"),
                        "vimConnectionId": l.get("vimConnectionId")}})
            })
            .collect(),
    )
}

/// The base HOT of `flavour` as the stack runs it: the internal virtual links of `links`
/// on their existing networks; with `layout` per VNFC, each VDU's resource copied at
/// `indexes`, and `nfv` given the copies' entries.
pub fn laid_out(
    hot: crate::template::BaseHot,
    flavour: &Flavour,
    layout: Layout,
    indexes: &crate::per_vnfc::Indexes,
    nfv: &mut Value,
    links: &[(String, String)],
) -> Result<crate::template::BaseHot> {
    let hot = crate::template::with_managed_links(hot, links)?;
    match layout {
        Layout::Template => Ok(hot),
        Layout::PerVnfc => {
            let hot = crate::per_vnfc::expand(&hot, flavour, indexes)?;
            crate::nfv::complete(nfv, &hot.parsed);
            crate::per_vnfc::index_nfv(nfv);
            Ok(hot)
        }
    }
}

/// Replaces the stack's template (a per-VNFC layout whose copies change) and waits.
pub async fn replace(
    w: &Work<'_>,
    stack: &StackRef,
    hot: &crate::template::BaseHot,
    nfv: &Value,
) -> Result<()> {
    w.heat
        .replace(stack, &hot.top, &hot.files, &parameters(nfv))
        .await?;
    w.heat.wait(stack, "UPDATE").await
}

/// The Heat parameters.
pub fn parameters(nfv: &Value) -> Map<String, Value> {
    Map::from_iter([("nfv".to_owned(), nfv.clone())])
}

/// Instances per VDU in a VNFC list.
pub fn counts_of(list: &[VnfcResourceInfo]) -> BTreeMap<String, u32> {
    let mut out = BTreeMap::new();
    for r in list {
        *out.entry(r.vdu_id.clone()).or_insert(0) += 1;
    }
    out
}

/// Whether the stack runs, for every VDU of `vdus`, the VNFCs `wanted` asks for (`got`
/// read back from Heat); else the operation fails, `what` and the reason naming the VDUs
/// and their counts: an operation is never completed with fewer or more VNFCs than asked.
pub fn runs_as_asked(
    what: &str,
    vdus: &[&String],
    wanted: &BTreeMap<String, u32>,
    got: &BTreeMap<String, u32>,
) -> Result<()> {
    let missed: Vec<String> = vdus
        .iter()
        .filter_map(|vdu| {
            let want = wanted.get(*vdu).copied().unwrap_or(0);
            let have = got.get(*vdu).copied().unwrap_or(0);
            (want != have).then(|| format!("{vdu} has {have} VNFCs, {want} expected"))
        })
        .collect();
    if missed.is_empty() {
        return Ok(());
    }
    Err(Error::Stack {
        title: "VNFCs not as asked".into(),
        reason: format!(
            "{what}: after the stack operation {}: the base HOT neither sizes these VDUs' \
             OS::Heat::AutoScalingGroup from nfv.VDU.<vdu>.desired_capacity nor has the \
             aspect's OS::Heat::ScalingPolicy (<aspect>_scale_out, <aspect>_scale_in) for a \
             fixed desired_capacity (a base HOT naming each VDU once as a nested template, \
             upstream's StandardUserData layout, needs lcm-operation-user-data-class \
             StandardUserData at instantiation)",
            missed.join("; ")
        ),
    })
}

/// `nfv` with every VDU's `desired_capacity` set from `counts` (VDUs the template
/// sizes with it).
pub fn with_capacities(nfv: &Value, counts: &BTreeMap<String, u32>) -> Value {
    let mut n = nfv.clone();
    if let Some(vdus) = n.get_mut("VDU").and_then(Value::as_object_mut) {
        for (vdu, e) in vdus.iter_mut() {
            if let Some(o) = e.as_object_mut()
                && o.contains_key("desired_capacity")
            {
                o.insert(
                    "desired_capacity".into(),
                    json!(counts.get(vdu).copied().unwrap_or(0)),
                );
            }
        }
    }
    n
}

/// `affectedVnfcs` of going from `before` to `after`: REMOVED, then ADDED.
pub fn changes(before: &[VnfcResourceInfo], after: &[VnfcResourceInfo]) -> Map<String, Value> {
    let mut list: Vec<Value> = before
        .iter()
        .filter(|b| !after.iter().any(|a| a.id == b.id))
        .map(|r| vnfc::affected(r, "REMOVED"))
        .collect();
    list.extend(
        after
            .iter()
            .filter(|a| !before.iter().any(|b| b.id == a.id))
            .map(|r| vnfc::affected(r, "ADDED")),
    );
    Map::from_iter([("affectedVnfcs".to_owned(), Value::Array(list))])
}

/// Updates the stack with `nfv` and waits for it.
pub async fn apply(w: &Work<'_>, stack: &StackRef, nfv: &Value) -> Result<()> {
    w.heat.update(stack, &parameters(nfv)).await?;
    w.heat.wait(stack, "UPDATE").await
}
