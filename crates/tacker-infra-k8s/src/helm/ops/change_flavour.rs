//! CHANGE_FLAVOUR: the release upgraded to the new flavour: its chart
//! (`helm_chart_path` of the request, else the one in use), the values given so far with
//! the request's `helm_parameters` merged over them, the replica values at the counts of
//! the new flavour's instantiation level and the image values from its `sw_image_data`;
//! then waited for, its workloads bound to the new flavour's VDUs. A rollback goes back
//! to the revision recorded before (Helm's own history).

use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::{OperationParams, plan};

use super::Op;
use crate::error::{Error, Result};
use crate::helm::release;
use crate::helm::values;
use crate::record::HelmRecord;

impl Op<'_, '_> {
    pub async fn change_flavour(&self) -> Result<Outcome> {
        let (rec, info) = self.recorded_running()?;
        let OperationParams::ChangeFlavour(req) = &self.w.octx.op.request else {
            return Err(Error::Invalid("not a flavour change".into()));
        };
        let flavour = self
            .w
            .octx
            .vnfd
            .flavour(&req.new_flavour_id)
            .ok_or_else(|| {
                Error::Invalid(format!("flavour {} is not in the VNFD", req.new_flavour_id))
            })?;
        let (p, names) = self.params_over(&req.additional_params, &rec)?;
        let level = req.level(flavour);
        let counts: Vec<(String, i64)> = plan::initial_counts(flavour, level.as_deref())
            .into_iter()
            .map(|(v, n)| (v, i64::from(n)))
            .collect();
        let h = self.helm(&rec.release, &rec.namespace);
        let mut v = h.values().await?;
        values::merge(&mut v, &p.values);
        let v = release::with_images(v, &names, flavour)?;
        let v = release::with_replicas(v, &names, &counts)?;
        let chart = release::chart_in(&self.w.octx.package_dir, &p.chart)?;
        let before = self.pod_uids(&rec).await?;
        tracing::info!(instance = %self.w.instance, release = %rec.release, from = %info.flavour_id, to = %flavour.id, "helm upgrade: changing the flavour");
        let (live, revision) = self.apply(&h, &chart, &v, flavour).await?;
        let rec = HelmRecord {
            chart: p.chart.clone(),
            names,
            revision,
            vdus: live.vdus,
            ..rec
        };
        let mut out = self.moved(info, &rec, &before).await?;
        if let Some(info) = out.instantiated_vnf_info.as_mut() {
            let (status, max) =
                plan::initial_scale(&self.w.octx.vnfd.vnfd_id, flavour, level.as_deref());
            info.flavour_id = flavour.id.clone();
            info.scale_status = status;
            info.max_scale_levels = max;
        }
        Ok(out)
    }
}
