//! Instantiate: create the manifests' objects in order, wait until ready, report a VNFC
//! per Pod.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::request::InstantiateRequest;
use tacker_domain::lcm::{InstantiatedVnfInfo, OperationParams, plan};

use super::{Work, create_all, wait_ready};
use crate::error::{Error, Result};
use crate::{manifest, observe, vnfc};

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

/// The namespace the request asks for.
pub fn namespace_param(req: &InstantiateRequest) -> Result<Option<String>> {
    match req.additional_params.get("namespace") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
        Some(_) => Err(Error::Manifest(
            "additionalParams.namespace must be a name".into(),
        )),
    }
}

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let req = request(w)?;
    let files = manifest::def_files(&req.additional_params)?;
    let flavour = w.flavour()?;
    let level = plan::level(flavour, req);
    let counts: HashMap<String, u32> = plan::initial_counts(flavour, level.as_deref())
        .into_iter()
        .collect();
    let ns = namespace_param(req)?;
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
    let info = InstantiatedVnfInfo {
        flavour_id: w.octx.flavour_id.clone(),
        vnf_state: "STARTED".into(),
        scale_status,
        max_scale_levels,
        vnfc_resource_info: r.resources,
        vnfc_info: r.infos,
        other: Map::from_iter([("metadata".to_owned(), plan.metadata(&files))]),
    };
    Ok(Outcome {
        instantiated_vnf_info: Some(info),
        resource_changes: Map::from_iter([("affectedVnfcs".to_owned(), Value::Array(r.affected))]),
    })
}
