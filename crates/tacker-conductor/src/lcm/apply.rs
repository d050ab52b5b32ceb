//! The instance as a completed operation leaves it, and `changedInfo`.

use serde_json::{Map, Value, json};
use tacker_domain::lcm::driver::{OpContext, Outcome};
use tacker_domain::lcm::{
    InstantiationState, OperationParams, VnfInstance, redact_vim_connection_info,
};
use tacker_domain::package::merge_patch;

use super::vim;

fn merged(target: &mut Map<String, Value>, patch: Option<&Map<String, Value>>) {
    if let Some(p) = patch {
        merge_patch(target, p);
    }
}

/// The instance after the operation, and `changedInfo` for MODIFY_INFO.
pub fn result(
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
                            Map::from_iter([(v.id.clone(), vim::to_json(v))]);
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
                after.vnfd_id = t.vnfd.vnfd_id.clone();
                after.vnf_pkg_id = t.id;
                after.vnf_provider = t.vnfd.provider.clone();
                after.vnf_product_name = t.vnfd.product_name.clone();
                after.vnf_software_version = t.vnfd.software_version.clone();
                after.vnfd_version = t.vnfd.descriptor_version.clone();
            }
            if let Some(v) = &r.vim_connection_info {
                merge_patch(&mut after.vim_connection_info, v);
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
                (
                    "vimConnectionInfo",
                    &m.vim_connection_info,
                    &mut after.vim_connection_info,
                ),
            ] {
                if let Some(v) = patch {
                    merged(target, Some(v));
                    let shown = if key == "vimConnectionInfo" {
                        redact_vim_connection_info(v)
                    } else {
                        v.clone()
                    };
                    changed.insert(key.into(), Value::Object(shown));
                }
            }
            (after, Some(Value::Object(changed)))
        }
        other => {
            after.instantiated_vnf_info = outcome.instantiated_vnf_info.clone();
            if let Some(v) = other.vim_connection_info() {
                merge_patch(&mut after.vim_connection_info, v);
            }
            (after, None)
        }
    }
}
