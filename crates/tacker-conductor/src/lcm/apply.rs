//! The instance as a completed operation leaves it, and `changedInfo`.

use serde_json::{Map, Value, json};
use tacker_domain::lcm::driver::{OpContext, Outcome, TargetPackage};
use tacker_domain::lcm::{InstantiationState, OperationParams, VnfInstance};
use tacker_domain::package::merge_patch;
use tacker_domain::vim::{VimConnections, connection};

use super::vim;

fn merged(target: &mut Map<String, Value>, patch: Option<&Map<String, Value>>) {
    if let Some(p) = patch {
        merge_patch(target, p);
    }
}

/// Merges each of `entries` into the entry of its id (a merge patch), or adds it.
fn merge_entries(vci: &mut VimConnections, entries: &VimConnections) {
    for (k, e) in entries {
        match vci.get_mut(k) {
            Some(old) => old.merge(e),
            None => {
                vci.insert(k.clone(), e.clone());
            }
        }
    }
}

/// Puts `after` on package `t`.
fn move_to(after: &mut VnfInstance, t: &TargetPackage) {
    after.vnfd_id = t.vnfd.vnfd_id.clone();
    after.vnf_pkg_id = t.id;
    after.vnf_provider = t.vnfd.provider.clone();
    after.vnf_product_name = t.vnfd.product_name.clone();
    after.vnf_software_version = t.vnfd.software_version.clone();
    after.vnfd_version = t.vnfd.descriptor_version.clone();
}

/// VNFCs that stay keep their `vnfcConfigurableProperties` (drivers rebuild the lists).
fn keep_vnfc_properties(before: &VnfInstance, after: &mut VnfInstance) {
    let (Some(b), Some(a)) = (
        &before.instantiated_vnf_info,
        &mut after.instantiated_vnf_info,
    ) else {
        return;
    };
    for c in &mut a.vnfc_info {
        if c.vnfc_configurable_properties.is_empty()
            && let Some(old) = b.vnfc_info.iter().find(|o| o.id == c.id)
        {
            c.vnfc_configurable_properties = old.vnfc_configurable_properties.clone();
        }
    }
}

/// The instance after the operation, and `changedInfo` for MODIFY_INFO.
pub fn result(
    before: &VnfInstance,
    octx: &OpContext,
    outcome: &Outcome,
) -> (VnfInstance, Option<Value>) {
    let (mut after, changed) = applied(before, octx, outcome);
    keep_vnfc_properties(before, &mut after);
    (after, changed)
}

fn applied(
    before: &VnfInstance,
    octx: &OpContext,
    outcome: &Outcome,
) -> (VnfInstance, Option<Value>) {
    let mut after = before.clone();
    match &octx.op.request {
        OperationParams::Instantiate(r) => {
            after.instantiation_state = InstantiationState::Instantiated;
            after.instantiated_vnf_info = outcome.instantiated_vnf_info.clone();
            match &r.vim_connection_info {
                Some(v) => after.vim_connection_info = v.clone(),
                None => {
                    if let Some(v) = &octx.vim {
                        after.vim_connection_info =
                            VimConnections::from([(v.id.clone(), vim::entry(v))]);
                    }
                }
            }
            merged(&mut after.extensions, r.extensions.as_ref());
            merged(
                &mut after.vnf_configurable_properties,
                r.vnf_configurable_properties.as_ref(),
            );
            (after, None)
        }
        OperationParams::ChangeVnfpkg(r) => {
            after.instantiated_vnf_info = outcome.instantiated_vnf_info.clone();
            if let Some(t) = &octx.target {
                move_to(&mut after, t);
            }
            if let Some(v) = &r.vim_connection_info {
                merge_entries(&mut after.vim_connection_info, v);
            }
            merged(&mut after.extensions, r.extensions.as_ref());
            merged(
                &mut after.vnf_configurable_properties,
                r.vnf_configurable_properties.as_ref(),
            );
            (after, None)
        }
        OperationParams::Terminate(_) => {
            after.instantiation_state = InstantiationState::NotInstantiated;
            after.instantiated_vnf_info = None;
            (after, None)
        }
        OperationParams::ModifyInfo(m) => {
            let mut changed = Map::new();
            if let Some(t) = &octx.target {
                move_to(&mut after, t);
                changed.insert("vnfdId".into(), json!(t.vnfd.vnfd_id));
            }
            if let (Some(mods), Some(info)) = (
                &m.vnfc_info_modifications,
                after.instantiated_vnf_info.as_mut(),
            ) {
                for md in mods {
                    let id = md.get("id").and_then(Value::as_str).unwrap_or_default();
                    if let (Some(c), Some(Value::Object(p))) = (
                        info.vnfc_info.iter_mut().find(|c| c.id == id),
                        md.get("vnfcConfigurableProperties"),
                    ) {
                        merge_patch(&mut c.vnfc_configurable_properties, p);
                    }
                }
                changed.insert("vnfcInfoModifications".into(), json!(mods));
            }
            if let Some(n) = &m.vnf_instance_name {
                after.name = n.clone();
                changed.insert("vnfInstanceName".into(), json!(n));
            }
            if let Some(d) = &m.vnf_instance_description {
                after.description = d.clone();
                changed.insert("vnfInstanceDescription".into(), json!(d));
            }
            for (key, patch, target) in [
                ("metadata", &m.metadata, &mut after.metadata),
                ("extensions", &m.extensions, &mut after.extensions),
                (
                    "vnfConfigurableProperties",
                    &m.vnf_configurable_properties,
                    &mut after.vnf_configurable_properties,
                ),
            ] {
                if let Some(v) = patch {
                    merged(target, Some(v));
                    changed.insert(key.into(), Value::Object(v.clone()));
                }
            }
            if let Some(patch) = &m.vim_connection_info {
                connection::merge(&mut after.vim_connection_info, patch);
                let shown: Map<String, Value> = patch
                    .iter()
                    .map(|(k, e)| {
                        let v = e.as_ref().map_or(Value::Null, |e| Value::Object(e.shown()));
                        (k.clone(), v)
                    })
                    .collect();
                changed.insert("vimConnectionInfo".into(), Value::Object(shown));
            }
            (after, Some(Value::Object(changed)))
        }
        other => {
            after.instantiated_vnf_info = outcome.instantiated_vnf_info.clone();
            if let Some(v) = other.vim_connections() {
                merge_entries(&mut after.vim_connection_info, v);
            }
            (after, None)
        }
    }
}
