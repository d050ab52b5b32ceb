//! CHANGE_VNFPKG: the release upgraded to the new package's chart, keeping the values
//! given so far (new `helm_parameters` merged over them, replica values kept, image
//! values from the new VNFD's `sw_image_data`), then waited for.

use std::collections::{HashMap, HashSet};

use tacker_domain::lcm::driver::Outcome;
use tacker_domain::lcm::{InstantiatedVnfInfo, OperationParams};

use super::{Op, counts};
use crate::error::{Error, Result};
use crate::helm::release;
use crate::helm::values;
use crate::record::HelmRecord;

impl Op<'_, '_> {
    pub async fn change_vnfpkg(&self) -> Result<Outcome> {
        let (rec, info) = self.recorded()?;
        let OperationParams::ChangeVnfpkg(req) = &self.w.octx.op.request else {
            return Err(Error::Invalid("not a package change".into()));
        };
        let target =
            self.w.octx.target.as_ref().ok_or_else(|| {
                Error::Invalid("the operation names no package to change to".into())
            })?;
        let (p, names) = self.params_over(&req.additional_params, &rec)?;
        let flavour = target
            .vnfd
            .flavour(&self.w.octx.flavour_id)
            .ok_or_else(|| {
                Error::Manifest(format!(
                    "flavour {} is not in the VNFD of the new package",
                    self.w.octx.flavour_id
                ))
            })?;
        let h = self.helm(&rec.release, &rec.namespace);
        let mut v = h.values().await?;
        values::merge(&mut v, &p.values);
        let v = release::with_images(v, &names, flavour)?;
        let v = release::with_replicas(v, &names, &counts(&info))?;
        let chart = release::chart_in(&target.package_dir, &p.chart)?;
        let before = self.pod_uids(&rec).await?;
        tracing::info!(instance = %self.w.instance, release = %rec.release, chart = %p.chart, "helm upgrade: changing the package");
        let (live, revision) = self.apply(&h, &chart, &v, flavour).await?;
        let rec = HelmRecord {
            chart: p.chart.clone(),
            names,
            revision,
            vdus: live.vdus,
            ..rec
        };
        self.moved(info, &rec, &before).await
    }

    /// The instance after its workloads rolled: Pods replaced are REMOVED and ADDED,
    /// re-created under the same name (`before` had another uid) MODIFIED.
    pub(super) async fn moved(
        &self,
        info: InstantiatedVnfInfo,
        rec: &HelmRecord,
        before: &HashMap<String, String>,
    ) -> Result<Outcome> {
        let now = self.pod_uids(rec).await?;
        let recreated: HashSet<String> = now
            .iter()
            .filter(|(name, uid)| before.get(*name).is_some_and(|old| old != *uid))
            .map(|(name, _)| name.clone())
            .collect();
        self.outcome(info, rec, None, &recreated).await
    }
}
