//! Instantiate: create the manifests' objects in order, wait until ready, report a VNFC
//! per Pod.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::request::InstantiateRequest;
use tacker_domain::lcm::{InstantiatedVnfInfo, OperationParams, plan};

use super::{Work, create_all, wait_ready};
use crate::error::{Error, Result};
use crate::{observe, vnfc};

/// The instantiate request of the operation in `w`.
pub fn request<'a>(w: &'a Work<'_>) -> Result<&'a InstantiateRequest> {
    match &w.octx.op.request {
        OperationParams::Instantiate(r) => Ok(r),
        other => Err(Error::Invalid(format!(
            "{} is not an instantiation",
            other.operation()
        ))),
    }
}

/// The manifests and namespace the request asks for.
pub fn manifests_of(req: &InstantiateRequest) -> Result<(Vec<String>, Option<String>)> {
    let cnf = req.cnf()?;
    let files = cnf.required_def_files()?.to_vec();
    Ok((files, cnf.namespace))
}

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let req = request(w)?;
    let (files, ns) = manifests_of(req)?;
    let flavour = w.flavour()?;
    let level = plan::level(flavour, req);
    let counts: HashMap<String, u32> = plan::initial_counts(flavour, level.as_deref())
        .into_iter()
        .collect();
    let plan = super::plan(w, &files, ns.as_deref(), &counts).await?;
    tracing::info!(instance = %w.instance, namespace = %plan.namespace, objects = plan.docs.len(), "creating the CNF");
    create_all(w, &plan).await?;
    wait_ready(w, &plan).await?;
    let pods = observe::vnfc_pods(&w.cluster, &plan.namespace, &w.selector, &plan.vdus).await?;
    let r = vnfc::reconcile(
        &[],
        &pods,
        None,
        &HashSet::new(),
        &plan.namespace,
        w.vim_id(),
    );
    let (scale_status, max_scale_levels) =
        plan::initial_scale(&w.octx.vnfd.vnfd_id, flavour, level.as_deref());
    let mut info = InstantiatedVnfInfo {
        flavour_id: w.octx.flavour_id.clone(),
        vnf_state: "STARTED".into(),
        scale_status,
        max_scale_levels,
        vnfc_resource_info: r.resources,
        vnfc_info: r.infos,
        other: Map::new(),
    };
    plan.record(files, w.made_by).write_to(&mut info);
    Ok(Outcome {
        instantiated_vnf_info: Some(info),
        resource_changes: Map::from_iter([("affectedVnfcs".to_owned(), Value::Array(r.affected))]),
    })
}
