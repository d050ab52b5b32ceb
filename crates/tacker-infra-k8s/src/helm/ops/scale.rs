//! Scale: the release upgraded with the VDUs' new replica values (within the VNFD's
//! limits; a VDU without a replica value cannot scale).

use std::collections::HashSet;

use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::{OperationParams, plan};

use super::Op;
use crate::error::{Error, Result};
use crate::helm::release;

impl Op<'_, '_> {
    pub async fn scale(&self) -> Result<Outcome> {
        let (mut rec, mut info) = self.recorded_running()?;
        let flavour = self.w.flavour()?;
        let OperationParams::Scale(req) = &self.w.octx.op.request else {
            return Err(Error::Invalid("not a scale request".into()));
        };
        let step = plan::scale_step(flavour, &info, req).map_err(Error::Invalid)?;
        let h = self.helm(&rec.release, &rec.namespace);
        let mut targets = Vec::new();
        for (vdu, delta) in &step.deltas {
            if rec
                .names
                .get(vdu)
                .and_then(|n| n.replica.as_ref())
                .is_none()
            {
                return Err(Error::Invalid(format!(
                    "VDU {vdu} has no replica value (helm_value_names.{vdu}.replica at instantiation): it cannot scale"
                )));
            }
            let v = rec.vdus.iter().find(|v| v.vdu_id == *vdu).ok_or_else(|| {
                Error::Manifest(format!("VDU {vdu} has no workload in the release"))
            })?;
            let t = self.w.cluster.resolve("apps/v1", &v.kind).await?;
            let target = self.w.cluster.replicas(&t, &rec.namespace, &v.name).await? + delta;
            plan::check_count(flavour, vdu, target).map_err(Error::Invalid)?;
            targets.push((vdu.clone(), target));
        }
        let values = release::with_replicas(h.values().await?, &rec.names, &targets)?;
        let chart = release::chart_in(&self.w.octx.package_dir, &rec.chart)?;
        tracing::info!(instance = %self.w.instance, release = %rec.release, "helm upgrade: scaling");
        rec.revision = self.apply(&h, &chart, &values, flavour).await?.1;
        for st in &mut info.scale_status {
            if st.aspect_id == step.aspect {
                st.scale_level = step.to_level;
            }
        }
        let scope: HashSet<String> = targets.into_iter().map(|(v, _)| v).collect();
        self.outcome(info, &rec, Some(&scope), &HashSet::new())
            .await
    }
}
