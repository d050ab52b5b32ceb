//! Scale: the aspect's deltas applied to the VDUs' workloads through the `scale`
//! subresource, within the VNFD's limits.

use std::collections::HashSet;

use serde_json::{Map, Value};
use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::{OperationParams, plan};

use super::{Work, stored, wait_vdus};
use crate::error::{Error, Result};
use crate::manifest::VduResource;
use crate::{observe, vnfc, wait};

/// Sets each VDU's workload to its target replicas and waits until its Pods match.
pub async fn apply(w: &Work<'_>, ns: &str, targets: &[(VduResource, i64)]) -> Result<()> {
    for (v, n) in targets {
        let t = w.cluster.resolve("apps/v1", &v.kind).await?;
        w.cluster.scale(&t, ns, &v.name, *n).await?;
    }
    let vdus: Vec<VduResource> = targets.iter().map(|(v, _)| v.clone()).collect();
    wait::until(
        "the scaled workloads to settle",
        w.settings.ready_timeout,
        w.settings.poll_interval,
        || wait_vdus(w, ns, &vdus),
    )
    .await
}

pub async fn run(w: &Work<'_>) -> Result<Outcome> {
    let s = stored(w.octx)?;
    super::refuse_stopped(&s)?;
    let flavour = w.flavour()?;
    let OperationParams::Scale(req) = &w.octx.op.request else {
        return Err(Error::Invalid("not a scale request".into()));
    };
    let step = plan::scale_step(flavour, &s.info, req).map_err(Error::Invalid)?;
    let mut targets = Vec::new();
    for (vdu, delta) in &step.deltas {
        let v = s
            .vdus
            .iter()
            .find(|v| v.vdu_id == *vdu)
            .ok_or_else(|| Error::Manifest(format!("VDU {vdu} has no Kubernetes resource")))?;
        if !matches!(v.kind.as_str(), "Deployment" | "ReplicaSet" | "StatefulSet") {
            return Err(Error::Invalid(format!(
                "VDU {vdu} is a {} ({}); only Deployments, ReplicaSets and StatefulSets scale",
                v.kind, v.name
            )));
        }
        let t = w.cluster.resolve("apps/v1", &v.kind).await?;
        let now = w.cluster.replicas(&t, &s.namespace, &v.name).await?;
        let target = now + delta;
        plan::check_count(flavour, vdu, target).map_err(Error::Invalid)?;
        targets.push((v.clone(), target));
    }
    apply(w, &s.namespace, &targets).await?;
    let scope: HashSet<String> = targets.iter().map(|(v, _)| v.vdu_id.clone()).collect();
    let pods = observe::vnfc_pods(&w.cluster, &s.namespace, &w.selector, &s.vdus).await?;
    let r = vnfc::reconcile(
        &s.info.vnfc_resource_info,
        &pods,
        Some(&scope),
        &HashSet::new(),
        &s.namespace,
        w.vim_id(),
    );
    let mut info = s.info.clone();
    info.vnfc_resource_info = r.resources;
    info.vnfc_info = r.infos;
    for st in &mut info.scale_status {
        if st.aspect_id == step.aspect {
            st.scale_level = step.to_level;
        }
    }
    Ok(Outcome {
        instantiated_vnf_info: Some(info),
        resource_changes: Map::from_iter([("affectedVnfcs".to_owned(), Value::Array(r.affected))]),
    })
}
