//! The instance as a completed operation leaves it, and `changedInfo`.

use serde_json::{Map, Value};
use tacker_domain::lcm::driver::{OpContext, Outcome};
use tacker_domain::lcm::{
    InstantiationState, LcmOperation, VnfInstance, redact_vim_connection_info,
};
use tacker_domain::package::merge_patch;

use super::vim;

fn merged(target: &mut Map<String, Value>, patch: Option<&Value>) {
    if let Some(Value::Object(p)) = patch {
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
    let p = &octx.op.operation_params;
    match octx.op.operation {
        LcmOperation::Instantiate => {
            after.instantiation_state = InstantiationState::Instantiated;
            after.instantiated_vnf_info = outcome.instantiated_vnf_info.clone();
            match p.get("vimConnectionInfo").and_then(Value::as_object) {
                Some(v) => after.vim_connection_info = v.clone(),
                None => {
                    if let Some(v) = &octx.vim {
                        after.vim_connection_info =
                            Map::from_iter([(v.id.clone(), vim::to_json(v))]);
                    }
                }
            }
            merged(&mut after.extensions, p.get("extensions"));
            merged(
                &mut after.vnf_configurable_properties,
                p.get("vnfConfigurableProperties"),
            );
            (after, None)
        }
        LcmOperation::Terminate => {
            after.instantiation_state = InstantiationState::NotInstantiated;
            after.instantiated_vnf_info = None;
            (after, None)
        }
        LcmOperation::ModifyInfo => {
            let mut changed = Map::new();
            if let Some(n) = p.get("vnfInstanceName") {
                after.name = n.as_str().map(str::to_owned);
                changed.insert("vnfInstanceName".into(), n.clone());
            }
            if let Some(d) = p.get("vnfInstanceDescription") {
                after.description = d.as_str().map(str::to_owned);
                changed.insert("vnfInstanceDescription".into(), d.clone());
            }
            for (key, target) in [
                ("metadata", &mut after.metadata),
                ("extensions", &mut after.extensions),
                (
                    "vnfConfigurableProperties",
                    &mut after.vnf_configurable_properties,
                ),
                ("vimConnectionInfo", &mut after.vim_connection_info),
            ] {
                if let Some(v) = p.get(key) {
                    merged(target, Some(v));
                    let shown = match (key, v.as_object()) {
                        ("vimConnectionInfo", Some(m)) => {
                            Value::Object(redact_vim_connection_info(m))
                        }
                        _ => v.clone(),
                    };
                    changed.insert(key.into(), shown);
                }
            }
            (after, Some(Value::Object(changed)))
        }
        _ => {
            after.instantiated_vnf_info = outcome.instantiated_vnf_info.clone();
            if let Some(v) = p.get("vimConnectionInfo").and_then(Value::as_object) {
                merge_patch(&mut after.vim_connection_info, v);
            }
            (after, None)
        }
    }
}
